"""The graph's tables: row conversion, the SQL ``GraphReader``, and writing buffered rows.

``SqlGraph`` answers every read through an index (names by normalized form, open edges by either end),
so a one-shot retrieval touches only the neighbourhood it walks, whatever the size of the save.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import aiosqlite

from game.graph.knowledge import Knowing
from game.graph.models import MAX_NAME_CHARS, Edge, Node
from game.graph.names import NameTrie, normalize_name
from game.graph.trusted import trusted
from game.store import decoded
from game.store.damage import READ_ERRORS, damaged, reads

NODE_COLUMNS = "id, name, type, aliases, labels, summary, first_seen_turn, last_seen_turn, attributes"
EDGE_COLUMNS = "id, source, target, relation, strength, fact, valid_at, invalid_at, evidence"
KNOWING_COLUMNS = "edge_id, knower, how, source, confidence, since_turn"
_CHUNK = 400  # well under SQLite's bound-parameter limit


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


def _chunks(values: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start:start + _CHUNK]


async def edges_by_id(conn: aiosqlite.Connection, edge_ids: Sequence[str]) -> dict[str, Edge]:
    """The stored versions among ``edge_ids`` (absent IDs are left out)."""
    found: dict[str, Edge] = {}
    for chunk in _chunks(edge_ids):
        marks = ",".join("?" * len(chunk))
        for row in await conn.execute_fetchall(f"SELECT {EDGE_COLUMNS} FROM edges WHERE id IN ({marks})", tuple(chunk)):
            edge = edge_from_row(row)
            found[edge.id] = edge
    return found


class SqlGraph:
    """``GraphReader`` over a save's tables, for one-shot commands that must not load the whole graph.

    Open-edge reads name the partial indexes that hold only open versions, so a node with a long history
    costs no more than its current relations.
    """

    def __init__(self, conn: aiosqlite.Connection, name: str = "the save") -> None:
        self.conn = conn
        self.name = name  # names the save in the message a damaged row gives

    @reads
    async def nodes_named(self, normalized_names: Iterable[str]) -> dict[str, list[Node]]:
        keys = sorted(set(normalized_names))
        found: dict[str, list[Node]] = {}
        for chunk in _chunks(keys):
            marks = ",".join("?" * len(chunk))
            rows = await self.conn.execute_fetchall(
                f"SELECT nn.norm, {', '.join('n.' + c.strip() for c in NODE_COLUMNS.split(','))} "
                f"FROM node_names nn JOIN nodes n ON n.id = nn.node_id WHERE nn.norm IN ({marks}) "
                "ORDER BY n.id",
                tuple(chunk),
            )
            for row in rows:
                found.setdefault(row[0], []).append(node_from_row(tuple(row)[1:]))
        return found

    @reads
    async def get_nodes(self, node_ids: Iterable[str]) -> dict[str, Node]:
        ids = sorted(set(node_ids))
        found: dict[str, Node] = {}
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            rows = await self.conn.execute_fetchall(
                f"SELECT {NODE_COLUMNS} FROM nodes WHERE id IN ({marks})", tuple(chunk)
            )
            for row in rows:
                node = node_from_row(row)
                found[node.id] = node
        return found

    @reads
    async def node_id_taken(self, node_id: str) -> bool:
        # A merged node's ID stays taken: the merge log names it, so it must never mean someone else.
        rows = await self.conn.execute_fetchall(
            "SELECT 1 FROM nodes WHERE id = ?1 UNION ALL SELECT 1 FROM merges WHERE merged_id = ?1 LIMIT 1",
            (node_id,),
        )
        return bool(rows)

    @reads
    async def edge_id_taken(self, edge_id: str) -> bool:
        rows = await self.conn.execute_fetchall("SELECT 1 FROM edges WHERE id = ?", (edge_id,))
        return bool(rows)

    @reads
    async def open_edges_of(self, node_id: str) -> list[Edge]:
        rows = await self.conn.execute_fetchall(
            f"SELECT {EDGE_COLUMNS} FROM edges INDEXED BY edges_open_out WHERE source = ? AND invalid_at IS NULL "
            f"UNION ALL SELECT {EDGE_COLUMNS} FROM edges INDEXED BY edges_open_in "
            "WHERE target = ? AND source != ? AND invalid_at IS NULL",
            (node_id, node_id, node_id),
        )
        return [edge_from_row(row) for row in rows]

    @reads
    async def open_edges_between(self, source: str, target: str, relation: str) -> list[Edge]:
        rows = await self.conn.execute_fetchall(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE source = ? AND relation = ? AND target = ? "
            "AND invalid_at IS NULL ORDER BY seq",
            (source, relation, target),
        )
        return [edge_from_row(row) for row in rows]

    @reads
    async def open_degree(self, node_ids: Iterable[str]) -> dict[str, int]:
        ids = sorted(set(node_ids))
        degrees = dict.fromkeys(ids, 0)
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            rows = await self.conn.execute_fetchall(
                f"SELECT source, count(*) FROM edges INDEXED BY edges_open_out WHERE source IN ({marks}) "
                "AND invalid_at IS NULL GROUP BY source UNION ALL SELECT target, count(*) FROM edges "
                f"INDEXED BY edges_open_in WHERE target IN ({marks}) "
                "AND source != target AND invalid_at IS NULL GROUP BY target",
                (*chunk, *chunk),
            )
            for node_id, count in rows:
                degrees[node_id] += int(count)
        return degrees

    @reads
    async def longest_name(self) -> int:
        rows = await self.conn.execute_fetchall("SELECT max(length(norm)) FROM node_names")
        value = next(iter(rows))[0]
        return min(int(value or 0), MAX_NAME_CHARS)

    @reads
    async def name_trie(self) -> NameTrie:
        rows = await self.conn.execute_fetchall("SELECT DISTINCT norm FROM node_names WHERE length(norm) <= ?",
                                                (MAX_NAME_CHARS,))
        return NameTrie(str(row[0]) for row in rows)

    @reads
    async def knowings_of(self, edge_ids: Iterable[str]) -> dict[str, dict[str, Knowing]]:
        return await _knowings_of(self.conn, list(edge_ids))

    @reads
    async def knowings_by(self, knower: str) -> list[Knowing]:
        """Every row of one knower (through the ``knower`` index), oldest learning first."""
        rows = await self.conn.execute_fetchall(
            f"SELECT {KNOWING_COLUMNS} FROM knowings WHERE knower = ? ORDER BY since_turn, edge_id", (knower,)
        )
        return [knowing_from_row(row) for row in rows]

    @reads
    async def edges_by_ids(self, edge_ids: Sequence[str]) -> list[Edge]:
        """The stored versions among ``edge_ids``, in insertion order."""
        found = await edges_by_id(self.conn, edge_ids)
        return [found[i] for i in edge_ids if i in found]

    @reads
    async def player_nodes(self) -> list[Node]:
        """The nodes marked as the player character (``attributes.player``), oldest first."""
        rows = await self.conn.execute_fetchall(
            f"SELECT {NODE_COLUMNS} FROM nodes WHERE json_extract(attributes, '$.player') = 1 "
            "ORDER BY first_seen_turn, id"
        )
        return [node_from_row(row) for row in rows]

    @reads
    async def all_knowings(self) -> list[Knowing]:
        rows = await self.conn.execute_fetchall(f"SELECT {KNOWING_COLUMNS} FROM knowings ORDER BY edge_id, knower")
        return [knowing_from_row(row) for row in rows]

    @reads
    async def all_nodes(self) -> list[Node]:
        rows = await self.conn.execute_fetchall(f"SELECT {NODE_COLUMNS} FROM nodes ORDER BY first_seen_turn, id")
        return [node_from_row(row) for row in rows]

    @reads
    async def all_edges(self, *, open_only: bool = False) -> list[Edge]:
        where = "WHERE invalid_at IS NULL" if open_only else ""
        rows = await self.conn.execute_fetchall(f"SELECT {EDGE_COLUMNS} FROM edges {where} ORDER BY seq")
        return [edge_from_row(row) for row in rows]

    @reads
    async def edges_between(self, a: str, b: str) -> list[Edge]:
        """Every version between two nodes, either direction, oldest first."""
        rows = await self.conn.execute_fetchall(
            f"SELECT {EDGE_COLUMNS}, seq FROM edges WHERE source = ?1 AND target = ?2 "
            f"UNION ALL SELECT {EDGE_COLUMNS}, seq FROM edges WHERE source = ?2 AND target = ?1 AND ?1 != ?2 "
            "ORDER BY 7, 10",
            (a, b),
        )
        return [edge_from_row(row) for row in rows]

    @reads
    async def edges_touching(self, node_id: str) -> list[Edge]:
        """Every version with ``node_id`` at either end, oldest first."""
        rows = await self.conn.execute_fetchall(
            f"SELECT {EDGE_COLUMNS}, seq FROM edges WHERE source = ?1 "
            f"UNION ALL SELECT {EDGE_COLUMNS}, seq FROM edges WHERE target = ?1 AND source != ?1 ORDER BY 10",
            (node_id,),
        )
        return [edge_from_row(row) for row in rows]


class SqlGraphSource:
    """``GraphSource`` over a save: what a lazily filled ``GraphIndex`` reads as it is asked for.

    Synchronous on purpose: the index answers gossip, awareness and the views without awaiting, and each
    read here is one indexed lookup (a node's open relations, a version's knowers, a knower's versions).
    It has its own read-only connection, so it never shares the writer's; between statements it holds
    no read transaction, so every read sees what was last committed (WAL lets it read while a turn
    writes). Damage met while reading becomes the same ``SaveError`` the async reads give.
    """

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.conn = conn
        self.name = name

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            return self.conn.execute(sql, tuple(params)).fetchall()
        except READ_ERRORS as error:
            raise damaged(self.name, error) from error

    def _decoded(self, rows: list[Any], decode: Any) -> list[Any]:
        try:
            return [decode(row) for row in rows]
        except READ_ERRORS as error:
            raise damaged(self.name, error) from error

    def open_edges_touching(self, node_ids: Sequence[str]) -> list[Edge]:
        found: dict[str, Edge] = {}
        for chunk in _chunks(sorted(set(node_ids))):
            marks = ",".join("?" * len(chunk))
            rows = self._rows(
                f"SELECT {EDGE_COLUMNS} FROM edges INDEXED BY edges_open_out WHERE source IN ({marks}) "
                f"AND invalid_at IS NULL UNION ALL SELECT {EDGE_COLUMNS} FROM edges INDEXED BY edges_open_in "
                f"WHERE target IN ({marks}) AND invalid_at IS NULL",
                (*chunk, *chunk),
            )
            for edge in self._decoded(rows, edge_from_row):
                found[edge.id] = edge
        return list(found.values())

    def all_open_edges(self) -> list[Edge]:
        rows = self._rows(f"SELECT {EDGE_COLUMNS} FROM edges WHERE invalid_at IS NULL ORDER BY seq")
        edges: list[Edge] = self._decoded(rows, edge_from_row)
        return edges

    def open_edges_and(self, edge_ids: Sequence[str]) -> list[Edge]:
        """Every open version and the versions among ``edge_ids`` (open or not), in the order written."""
        ids = json.dumps(sorted(set(edge_ids)))
        rows = self._rows(f"SELECT {EDGE_COLUMNS} FROM edges WHERE invalid_at IS NULL "
                          "OR id IN (SELECT value FROM json_each(?)) ORDER BY seq", (ids,))
        edges: list[Edge] = self._decoded(rows, edge_from_row)
        return edges

    def edge(self, edge_id: str) -> Edge | None:
        rows = self._rows(f"SELECT {EDGE_COLUMNS} FROM edges WHERE id = ?", (edge_id,))
        edges: list[Edge] = self._decoded(rows, edge_from_row)
        return edges[0] if edges else None

    def knowers_of(self, edge_ids: Sequence[str]) -> dict[str, dict[str, Knowing]]:
        found: dict[str, dict[str, Knowing]] = {}
        for chunk in _chunks(sorted(set(edge_ids))):
            marks = ",".join("?" * len(chunk))
            rows = self._rows(
                f"SELECT {KNOWING_COLUMNS} FROM knowings WHERE edge_id IN ({marks}) ORDER BY edge_id, knower", chunk)
            for knowing in self._decoded(rows, knowing_from_row):
                found.setdefault(knowing.edge_id, {})[knowing.knower] = knowing
        return found

    def known_rows(self, knower: str) -> list[Knowing]:
        rows = self._rows(
            f"SELECT {KNOWING_COLUMNS} FROM knowings WHERE edge_id IN "
            "(SELECT edge_id FROM knowings WHERE knower = ?) ORDER BY edge_id, knower", (knower,))
        knowings: list[Knowing] = self._decoded(rows, knowing_from_row)
        return knowings

    def all_knowings(self) -> list[Knowing]:
        rows = self._rows(f"SELECT {KNOWING_COLUMNS} FROM knowings ORDER BY edge_id, knower")
        knowings: list[Knowing] = self._decoded(rows, knowing_from_row)
        return knowings
