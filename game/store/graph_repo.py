"""The graph's tables: rows as models, the readers over the save (``SqlGraph``, ``SqlGraphSource``) and
writing buffered rows.

Both readers are ``game.store.graph_sql``'s one set of reads (every read through an index: names by
normalized form, open edges by either end), so a one-shot retrieval touches only the neighbourhood it
walks, whatever the size of the save.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import aiosqlite

from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.names import normalize_name
from game.graph.trusted import trusted
from game.store import decoded
from game.store.graph_sql import EDGE_COLUMNS as EDGE_COLUMNS
from game.store.graph_sql import KNOWING_COLUMNS as KNOWING_COLUMNS
from game.store.graph_sql import NODE_COLUMNS as NODE_COLUMNS
from game.store.graph_sql import Decode, GraphTables, SyncTables, finish
from game.store.graph_sql import chunks as _chunks

# Rows were validated on the way in and the tables re-check them (CHECK, NOT NULL, foreign keys), so
# reading them back skips pydantic's validation: opening a save of 100k versions is dominated by it.


def node_from_row(row: sqlite3.Row | Sequence[Any]) -> Node:
    aliases, labels, attributes = decoded.node_row(row)  # a value of another type is damage, named
    return trusted(Node, {
        "id": row[0], "name": row[1], "aliases": aliases, "type": row[2],
        "labels": labels, "summary": row[5], "first_seen_turn": row[6], "last_seen_turn": row[7],
        "attributes": attributes,
    })


def edge_from_row(row: sqlite3.Row | Sequence[Any]) -> Edge:
    return trusted(Edge, {
        "id": row[0], "source": row[1], "target": row[2], "relation": row[3], "strength": float(row[4]),
        "fact": row[5], "valid_at": row[6], "invalid_at": row[7], "evidence_turn_ids": decoded.edge_row(row),
    })


def knowing_from_row(row: sqlite3.Row | Sequence[Any]) -> Knowing:
    decoded.knowing_row(row)
    return trusted(Knowing, {
        "edge_id": row[0], "knower": row[1], "how": row[2], "source": row[3], "confidence": float(row[4]),
        "since_turn": row[5],
    })


def node_params(node: Node) -> tuple[Any, ...]:
    # Most nodes have no aliases, labels or attributes: their empty JSON is written out, not encoded (three
    # encodings a node were most of the time a 100k-version ``kith graph import`` spent writing its nodes).
    aliases, labels, attributes = node.aliases, node.labels, node.attributes
    return (
        node.id, node.name, node.type, json.dumps(aliases, ensure_ascii=False) if aliases else "[]",
        json.dumps(labels, ensure_ascii=False) if labels else "[]", node.summary, node.first_seen_turn,
        node.last_seen_turn, json.dumps(attributes, ensure_ascii=False, sort_keys=True) if attributes else "{}",
    )


def edge_params(edge: Edge) -> tuple[Any, ...]:
    return (
        edge.id, edge.source, edge.target, edge.relation, edge.strength, edge.fact, edge.valid_at,
        edge.invalid_at, json.dumps(edge.evidence_turn_ids),
    )


def name_rows(node: Node) -> list[tuple[str, str]]:
    return sorted({(normalize_name(name), node.id) for name in node.names})


UPSERT_NODE = f"""
    INSERT INTO nodes ({NODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(id) DO UPDATE SET name = excluded.name, type = excluded.type, aliases = excluded.aliases,
        labels = excluded.labels, summary = excluded.summary, first_seen_turn = excluded.first_seen_turn,
        last_seen_turn = excluded.last_seen_turn, attributes = excluded.attributes
"""
UPSERT_EDGE = f"""
    INSERT INTO edges ({EDGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(id) DO UPDATE SET source = excluded.source, target = excluded.target,
        relation = excluded.relation, strength = excluded.strength, fact = excluded.fact,
        valid_at = excluded.valid_at, invalid_at = excluded.invalid_at, evidence = excluded.evidence
"""


async def put_nodes(conn: aiosqlite.Connection, nodes: Iterable[Node], stored: Mapping[str, Node] | None = None
                    ) -> None:
    """Insert or update node rows and re-index their names.

    ``stored``: the rows as they are now, when the caller has read them (a turn's journal does): a node
    whose names they already have keeps its name rows. Nearly every turn rewrites a node only to move its
    ``last_seen_turn``, and its name rows and their two indexes were three more pages for the disk.
    """
    nodes = list(nodes)
    if not nodes:
        return
    await conn.executemany(UPSERT_NODE, [node_params(n) for n in nodes])
    renamed = [n for n in nodes if stored is None or n.id not in stored or stored[n.id].names != n.names]
    if not renamed:
        return
    await conn.executemany("DELETE FROM node_names WHERE node_id = ?", [(n.id,) for n in renamed])
    await conn.executemany(
        "INSERT OR IGNORE INTO node_names (norm, node_id) VALUES (?, ?)",
        [row for n in renamed for row in name_rows(n)],
    )


async def insert_nodes(conn: aiosqlite.Connection, nodes: Iterable[Node]) -> None:
    """Insert nodes known to be new (a bulk load's) with their names: no old names to clear first."""
    nodes = list(nodes)
    await conn.executemany(f"INSERT INTO nodes ({NODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [node_params(n) for n in nodes])
    await conn.executemany("INSERT OR IGNORE INTO node_names (norm, node_id) VALUES (?, ?)",
                           [row for n in nodes for row in name_rows(n)])


async def put_edges(conn: aiosqlite.Connection, edges: Iterable[Edge]) -> None:
    rows = [edge_params(e) for e in edges]
    if rows:  # most turns change no version, and even an empty statement is a trip to the database thread
        await conn.executemany(UPSERT_EDGE, rows)


UPSERT_KNOWING = f"""
    INSERT INTO knowings ({KNOWING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT(edge_id, knower) DO UPDATE SET how = excluded.how, source = excluded.source,
        confidence = excluded.confidence, since_turn = excluded.since_turn
"""


async def put_knowings(conn: aiosqlite.Connection, knowings: Iterable[Knowing]) -> None:
    rows = [(k.edge_id, k.knower, k.how, k.source, k.confidence, k.since_turn) for k in knowings]
    if rows:
        await conn.executemany(UPSERT_KNOWING, rows)


INSERT_EDGE = f"INSERT INTO edges ({EDGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
INSERT_KNOWING = f"INSERT INTO knowings ({KNOWING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"


async def secondary_indexes(conn: aiosqlite.Connection, tables: Sequence[str]) -> list[tuple[str, str]]:
    """The named indexes of ``tables`` as ``(name, CREATE statement)`` (those of keys have no statement)."""
    marks = ",".join("?" * len(tables))
    rows = await conn.execute_fetchall(
        f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ({marks}) "
        "ORDER BY name", tuple(tables))
    return [(str(row[0]), str(row[1])) for row in rows]


async def delete_knowing(conn: aiosqlite.Connection, key: str) -> None:
    """Forget one knower row by its journal key ``"<edge_id>|<knower>"``."""
    edge_id, _, knower = key.partition("|")
    await conn.execute("DELETE FROM knowings WHERE edge_id = ? AND knower = ?", (edge_id, knower))


def knowing_key(edge_id: str, knower: str) -> str:
    """How a knower row is named in the journal (edge IDs are slugs, so ``|`` never occurs in them)."""
    return f"{edge_id}|{knower}"


async def knowings_by_key(conn: aiosqlite.Connection, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Knowing]:
    """The stored rows among ``(edge_id, knower)`` keys (absent ones are left out)."""
    found: dict[tuple[str, str], Knowing] = {}
    by_edge: dict[str, set[str]] = {}
    for edge_id, knower in keys:
        by_edge.setdefault(edge_id, set()).add(knower)
    for edge_id, rows in (await _knowings_of(conn, list(by_edge))).items():
        for knower, row in rows.items():
            if knower in by_edge[edge_id]:
                found[(edge_id, knower)] = row
    return found


async def _knowings_of(conn: aiosqlite.Connection, edge_ids: Sequence[str]) -> dict[str, dict[str, Knowing]]:
    found: dict[str, dict[str, Knowing]] = {}
    for chunk in _chunks(sorted(set(edge_ids))):
        marks = ",".join("?" * len(chunk))
        rows = await conn.execute_fetchall(
            f"SELECT {KNOWING_COLUMNS} FROM knowings WHERE edge_id IN ({marks})", tuple(chunk)
        )
        for row in rows:
            knowing = knowing_from_row(row)
            found.setdefault(knowing.edge_id, {})[knowing.knower] = knowing
    return found


async def delete_node(conn: aiosqlite.Connection, node_id: str) -> None:
    await conn.execute("DELETE FROM layout WHERE node_id = ?", (node_id,))
    await conn.execute("DELETE FROM nodes WHERE id = ?", (node_id,))


async def edges_by_id(conn: aiosqlite.Connection, edge_ids: Sequence[str]) -> dict[str, Edge]:
    """The stored versions among ``edge_ids`` (absent IDs are left out)."""
    found: dict[str, Edge] = {}
    for chunk in _chunks(edge_ids):
        marks = ",".join("?" * len(chunk))
        for row in await conn.execute_fetchall(f"SELECT {EDGE_COLUMNS} FROM edges WHERE id IN ({marks})", tuple(chunk)):
            edge = edge_from_row(row)
            found[edge.id] = edge
    return found


MODELS: Decode[Node, Edge, Knowing] = Decode(node_from_row, edge_from_row, knowing_from_row)
"""Rows as the graph's models."""


class SqlGraph(GraphTables[Node, Edge, Knowing]):
    """The graph's reads (``game.store.graph_sql``) over the save's own connection, as models.

    One-shot commands read through it without loading the graph, and a write reads through it inside its
    transaction (a merge sees what the turn wrote before it)."""

    def __init__(self, conn: aiosqlite.Connection, name: str = "the save") -> None:
        super().__init__(MODELS, name)
        self.conn = conn

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(await self.conn.execute_fetchall(sql, tuple(params)))


class SqlGraphSource:
    """``GraphSource`` over a save: what a lazily filled ``GraphIndex`` reads as it is asked for.

    The same reads as ``SqlGraph`` (``game.store.graph_sql``), run synchronously on the save's read-only
    connection: the index answers gossip, awareness and the views without awaiting, and each read here is
    one indexed lookup (a node's open relations, a version's knowers, a knower's versions). That
    connection is never the writer's, and between statements it holds no read transaction, so every
    read sees what was last committed (WAL lets it read while a turn writes).
    """

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.conn = conn
        self.name = name
        self.tables = SyncTables(conn, MODELS, name)

    def open_edges_touching(self, node_ids: Sequence[str]) -> list[Edge]:
        return finish(self.tables.open_edges_touching(node_ids))

    def all_open_edges(self) -> list[Edge]:
        return finish(self.tables.all_edges(open_only=True))

    def open_edges_and(self, edge_ids: Sequence[str]) -> list[Edge]:
        """Every open version and the versions among ``edge_ids`` (open or not), in the order written."""
        return finish(self.tables.open_edges_and(edge_ids))

    def edge(self, edge_id: str) -> Edge | None:
        return finish(self.tables.edges_with_ids([edge_id])).get(edge_id)

    def knowers_of(self, edge_ids: Sequence[str]) -> dict[str, dict[str, Knowing]]:
        return finish(self.tables.knowings_of(edge_ids))

    def known_rows(self, knower: str) -> list[Knowing]:
        return finish(self.tables.known_rows(knower))

    def all_knowings(self) -> list[Knowing]:
        return finish(self.tables.all_knowings())
