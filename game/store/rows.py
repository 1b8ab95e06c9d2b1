"""Rows of a feature's own table written with a turn: in the turn's transaction, journaled for undo.

The graph has typed writes of its own (``GraphWrites``). Everything else a turn changes (an NPC's
attitude, a memory, a per-save note) is a ``RowWrite``: the whole row by its primary key, or ``None`` to
delete it. The store journals each row's before-image (``journal.record_rows``) and writes it, so undo
puts back exactly what the turn replaced, without the feature writing any undo code of its own.
Columns hold JSON-able scalars (text, integers, reals, NULL): a before-image is kept as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import aiosqlite

from game.store import journal

Scalar = str | int | float | None


@dataclass(frozen=True)
class RowWrite:
    """One row of ``table`` as it is after the turn (``row``), or deleted (``row`` is None)."""

    table: str
    key: Mapping[str, Scalar]
    """The row's whole primary key."""
    row: Mapping[str, Scalar] | None
    """Every column of the row, the key's included; None deletes the row."""


async def write_rows(conn: aiosqlite.Connection, turn: int, writes: Sequence[RowWrite], *, journal_it: bool) -> None:
    """Write ``writes`` in order inside the caller's transaction, journaled at ``turn`` when ``journal_it``."""
    for write in writes:
        if write.row is not None and any(write.row.get(column) != value for column, value in write.key.items()):
            raise ValueError(f"a row of {write.table} does not carry its own key {dict(write.key)}")
        if journal_it:
            await journal.record_rows(conn, turn, write.table, [write.key])
        if write.row is None:
            where = " AND ".join(f'"{column}" = ?' for column in write.key)
            await conn.execute(f'DELETE FROM "{write.table}" WHERE {where}', list(write.key.values()))
        else:
            # One statement: the row under this key is replaced whole (a turn's rows are many, and each
            # statement is a trip to the database thread).
            names = ", ".join(f'"{column}"' for column in write.row)
            marks = ", ".join("?" for _ in write.row)
            await conn.execute(f'INSERT OR REPLACE INTO "{write.table}" ({names}) VALUES ({marks})',
                               list(write.row.values()))


async def read_rows(conn: aiosqlite.Connection, table: str) -> list[dict[str, Scalar]]:
    """Every row of a feature's ``table``, as column -> value (a session reads its state back with it)."""
    cursor = await conn.execute(f'SELECT * FROM "{table}"')
    names = [column[0] for column in cursor.description]
    rows = await cursor.fetchall()
    await cursor.close()
    return [dict(zip(names, row, strict=True)) for row in rows]
