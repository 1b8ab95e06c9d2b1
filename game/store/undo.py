"""Undo of one turn: its journal put back as a few statements: one per table and kind, not one per entry.

A turn journals every row it changed (``game.store.journal``); replayed newest first, entry by entry, the
undo of a turn that wrote 100k rows (a ``kith graph import`` into a played save) was 100k trips to the
database thread, and an ordinary turn paid one per row too. Here the entries are folded first and each
group goes as one ``executemany``.

Why folding gives the same save: replayed newest first, the last write to a row is that of its OLDEST
entry (its state before the turn), and every write to a row replaces the whole row (an upsert, a delete,
or a delete and an insert), so only the oldest entry of each key decides the row. The rows written twice
keep what the one-by-one path kept too: an edge version is upserted, so it keeps its ``seq``; a node's
names are indexed again from its restored names.

The groups run in an order that keeps the foreign keys (edges name nodes; node names name nodes; no other
table has one) true after every statement:

1. forget what the turn created among exchanges, knower rows and feature rows, and every journaled
   feature row (its before-image goes back in step 6);
2. delete the versions the turn created (their indexes are whole again before any node is deleted: a
   node's delete finds the versions that name it through them);
3. put back the nodes the turn changed or removed (a merge's folded node), so versions can name them;
4. put back the versions the turn changed: each names nodes that existed before the turn;
5. delete the nodes the turn created: no version names them any more;
6. put back knower rows and feature rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import aiosqlite

from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.store import graph_repo
from game.store.bulk_write import REINDEX_FROM
from game.store.journal import ROW_KIND_PREFIX, decode_row


async def undo_turn(conn: aiosqlite.Connection, turn: int) -> None:
    """Put back every row ``turn`` changed and forget the turn (its row, scene, merges and entries)."""
    entries = await conn.execute_fetchall(
        "SELECT kind, key, before FROM journal WHERE turn = ? ORDER BY id DESC", (turn,)
    )
    await put_back(conn, list(entries))
    await conn.execute("DELETE FROM journal WHERE turn = ?", (turn,))
    await conn.execute("DELETE FROM merges WHERE turn = ?", (turn,))
    # Graph updates recovered at this turn for earlier turns are gone again: they are pending once more.
    await conn.execute("UPDATE turns SET extracted = 0, extraction = 'none', recovered_at = NULL WHERE recovered_at = ?",
                       (turn,))
    await conn.execute("DELETE FROM turns WHERE number = ?", (turn,))
    await conn.execute("DELETE FROM scenes WHERE turn = ?", (turn,))


JournalRow = Sequence[Any]
"""``(kind, key, before)`` as read from the journal, newest entry first."""


def fold(entries: Sequence[JournalRow]) -> list[tuple[str, str, str | None]]:
    """Each ``(kind, key)`` once, with its oldest entry's before-image, in the order the one-by-one replay
    wrote each row for the last time (by its oldest entry, newest first)."""
    oldest: dict[tuple[str, str], tuple[int, str | None]] = {}
    for position, (kind, key, before) in enumerate(entries):
        oldest[(str(kind), str(key))] = (position, before)  # later positions are older entries
    ordered = sorted(oldest.items(), key=lambda item: item[1][0])
    return [(kind, key, before) for (kind, key), (_, before) in ordered]


async def put_back(conn: aiosqlite.Connection, entries: Sequence[JournalRow]) -> None:
    """Restore every row a turn's journal ``entries`` (newest first) name, inside the caller's transaction."""
    gossip: list[tuple[int, str, str, str]] = []
    forgotten_knowings: list[tuple[str, str]] = []
    known: list[Knowing] = []
    created_edges: list[tuple[str]] = []
    edges: list[Edge] = []
    created_nodes: list[tuple[str]] = []
    nodes: list[Node] = []
    row_keys: dict[tuple[str, tuple[str, ...]], list[list[object]]] = {}
    row_images: dict[tuple[str, tuple[str, ...]], list[list[object]]] = {}
    for kind, key, before in fold(entries):
        if kind.startswith(ROW_KIND_PREFIX):
            table = kind.removeprefix(ROW_KIND_PREFIX)
            identity: dict[str, object] = json.loads(key)
            row_keys.setdefault((table, tuple(identity)), []).append(list(identity.values()))
            if before is not None:
                row = decode_row(before)
                row_images.setdefault((table, tuple(row)), []).append(list(row.values()))
        elif kind == "edge":
            if before is None:
                created_edges.append((key,))
            else:
                edges.append(Edge.model_validate(json.loads(before)))
        elif kind == "gossip":
            number, teller, listener, edge_id = key.split("|", 3)  # told_log.journal_key
            gossip.append((int(number), teller, listener, edge_id))
        elif kind == "knowing":
            if before is None:
                edge_id, _, knower = key.partition("|")  # graph_repo.knowing_key
                forgotten_knowings.append((edge_id, knower))
            else:
                known.append(Knowing.model_validate(json.loads(before)))
        elif kind == "node":
            if before is None:
                created_nodes.append((key,))
            else:
                nodes.append(Node.model_validate(json.loads(before)))
        # Any other kind ("merge", "awareness": journals of old saves) restores nothing, as it never did.

    await _many(conn, "DELETE FROM gossip_log WHERE turn = ? AND teller = ? AND listener = ? AND edge_id = ?", gossip)
    await _delete_many(conn, "knowings", "DELETE FROM knowings WHERE edge_id = ? AND knower = ?", forgotten_knowings)
    for (table, columns), keys in row_keys.items():
        where = " AND ".join(f'"{column}" = ?' for column in columns)
        await _many(conn, f'DELETE FROM "{table}" WHERE {where}', keys)
    await _delete_many(conn, "edges", "DELETE FROM edges WHERE id = ?", created_edges)
    await graph_repo.put_nodes(conn, nodes)
    await graph_repo.put_edges(conn, edges)
    await _count_upserts(conn, entries, len(edges))
    await _many(conn, "DELETE FROM layout WHERE node_id = ?", created_nodes)
    await _many(conn, "DELETE FROM nodes WHERE id = ?", created_nodes)
    await graph_repo.put_knowings(conn, known)
    for (table, columns), images in row_images.items():
        names = ", ".join(f'"{column}"' for column in columns)
        marks = ", ".join("?" for _ in columns)
        # Every journaled key of the table was deleted above, so an insert meets no row of its own key. OR
        # REPLACE only matters for two key texts naming one row (a number journaled once as text): the
        # images go newest first, so the oldest, the row before the turn, is the one left, as before.
        await _many(conn, f'INSERT OR REPLACE INTO "{table}" ({names}) VALUES ({marks})', images)


async def _count_upserts(conn: aiosqlite.Connection, entries: Sequence[JournalRow], upserted: int) -> None:
    """Move the counter of version ``seq`` numbers on as the entry-by-entry replay did.

    Each upsert of a version takes the next number of the ``AUTOINCREMENT`` counter, even when it only
    updates the row: SQLite picks the number before it meets the conflict. The replay upserted every
    before-image of a version; folded, a version changed twice is upserted once. The counter is only
    ever a bound for new numbers, but the save must be the replay's to the byte, so it is moved on by the
    upserts folded away (the next version made gets the ``seq`` it would have had).
    """
    images = sum(1 for kind, _, before in entries if kind == "edge" and before is not None)
    if images > upserted:
        await conn.execute("UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'edges'", (images - upserted,))


REINDEX_AT_LEAST = 1000
"""Fewer deleted rows than this keep the table's indexes up row by row: cheap, whatever the table holds."""


