"""The Textual app: the only package that imports textual. It renders engine events and sends the
player's input to the engine; every rule of the game lives below it."""
