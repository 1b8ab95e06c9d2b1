"""The undo journal: before-images of every row a turn changes, which ``game.store.undo`` puts back.

Each entry is ``(turn, kind, key, before)``: the row as it was before the turn (JSON), or NULL when the
turn created it. Undoing a turn ends each row as its oldest entry of the turn says, so a row changed twice
in one turn ends as it was before the first change. Everything here runs inside the caller's transaction.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

import aiosqlite

from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.store import graph_repo, told_log
from game.store.told_log import Told

Kind = Literal["node", "edge", "merge", "knowing", "gossip"] | str
"""A graph kind above, or ``row:TABLE`` for a row of a feature's own table (see ``record_rows``)."""
Entry = tuple[int, Kind, str, str | None]

ROW_KIND_PREFIX = "row:"


def before_image(row: Node | Edge | Knowing | None) -> str | None:
    """How a row is kept in the journal (None: the turn created it, so undo deletes it)."""
    return None if row is None else json.dumps(row.to_json_dict())


async def record(conn: aiosqlite.Connection, entries: Iterable[Entry]) -> None:
    """Append entries; the only place that writes the journal."""
    rows = list(entries)
    if rows:  # a turn journals up to five kinds, most of them empty: each statement is a trip to the thread
        await conn.executemany("INSERT INTO journal (turn, kind, key, before) VALUES (?, ?, ?, ?)", rows)


async def record_nodes(conn: aiosqlite.Connection, turn: int, changed: Sequence[str],
                       created: Sequence[str]) -> dict[str, Node]:
    """Before-images of nodes about to be written (``created`` ones did not exist); gives the changed
    nodes as stored (``graph_repo.put_nodes`` then leaves the name rows of those not renamed)."""
    before = await graph_repo.SqlGraph(conn).get_nodes(changed)
    entries: list[Entry] = [(turn, "node", node_id, before_image(before.get(node_id))) for node_id in changed]
    entries += [(turn, "node", node_id, None) for node_id in created]
    await record(conn, entries)
    return before


async def record_edges(conn: aiosqlite.Connection, turn: int, changed: Sequence[str], created: Sequence[str]) -> None:
    """Before-images of edge versions about to be written (``created`` ones did not exist)."""
    before = await graph_repo.edges_by_id(conn, changed)
    entries: list[Entry] = [(turn, "edge", edge_id, before_image(before.get(edge_id))) for edge_id in changed]
    entries += [(turn, "edge", edge_id, None) for edge_id in created]
    await record(conn, entries)


async def record_knowings(conn: aiosqlite.Connection, turn: int, keys: Sequence[tuple[str, str]]) -> None:
    """Before-images of knower rows about to be written (NULL for a knower who did not know before)."""
    before = await graph_repo.knowings_by_key(conn, keys)
    await record(conn, [(turn, "knowing", graph_repo.knowing_key(*key), before_image(before.get(key))) for key in keys])


async def record_told(conn: aiosqlite.Connection, turn: int, told: Sequence[Told]) -> None:
    """Exchanges about to be logged: always new rows, so undo deletes them."""
    await record(conn, [(turn, told_log.JOURNAL_KIND, told_log.journal_key(t), None) for t in told])


async def record_rows(
    conn: aiosqlite.Connection, turn: int, table: str, keys: Sequence[Mapping[str, object]]
) -> None:
    """Before-images of rows of ``table`` about to be written or deleted, one per primary key in ``keys``.

    This is how a feature's own table (attitudes, memories, notes...) becomes undoable without a
    journal kind of its own: each key names a row by its whole primary key, the row as it is now is
    kept (NULL when there is none yet), and undo deletes the row and puts the kept one back. Call it
    before changing the rows, inside the turn's transaction; a row changed twice in one turn is fine.
    """
    await record_tables(conn, turn, {table: keys})


BEFORE_IMAGE_PARAMETERS = 900
"""At most this many parameters in one before-image query: far under any SQLite's limit (999 before 3.32)."""


