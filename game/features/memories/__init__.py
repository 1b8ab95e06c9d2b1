"""NPCs' memories of the player (seed 004's episodic memories) as a feature package (issue 22).

``MemoriesFeature`` is what the registry lists: its step, the told turn's last, forms the memories a turn
leaves (``rules``; old related ones consolidated by ``consolidate``), its MEMORY section of the narrator's
context is ``provider``'s, ``render`` is how ``/npc`` (its meta command) and ``kith graph memories`` show
them, ``store`` reads a save's book on its own, and ``commands`` adds ``kith graph memories``. The book they
all read (``book``) is the feature's state; the story reads it through the narration request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.features.lazy import lazy_exports

if TYPE_CHECKING:
    from game.features.memories.feature import MemoriesFeature

# Imported on first use (game/features/lazy.py): the schema is read without the feature's rules.
_HOME = {
    "MemoriesFeature": "game.features.memories.feature",
}

__all__ = ["MemoriesFeature"]


__getattr__ = lazy_exports(__name__, _HOME, globals())
