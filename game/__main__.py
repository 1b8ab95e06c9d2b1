def main() -> None:
    print("kith")
