"""NPCs' memories of the player (seed 004's episodic memories) as a feature package (issue 22).

``MemoriesFeature`` is what the registry lists: its step, the told turn's last, forms the memories a turn
leaves (``rules``; old related ones consolidated by ``consolidate``), its MEMORY section of the narrator's
context is ``provider``'s, ``render`` is how ``/npc`` (its meta command) and ``kith graph memories`` show
them, ``store`` reads a save's book on its own, and ``commands`` adds ``kith graph memories``. The book they
all read (``book``) is the feature's state; the story reads it through the narration request.
"""

from game.features.memories.feature import MemoriesFeature

__all__ = ["MemoriesFeature"]
