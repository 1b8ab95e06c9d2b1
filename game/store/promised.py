"""What a save's schema version promises: a table missing from a save is empty only if the save is older.

A feature's table (identity questions, tellings, contexts...) arrives with a migration. A save written
before that migration has none of its rows, and reading it as empty is right. A save at or past that
version promised the table: if it is gone (a hand or a tool dropped it), reading empty would hide damage,
so a reader asks ``expects`` and then reads, and SQLite's "no such table" becomes the damage message
(``game.store.damage``). Only what the migrations create is known here; nothing is ever created.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from typing import TYPE_CHECKING

from game.store.migrations import MIGRATIONS

if TYPE_CHECKING:
    import aiosqlite

_CREATES = re.compile(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)|ALTER TABLE (\w+) ADD COLUMN (\w+)", re.IGNORECASE)


@functools.cache
def _since() -> dict[str, int]:
    """The version (migration number) that brought each table, and each added column as ``table.column``."""
    found: dict[str, int] = {}
    for version, script in enumerate(MIGRATIONS, start=1):
        for match in _CREATES.finditer(script):
            name = match.group(1) or f"{match.group(2)}.{match.group(3)}"
            found.setdefault(name, version)
    return found


def since(name: str) -> int:
    """The schema version from which a save holds ``name`` (a table, or ``table.column``)."""
    try:
        return _since()[name]
    except KeyError:
        raise ValueError(f"no migration creates {name!r}") from None


def expects_sync(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the save behind ``conn`` should hold ``name``: False only for a save older than it."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0]) >= since(name)


async def expects(conn: aiosqlite.Connection, name: str) -> bool:
    """``expects_sync`` on an open save's connection."""
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0]) >= since(name)
