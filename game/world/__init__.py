"""Worlds: the TOML format in ``content/<world>/``, its validation, and the loaded ``World``.

``load_world`` and ``list_worlds`` are the only entry points; nothing here reads a file at import.
"""

from game.world.loader import list_worlds, load_world
from game.world.model import PLAYER_WORD, World, WorldInfo
from game.world.schema import CharacterDef

__all__ = ["PLAYER_WORD", "CharacterDef", "World", "WorldInfo", "list_worlds", "load_world"]
