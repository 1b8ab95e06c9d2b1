"""How a bulk load (``kith graph import``) reaches the save: its rows go in while later lines are still read.

An import is two kinds of work: Python reading and applying each line (``BulkLoader``), and SQLite storing
the rows. Done one after the other, a 100k-version import spent about as long in each. On a save with no
played turns (nothing to journal) ``LoadStream`` overlaps them: every ``SEND_EVERY`` versions the rows
written since the last batch go to the connection's thread as one ``INSERT ... SELECT`` over a JSON array.
That is a single SQLite call which runs without Python's lock, so it proceeds on another core while this
thread reads on. (``executemany`` would not: it takes the lock back for every row, and the reading thread
holds it for milliseconds at a time.) A version a later line closes after it was sent is closed by the
next batch; a knower row written again is upserted again. Only the nodes wait for the end.

The save's own checks (foreign keys, CHECKs) are off for the transaction, since a node is written after
the versions that name it; every row is checked here before the commit instead (``rule_broken``), and a
row that breaks a rule rolls everything back with SQLite's own words for it.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Collection, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any, get_args

import aiosqlite
import orjson

from game.graph.bulk import BulkLoad
from game.graph.knowing_terms import How
from game.graph.models import NODE_TYPES
from game.graph.version_rows import ID, INVALID_AT, KnowingRow
from game.store import graph_repo

if TYPE_CHECKING:
    pass

SEND_EVERY = 2048
"""New versions per batch sent while an import is read: enough that each call's fixed cost is small,
few enough that the last batch, which nothing overlaps, is short."""

REINDEX_FROM = 1.0
"""A load of at least this many times the versions already stored builds the secondary indexes again
after its rows instead of keeping them up row by row."""
SWITCH_INTERVAL = 0.0002
"""Python's thread switch interval while a load is sent (``sys.setswitchinterval``; 0.005 by default)."""

_HOWS = frozenset(get_args(How))

Phase = Callable[[str], None]
"""Told the name of each step of a load's end as it begins (a progress display's hook)."""

# Each batch is one JSON array of rows; ``json_each`` reads it inside SQLite. Every row is an upsert: a
# version the save already had is rewritten whole, and a knower row written twice ends as the later one.
_EACH = "SELECT {columns} FROM json_each(?) WHERE true"  # (``WHERE``: so ON CONFLICT is not read as a join)
PUT_EDGES = (f"INSERT INTO edges ({graph_repo.EDGE_COLUMNS}) "
             + _EACH.format(columns=", ".join(f"value ->> {n}" for n in range(9)))
             + graph_repo.UPSERT_EDGE[graph_repo.UPSERT_EDGE.index(" ON CONFLICT"):])
PUT_KNOWINGS = (f"INSERT INTO knowings ({graph_repo.KNOWING_COLUMNS}) "
                + _EACH.format(columns=", ".join(f"value ->> {n}" for n in range(6)))
                + graph_repo.UPSERT_KNOWING[graph_repo.UPSERT_KNOWING.index(" ON CONFLICT"):])
# Most knower rows are a version's own ends, authored: only the version, the knower and the turn travel.
PUT_AUTHORED = PUT_KNOWINGS.replace("value ->> 2, value ->> 3, value ->> 4, value ->> 5",
                                    "'authored', NULL, 1.0, value ->> 2")
PLAIN_PUT_AUTHORED = graph_repo.UPSERT_KNOWING.replace("?, ?, ?, ?, ?, ?", "?, ?, 'authored', NULL, 1.0, ?")
# Only ``invalid_at``: SQLite updates every index over a column the SET names, changed or not. A version
# not yet sent matches nothing here, and goes out closed with the next batch.
CLOSE_EDGES = "UPDATE edges SET invalid_at = sent.value ->> 1 FROM json_each(?) AS sent WHERE edges.id = sent.value ->> 0"
PLAIN_CLOSE_EDGES = "UPDATE edges SET invalid_at = ?2 WHERE id = ?1"
# JSON carries every value the rows can hold as Python wrote it (floats included: both sides print and
# read the shortest exact form), except a NUL inside a text, where SQLite's JSON reader ends the text.
_NUL = "\\u0000"