async def _delete_many(conn: aiosqlite.Connection, table: str, sql: str, rows: Sequence[Sequence[object]]) -> None:
    """Delete ``rows`` of ``table``; when they are most of it (the undo of an import), drop its secondary
    indexes first and build them again after. Deleted one by one, 100k versions cost a scattered update of
    each of six indexes per row, about eight times what sorting the rows left into them once costs
    (``bulk_write`` does the same for the load). The indexes are made again from their own statements, in
    the same transaction: rolled back, they were never dropped."""
    if len(rows) >= REINDEX_AT_LEAST:
        found = await conn.execute_fetchall(f'SELECT count(*) FROM "{table}"')
        left = int(next(iter(found))[0]) - len(rows)
        if len(rows) >= REINDEX_FROM * max(left, 1):
            indexes = await graph_repo.secondary_indexes(conn, (table,))
            for name, _ in indexes:
                await conn.execute(f'DROP INDEX "{name}"')
            await conn.executemany(sql, rows)
            for _, create in indexes:
                await conn.execute(create)
            return
    await _many(conn, sql, rows)


async def _many(conn: aiosqlite.Connection, sql: str, rows: Sequence[Sequence[object]]) -> None:
    if rows:  # most turns leave most groups empty, and even an empty statement is a trip to the thread
        await conn.executemany(sql, rows)
