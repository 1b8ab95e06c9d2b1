"""The graph's tables read, written once: every read of nodes, versions and knower rows, through their indexes.

``GraphTables`` holds each query once. What differs between its users is only how a statement runs and
what a row becomes, so those two are all a user gives:

- **how it runs**: ``_rows``. ``SyncTables`` runs it on a plain ``sqlite3`` connection and never waits,
  so its reads work in an event loop (awaited) and outside one (``finish``); ``game.store.graph_repo``'s
  ``SqlGraph`` runs it on the save's ``aiosqlite`` connection, inside the writer's transaction when there
  is one (a merge reads what the turn just wrote).
- **what a row becomes**: a ``Decode``. The graph's models (``graph_repo.MODELS``) for the game and most
  commands; plain records (``game.store.graph_view``) for the quick commands, which must not load pydantic.

Readers built on it: ``SqlGraph`` (one-shot commands, reads inside a transaction), ``SqlGraphSource``
(where a session's lazily filled ``GraphIndex`` reads what it has not loaded: the index is the overlay
of what a turn writes, see ``game.graph.index``) and ``GraphView`` (``kith graph dump`` and ``retrieve``).
This module imports neither pydantic nor aiosqlite: the quick commands load it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from game.store.damage import READ_ERRORS, damaged, reads

if TYPE_CHECKING:
    import sqlite3

    from game.graph.names import NameTrie

NODE_COLUMNS = "id, name, type, aliases, labels, summary, first_seen_turn, last_seen_turn, attributes"
EDGE_COLUMNS = "id, source, target, relation, strength, fact, valid_at, invalid_at, evidence"
KNOWING_COLUMNS = "edge_id, knower, how, source, confidence, since_turn"
_NODE_COLUMNS_OF_N = ", ".join("n." + c.strip() for c in NODE_COLUMNS.split(","))
CHUNK = 400  # well under SQLite's bound-parameter limit
LONGEST_NAME = 100
"""``game.graph.models.MAX_NAME_CHARS`` (a test holds them equal), which bounds the mention candidates;
not imported, since that module loads pydantic."""

N = TypeVar("N")
E = TypeVar("E")
K = TypeVar("K")
T = TypeVar("T")


class Decode(Generic[N, E, K]):
    """What a row of ``nodes``, ``edges`` and ``knowings`` becomes (the columns as listed above)."""

    __slots__ = ("edge", "knowing", "node")

    def __init__(self, node: Callable[[Sequence[Any]], N], edge: Callable[[Sequence[Any]], E],
                 knowing: Callable[[Sequence[Any]], K]) -> None:
        self.node = node
        self.edge = edge
        self.knowing = knowing


def chunks(values: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(values), CHUNK):
        yield values[start:start + CHUNK]


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def finish(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that awaits only ``SyncTables``' reads (which never wait) to its result."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("a graph read waited: it must run in an event loop instead")


class GraphTables(Generic[N, E, K]):
    """Every read of the graph's tables; ``GraphReader``'s among them. Open-edge reads name the partial
    indexes that hold only open versions, so a node with a long history costs no more than its current
    relations. Damage met reading or decoding a row becomes one ``SaveError`` naming the save."""

    def __init__(self, decode: Decode[N, E, K], name: str) -> None:
        self.decode = decode
        self.name = name  # names the save in the message a damaged row gives

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Run one statement and return its rows."""
        raise NotImplementedError

    async def _nodes(self, sql: str, params: Sequence[Any] = ()) -> list[N]:
        return [self.decode.node(row) for row in await self._rows(sql, params)]

    async def _edges(self, sql: str, params: Sequence[Any] = ()) -> list[E]:
        return [self.decode.edge(row) for row in await self._rows(sql, params)]

    async def _knowings(self, sql: str, params: Sequence[Any] = ()) -> list[K]:
        return [self.decode.knowing(row) for row in await self._rows(sql, params)]

    # ------------------------------------------------------------------------------------ GraphReader

    @reads
    async def nodes_named(self, normalized_names: Iterable[str]) -> dict[str, list[N]]:
        """Nodes whose normalized name or alias equals each given form, by ID (absent forms left out)."""
        found: dict[str, list[N]] = {}
        for chunk in chunks(sorted(set(normalized_names))):
            rows = await self._rows(f"SELECT nn.norm, {_NODE_COLUMNS_OF_N} FROM node_names nn JOIN nodes n "
                                    f"ON n.id = nn.node_id WHERE nn.norm IN ({_marks(chunk)}) ORDER BY n.id", chunk)
            for row in rows:
                found.setdefault(row[0], []).append(self.decode.node(tuple(row)[1:]))
        return found

    @reads
    async def get_nodes(self, node_ids: Iterable[str]) -> dict[str, N]:
        found: dict[str, N] = {}
        for chunk in chunks(sorted(set(node_ids))):
            for row in await self._rows(f"SELECT {NODE_COLUMNS} FROM nodes WHERE id IN ({_marks(chunk)})", chunk):
                found[row[0]] = self.decode.node(row)
        return found

    @reads
    async def node_id_taken(self, node_id: str) -> bool:
        # A merged node's ID stays taken: the merge log names it, so it must never mean someone else.
        return bool(await self._rows(
            "SELECT 1 FROM nodes WHERE id = ?1 UNION ALL SELECT 1 FROM merges WHERE merged_id = ?1 LIMIT 1",
            (node_id,)))

    @reads
    async def edge_id_taken(self, edge_id: str) -> bool:
        return bool(await self._rows("SELECT 1 FROM edges WHERE id = ?", (edge_id,)))

    @reads
    async def open_edges_of(self, node_id: str) -> list[E]:
        return await self._edges(
            f"SELECT {EDGE_COLUMNS} FROM edges INDEXED BY edges_open_out WHERE source = ? AND invalid_at IS NULL "
            f"UNION ALL SELECT {EDGE_COLUMNS} FROM edges INDEXED BY edges_open_in "
            "WHERE target = ? AND source != ? AND invalid_at IS NULL",
            (node_id, node_id, node_id))

    @reads
    async def open_edges_between(self, source: str, target: str, relation: str) -> list[E]:
        return await self._edges(
            f"SELECT {EDGE_COLUMNS} FROM edges WHERE source = ? AND relation = ? AND target = ? "
            "AND invalid_at IS NULL ORDER BY seq", (source, relation, target))

    @reads
    async def open_degree(self, node_ids: Iterable[str]) -> dict[str, int]:
        ids = sorted(set(node_ids))
        degrees = dict.fromkeys(ids, 0)
        for chunk in chunks(ids):
            marks = _marks(chunk)
            rows = await self._rows(
                f"SELECT source, count(*) FROM edges INDEXED BY edges_open_out WHERE source IN ({marks}) "
                "AND invalid_at IS NULL GROUP BY source UNION ALL SELECT target, count(*) FROM edges "
                f"INDEXED BY edges_open_in WHERE target IN ({marks}) "
                "AND source != target AND invalid_at IS NULL GROUP BY target",
                (*chunk, *chunk))
            for node_id, count in rows:
                degrees[node_id] += int(count)
        return degrees

    @reads
    async def longest_name(self) -> int:
        value = (await self._rows("SELECT max(length(norm)) FROM node_names"))[0][0]
        return min(int(value or 0), LONGEST_NAME)

    @reads
    async def name_trie(self) -> NameTrie:
        from game.graph.names import NameTrie  # only a long message needs it: the quick command stays quick

        rows = await self._rows("SELECT DISTINCT norm FROM node_names WHERE length(norm) <= ?", (LONGEST_NAME,))
        return NameTrie(str(row[0]) for row in rows)

    @reads
    async def knowings_of(self, edge_ids: Iterable[str]) -> dict[str, dict[str, K]]:
        """The knower rows of each version, by knower (versions nobody knows are left out)."""
        found: dict[str, dict[str, K]] = {}
        for chunk in chunks(sorted(set(edge_ids))):
            for row in await self._rows(f"SELECT {KNOWING_COLUMNS} FROM knowings WHERE edge_id IN ({_marks(chunk)}) "
                                        "ORDER BY edge_id, knower", chunk):
                found.setdefault(row[0], {})[row[1]] = self.decode.knowing(row)
        return found

    # ------------------------------------------------------------------------------------ the rest

    @reads
    async def knowings_by(self, knower: str) -> list[K]:
        """Every row of one knower (through the ``knower`` index), oldest learning first."""
        return await self._knowings(
            f"SELECT {KNOWING_COLUMNS} FROM knowings WHERE knower = ? ORDER BY since_turn, edge_id", (knower,))

    @reads
    async def known_rows(self, knower: str) -> list[K]:
        """Every knower row of every version ``knower`` has a row for (theirs and everyone else's)."""
        return await self._knowings(
            f"SELECT {KNOWING_COLUMNS} FROM knowings WHERE edge_id IN "
            "(SELECT edge_id FROM knowings WHERE knower = ?) ORDER BY edge_id, knower", (knower,))

    @reads
    async def all_knowings(self) -> list[K]:
        return await self._knowings(f"SELECT {KNOWING_COLUMNS} FROM knowings ORDER BY edge_id, knower")

    @reads
    async def edges_with_ids(self, edge_ids: Sequence[str]) -> dict[str, E]:
        """The stored versions among ``edge_ids``, open or not (absent IDs are left out)."""
        found: dict[str, E] = {}
        for chunk in chunks(edge_ids):
            for row in await self._rows(f"SELECT {EDGE_COLUMNS} FROM edges WHERE id IN ({_marks(chunk)})", chunk):
                found[row[0]] = self.decode.edge(row)
        return found

    async def edges_by_ids(self, edge_ids: Sequence[str]) -> list[E]:
        """The stored versions among ``edge_ids``, in the order given."""
        found = await self.edges_with_ids(edge_ids)
        return [found[i] for i in edge_ids if i in found]

    @reads
    async def open_edges_touching(self, node_ids: Sequence[str]) -> list[E]:
        """Every open version with one of ``node_ids`` at either end, each once."""
        found: dict[str, E] = {}
        for chunk in chunks(sorted(set(node_ids))):
            marks = _marks(chunk)
            for row in await self._rows(
                    f"SELECT {EDGE_COLUMNS} FROM edges INDEXED BY edges_open_out WHERE source IN ({marks}) "
                    f"AND invalid_at IS NULL UNION ALL SELECT {EDGE_COLUMNS} FROM edges INDEXED BY edges_open_in "
                    f"WHERE target IN ({marks}) AND invalid_at IS NULL", (*chunk, *chunk)):
                if row[0] not in found:
                    found[row[0]] = self.decode.edge(row)
        return list(found.values())

    @reads
    async def open_edges_and(self, edge_ids: Sequence[str]) -> list[E]:
        """Every open version and the versions among ``edge_ids`` (open or not), in the order written."""
        return await self._edges(f"SELECT {EDGE_COLUMNS} FROM edges WHERE invalid_at IS NULL "
                                 "OR id IN (SELECT value FROM json_each(?)) ORDER BY seq",
                                 (json.dumps(sorted(set(edge_ids))),))

    @reads
    async def player_nodes(self) -> list[N]:
        """The nodes marked as the player character (``attributes.player``), oldest first."""
        return await self._nodes(f"SELECT {NODE_COLUMNS} FROM nodes WHERE json_extract(attributes, '$.player') = 1 "
                                 "ORDER BY first_seen_turn, id")

    @reads
    async def all_nodes(self) -> list[N]:
        return await self._nodes(f"SELECT {NODE_COLUMNS} FROM nodes ORDER BY first_seen_turn, id")

    @reads
    async def all_edges(self, *, open_only: bool = False) -> list[E]:
        """Every version (or every open one) in the order written."""
        where = "WHERE invalid_at IS NULL" if open_only else ""
        return await self._edges(f"SELECT {EDGE_COLUMNS} FROM edges {where} ORDER BY seq")

    @reads
    async def edges_between(self, a: str, b: str) -> list[E]:
        """Every version between two nodes, either direction, oldest first."""
        return await self._edges(
            f"SELECT {EDGE_COLUMNS}, seq FROM edges WHERE source = ?1 AND target = ?2 "
            f"UNION ALL SELECT {EDGE_COLUMNS}, seq FROM edges WHERE source = ?2 AND target = ?1 AND ?1 != ?2 "
            "ORDER BY 7, 10", (a, b))

    @reads
    async def edges_touching(self, node_id: str) -> list[E]:
        """Every version with ``node_id`` at either end, oldest first."""
        return await self._edges(
            f"SELECT {EDGE_COLUMNS}, seq FROM edges WHERE source = ?1 "
            f"UNION ALL SELECT {EDGE_COLUMNS}, seq FROM edges WHERE target = ?1 AND source != ?1 ORDER BY 10",
            (node_id,))


class SyncTables(GraphTables[N, E, K]):
    """The reads over a plain ``sqlite3`` connection (the save's read-only one): coroutines that never
    wait. Between statements it holds no read transaction, so each read sees what was last committed."""

    def __init__(self, conn: sqlite3.Connection, decode: Decode[N, E, K], name: str) -> None:
        super().__init__(decode, name)
        self.conn = conn

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            return self.conn.execute(sql, tuple(params)).fetchall()
        except READ_ERRORS as error:
            raise damaged(self.name, error) from error
