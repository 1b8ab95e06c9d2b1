"""Rows of a feature's own table written with a turn: in the turn's transaction, journaled for undo.

The graph has typed writes of its own (``GraphWrites``). Everything else a turn changes (an NPC's
attitude, a memory, a per-save note) is a ``RowWrite``: the whole row by its primary key, or ``None`` to
delete it. The store journals each row's before-image (``journal.record_rows``) and writes it, so undo
puts back exactly what the turn replaced, without the feature writing any undo code of its own.
Columns hold JSON-able scalars (text, integers, reals, NULL): a before-image is kept as JSON. A text
written to a column declared ``BLOB`` is stored compressed (``game.store.packed``) and ``read_rows`` gives
it back as text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import aiosqlite

from game.store import journal
from game.store.packed import pack, unpack

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
    """Write ``writes`` inside the caller's transaction, journaled at ``turn`` when ``journal_it``.

    The result is as if they were written one by one in order: a later write of a key wins over an
    earlier one (so a delete then an insert of one key leaves the row, an insert then a delete leaves
    none), and each row's before-image is the row as it was before the first of them. They go to SQLite
    batched, though, because each statement is a trip to the database thread and a turn writes many
    rows: the before-images of every key in one query, their journal entries in one statement, then per
    table its deletes in one statement and its rows of each column set in one statement each.
    """
    final: dict[tuple[str, tuple[tuple[str, Scalar], ...]], RowWrite] = {}
    for write in writes:
        if write.row is not None and any(write.row.get(column) != value for column, value in write.key.items()):
            raise ValueError(f"a row of {write.table} does not carry its own key {dict(write.key)}")
        final[(write.table, tuple(sorted(write.key.items())))] = write
    if not final:
        return
    if journal_it:
        keys: dict[str, list[Mapping[str, Scalar]]] = {}
        for write in final.values():
            keys.setdefault(write.table, []).append(write.key)
        await journal.record_tables(conn, turn, keys)
    deletes: dict[str, list[list[Scalar]]] = {}
    inserts: dict[tuple[str, tuple[str, ...]], list[list[Scalar | bytes]]] = {}
    for (table, identity), write in final.items():
        if write.row is None:
            deletes.setdefault(f'DELETE FROM "{table}" WHERE ' + " AND ".join(f'"{c}" = ?' for c, _ in identity),
                               []).append([value for _, value in identity])
        else:
            packed = await journal.blob_columns(conn, table)
            inserts.setdefault((table, tuple(write.row)), []).append(
                [pack(value) if name in packed and isinstance(value, str) else value
                 for name, value in write.row.items()])
    # Deletes first: an insert never needs a row its own turn deletes, and distinct keys cannot collide.
    for statement, parameters in deletes.items():
        await conn.executemany(statement, parameters)
    for (table, names), values in inserts.items():
        # The row under each key is replaced whole.
        columns = ", ".join(f'"{column}"' for column in names)
        marks = ", ".join("?" for _ in names)
        await conn.executemany(f'INSERT OR REPLACE INTO "{table}" ({columns}) VALUES ({marks})', values)


async def read_rows(conn: aiosqlite.Connection, table: str) -> list[dict[str, Scalar]]:
    """Every row of a feature's ``table``, as column -> value (a session reads its state back with it)."""
    cursor = await conn.execute(f'SELECT * FROM "{table}"')
    names = [column[0] for column in cursor.description]
    rows = await cursor.fetchall()
    await cursor.close()
    return [{name: unpack(value) for name, value in zip(names, row, strict=True)} for row in rows]
