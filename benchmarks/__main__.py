"""Run every benchmark module that is present and print its figures."""

from __future__ import annotations

import importlib
import sys
import time

MODULES = ["graph_bench", "engine_bench", "llm_bench", "map_bench", "extract_bench"]


def main() -> int:
    selected = sys.argv[1:] or MODULES
    for name in selected:
        try:
            module = importlib.import_module(f"benchmarks.{name}")
        except ModuleNotFoundError as error:
            if error.name == f"benchmarks.{name}":
                continue
            raise
        started = time.perf_counter()
        print(f"== {name}")
        for line in module.run():
            print(f"   {line}", flush=True)
        print(f"   ({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
