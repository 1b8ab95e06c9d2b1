"""Reading NPCs' memories back from a save: the book a session plays on after open, undo or restore.

Writing needs nothing here: a turn's memory rows are ``RowWrite``s the store commits and journals with
the turn (``SaveDatabase.commit_turn``).
"""

from __future__ import annotations

from game.mind.memory import MEMORY_TABLE, SAID_TABLE, MemoryBook, MemorySettings, memory_from_row
from game.store.damage import READ_ERRORS, damaged
from game.store.database import SaveDatabase

COLUMNS = ("npc", "seq", "kind", "text", "turn", "importance", "valence", "tags", "strength", "last_used", "uses",
           "heard", "about")


async def load_memory_book(db: SaveDatabase, settings: MemorySettings | None = None) -> MemoryBook:
    """Every memory and every said word in the save ``db``; a damaged table or row is one ``SaveError``
    naming the save, never a traceback."""
    try:
        return await _load(db, MemoryBook(settings or MemorySettings()))
    except READ_ERRORS as error:
        raise damaged(db.name, error) from error


async def _load(db: SaveDatabase, book: MemoryBook) -> MemoryBook:
    names = ", ".join(COLUMNS)
    for row in await db.conn.execute_fetchall(f"SELECT {names} FROM {MEMORY_TABLE}"):
        memory = memory_from_row(dict(zip(COLUMNS, row, strict=True)))
        book.memories.setdefault(memory.npc, {})[memory.seq] = memory
    for npc, key, turn in await db.conn.execute_fetchall(f"SELECT npc, key, turn FROM {SAID_TABLE}"):
        book.said.setdefault(str(npc), {})[str(key)] = int(turn)
    return book