async def record_tables(conn: aiosqlite.Connection, turn: int,
                        keys: Mapping[str, Sequence[Mapping[str, object]]]) -> None:
    """``record_rows`` for the keys of several tables at once: one query reads every before-image (a
    turn's rows span several tables, and each query is a trip to the database thread), one statement
    journals them. Each key is looked up as ``column = ?`` would, with the column's own type affinity."""
    plans: list[tuple[str, list[str], list[str], list[Mapping[str, object]]]] = []
    for table, table_keys in keys.items():
        columns = await primary_key(conn, table)
        for key in table_keys:
            if sorted(key) != sorted(columns):
                raise ValueError(f"a key of {table} names {sorted(key)}, not its primary key {sorted(columns)}")
        plans.append((table, columns, await column_names(conn, table), list(table_keys)))
    width = max((len(names) for _, _, names, _ in plans), default=0)
    before: dict[tuple[int, int], str] = {}
    parts: list[str] = []
    parameters: list[object] = []

    async def read() -> None:
        if parts:
            found = await conn.execute_fetchall(" UNION ALL ".join(parts), parameters)
            for row in found:
                number, index = int(row[0]), int(row[1])
                names = plans[number][2]
                before[(number, index)] = encode_row(dict(zip(names, row[2:2 + len(names)], strict=True)))
            parts.clear()
            parameters.clear()

    for number, (table, columns, names, table_keys) in enumerate(plans):
        per_key = len(columns) + 1
        step = max(1, BEFORE_IMAGE_PARAMETERS // per_key)
        for start in range(0, len(table_keys), step):
            chunk = table_keys[start:start + step]
            if len(parameters) + per_key * len(chunk) > BEFORE_IMAGE_PARAMETERS:
                await read()
            values = ", ".join("(" + ", ".join("?" * per_key) + ")" for _ in chunk)
            selected = ", ".join([*(f't."{name}"' for name in names), *("NULL" for _ in range(width - len(names)))])
            joined = " AND ".join(f't."{column}" = k.column{position + 2}' for position, column in enumerate(columns))
            parts.append(f'SELECT {number}, k.column1, {selected} FROM (VALUES {values}) AS k '
                         f'JOIN "{table}" AS t ON {joined}')
            for index, key in enumerate(chunk, start):
                parameters += [index, *(key[column] for column in columns)]
    await read()
    await record(conn, [
        (turn, ROW_KIND_PREFIX + table, json.dumps({c: key[c] for c in columns}), before.get((number, index)))
        for number, (table, columns, _, table_keys) in enumerate(plans) for index, key in enumerate(table_keys)
    ])


def encode_row(row: Mapping[str, object]) -> str:
    """A row's before-image as JSON. A packed value (bytes: ``game.store.packed``) is kept as
    ``{"base64": ...}``: a column value is never an object otherwise, so the tag cannot be mistaken."""
    return json.dumps({name: {"base64": base64.b64encode(value).decode("ascii")} if isinstance(value, bytes)
                       else value for name, value in row.items()})


def decode_row(before: str) -> dict[str, object]:
    """A before-image as the row's values, packed ones as the very bytes that were stored."""
    row: dict[str, object] = json.loads(before)
    return {name: base64.b64decode(value["base64"]) if isinstance(value, dict) else value
            for name, value in row.items()}


_COLUMNS: dict[str, list[str]] = {}
"""Every column of a journaled table, in table order, by table (see ``_PRIMARY_KEYS``)."""
_BLOBS: dict[str, frozenset[str]] = {}
"""The columns of a table declared ``BLOB``: their texts are stored packed (``game.store.packed``)."""
_PRIMARY_KEYS: dict[str, list[str]] = {}
"""Primary keys already read, by table: a table's key is fixed by the migration that made it, and a turn
journals dozens of rows (memories, attitudes...), each of which would otherwise ask SQLite again."""


async def column_names(conn: aiosqlite.Connection, table: str) -> list[str]:
    """Every column of ``table``, in table order."""
    if table not in _COLUMNS:
        info = await conn.execute_fetchall(f'PRAGMA table_info("{table}")')
        _BLOBS[table] = frozenset(str(row[1]) for row in info if str(row[2]).upper() == "BLOB")
        _COLUMNS[table] = [str(row[1]) for row in info]
    return _COLUMNS[table]


async def blob_columns(conn: aiosqlite.Connection, table: str) -> frozenset[str]:
    """The columns of ``table`` declared ``BLOB`` (``write_rows`` packs the texts written to them)."""
    await column_names(conn, table)
    return _BLOBS[table]


async def primary_key(conn: aiosqlite.Connection, table: str) -> list[str]:
    """The primary-key columns of ``table``, in key order (a table without one cannot be journaled)."""
    if table in _PRIMARY_KEYS:
        return _PRIMARY_KEYS[table]
    info = await conn.execute_fetchall(f'PRAGMA table_info("{table}")')
    columns = [str(row[1]) for row in sorted((r for r in info if r[5]), key=lambda r: r[5])]
    if not columns:
        raise ValueError(f"{table} has no primary key, so its rows cannot be journaled")
    _PRIMARY_KEYS[table] = columns
    return columns
