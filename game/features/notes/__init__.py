"""The notes feature: the save's Memory and Author's note, the player's own words to a model narrator.

Kith's smallest feature package and the worked example of docs/architecture.md ("Writing a feature"):
its table's rows (``store``), its rules (``rules``), its meta commands (``commands``) and what the
registry sees of it (``feature``).
"""

from game.features.notes.feature import NotesFeature

__all__ = ["NotesFeature"]