class LoadStream:
    """Sends a bulk load's rows to the save while the load is still being made, then finishes it.

    ``send`` whenever ``due``; ``finish`` once after the last line, inside the transaction that began
    before the first; ``settle`` on every way out, so no statement is still queued when the transaction
    ends. Only for a save with no played turns, where a load is not journaled.
    """

    def __init__(self, conn: aiosqlite.Connection, load: BulkLoad, stored_node_ids: Collection[str],
                 phase: Phase | None = None) -> None:
        self._conn = conn
        self._phase = phase
        self._load = load
        self._stored_node_ids = stored_node_ids
        self._pending: list[asyncio.Future[Any]] = []
        # How far into each of the load's growing records the batches sent so far reach.
        self._edges_sent = 0
        self._closes_sent = 0
        self._knowings_sent = 0
        self._indexes: list[tuple[str, str]] = []  # dropped while rows go in, built again by ``finish``

    async def drop_indexes(self) -> None:
        """Drop the secondary indexes of ``edges`` and ``knowings`` until ``finish``: one sort per index
        after the rows is far cheaper than 100k scattered inserts into each (for a load large against
        what the save holds)."""
        self._indexes = await graph_repo.secondary_indexes(self._conn, ("edges", "knowings"))
        for name, _sql in self._indexes:
            await self._conn.execute(f'DROP INDEX "{name}"')

    def due(self) -> bool:
        return len(self._load.edges) - self._edges_sent >= SEND_EVERY

    async def send(self) -> None:
        """Queue the rows written since the last batch: closes of versions, then versions, then knower rows."""
        load = self._load
        closes = [(row[ID], row[INVALID_AT]) for row in islice(load.closed, self._closes_sent, None)]
        self._closes_sent = len(load.closed)
        edges = list(islice(load.edges.values(), self._edges_sent, None))  # each as it stands now
        self._edges_sent = len(load.edges)
        latest: dict[tuple[str, str], KnowingRow] = {}  # a row written twice goes once, as it was last written
        for rows in islice(load.written_knowings, self._knowings_sent, None):
            latest.update(rows)
        self._knowings_sent = len(load.written_knowings)
        authored = [(row[0], row[1], row[5]) for row in latest.values()
                    if row[2] == "authored" and row[3] is None and row[4] == 1.0]
        knowings = [] if len(authored) == len(latest) else [
            row for row in latest.values() if not (row[2] == "authored" and row[3] is None and row[4] == 1.0)]
        await self._queue(CLOSE_EDGES, PLAIN_CLOSE_EDGES, closes)
        await self._queue(PUT_EDGES, graph_repo.UPSERT_EDGE, edges)
        await self._queue(PUT_AUTHORED, PLAIN_PUT_AUTHORED, authored)
        await self._queue(PUT_KNOWINGS, graph_repo.UPSERT_KNOWING, knowings)
        await asyncio.sleep(0)  # each queued call reaches the connection's thread before reading goes on

    async def _queue(self, sql: str, plain_sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        try:
            text = orjson.dumps(rows).decode()
        except orjson.JSONEncodeError:
            text = _NUL
        if _NUL not in text:
            self._pending.append(asyncio.ensure_future(self._conn.execute(sql, (text,))))
            return
        # Rare: written row by row, and waited for here. Run beside the reading, ``executemany`` would
        # take turns with it for Python's lock at every row.
        self._pending.append(asyncio.ensure_future(self._conn.executemany(plain_sql, [tuple(r) for r in rows])))
        await self.settle()

    def _tell(self, step: str) -> None:
        if self._phase is not None:
            self._phase(step)

    async def settle(self) -> None:
        """Wait for every queued call; the first failure is raised (after all of them are done)."""
        pending, self._pending = self._pending, []
        results = await asyncio.gather(*pending, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def finish(self) -> None:
        """Send the last batch, write the nodes, build the indexes again and check every row."""
        await self.send()
        load = self._load
        conn = self._conn
        await graph_repo.put_nodes(conn, [n for n in load.nodes.values() if n.id not in load.created_nodes])
        await graph_repo.insert_nodes(conn, [n for n in load.nodes.values() if n.id in load.created_nodes])
        self._pending += [asyncio.ensure_future(conn.execute(sql)) for _name, sql in self._indexes]
        # The check runs here while the indexes are built on the connection's thread, and is the shorter.
        self._tell("checking")
        broken = rule_broken(load, self._stored_node_ids)
        if self._indexes:
            self._tell("building indexes")
        await self.settle()
        if broken:
            raise sqlite3.IntegrityError(broken)


def rule_broken(load: BulkLoad, stored_node_ids: Collection[str]) -> str | None:
    """The first rule of the save's tables a load's row breaks, in SQLite's words, or None.

    The same rules the tables declare (every version's ends are nodes; a node's type, a knower row's
    ``how`` and confidence in range), checked in one pass over the load instead of row by row.
    """
    for node in load.nodes.values():
        if node.type not in NODE_TYPES:
            return f"CHECK constraint failed: node {node.id} has type {node.type!r}"
    for row in load.edges.values():
        for end in (row[1], row[2]):
            if end not in load.nodes and end not in stored_node_ids:
                return f"FOREIGN KEY constraint failed: version {row[ID]} names {end}, which is no node"
    for knowing in load.knowings.values():
        if knowing[2] not in _HOWS or not 0.0 <= knowing[4] <= 1.0:
            return f"CHECK constraint failed: knower row {knowing[0]}|{knowing[1]}"
    return None
