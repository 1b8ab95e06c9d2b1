"""What a save's schema version promises: a table missing from a save is empty only if the save is older.

A feature's table (identity questions, tellings, contexts...) arrives with a migration. A save written
before that migration has none of its rows, and reading it as empty is right. A save at or past that
version promised the table: if it is gone (a hand or a tool dropped it), reading empty would hide damage,
so a reader asks ``expects`` with the version that brought the table (``since`` of the migrations that
create it, its owner's own, or ``Schema.since``) and then reads, and SQLite's "no such table" becomes the
damage message (``game.store.damage``). Nothing is ever created here.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import aiosqlite


def expects_sync(conn: sqlite3.Connection, since: int) -> bool:
    """Whether the save behind ``conn`` should hold what migration ``since`` brought: False only for a save
    older than it."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0]) >= since


async def expects(conn: aiosqlite.Connection, since: int) -> bool:
    """``expects_sync`` on an open save's connection."""
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0]) >= since
