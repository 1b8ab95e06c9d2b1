"""Reading NPCs' memories back from a save on their own (``kith graph memories``, without a game's state).

Writing needs nothing here: a turn's memory rows are ``RowWrite``s the store commits and journals with
the turn (``SaveDatabase.commit_turn``); a game's book is the feature's state, read with its tables.
"""

from __future__ import annotations

from game.features.memories.book import MEMORY_TABLE, SAID_TABLE, MemoryBook, MemorySettings
from game.store.damage import READ_ERRORS, damaged
from game.store.database import SaveDatabase


async def load_memory_book(db: SaveDatabase, settings: MemorySettings | None = None) -> MemoryBook:
    """Every memory and every said word in the save ``db``; a damaged table or row is one ``SaveError``
    naming the save, never a traceback."""
    try:
        return MemoryBook.from_rows(await db.read_rows(MEMORY_TABLE), await db.read_rows(SAID_TABLE), settings)
    except READ_ERRORS as error:
        raise damaged(db.name, error) from error
