"""``SaveDatabase``: one open save, one connection, every write in a transaction.

Graph writes are journaled with before-images per turn (``journal``), so ``undo_last_turn`` restores the
exact state before the last turn (graph, scene and history) as many times as there are turns. Bulk loads
(``commit_many``, the world's turn 0) skip the journal: they are not undoable turns. The first write
takes the save's lock (``lock``) and keeps it until close, so two processes never write one save.

It is the core only: the connection and its lock, transactions, meta, the graph's readers, a turn's
writes (and ``commit_graph``'s, journaled at the current turn) and undo, because every write that must be
atomic with another (turn, graph, scene, journal) goes through here. Everything else takes the open save
rather than widening it: the turn log's reads (``turn_log``), the enrichment queue (``enrichment``),
merges and aliases (``node_identity``, ``merge_log``), the map's layout (``layout``), snapshots
(``snapshots``), and each feature's own reads in its package (gossip's: ``game.features.gossip.store``).
``tests/test_module_shape.py`` holds the class to 300 lines and 30 members.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import aiosqlite

from game.errors import SaveError, SaveNotFound
from game.graph.index import GraphIndex, GraphSource
from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.ports import GraphWrites
from game.graph.vocabulary import RelationSpec, Vocabulary
from game.store import connection, graph_repo, merge_log, told_log, undo
from game.store import journal as journal_log
from game.store.before_turn import BeforeTurnSource, read_turn_before
from game.store.connection import now_iso
from game.store.damage import READ_ERRORS, reads, write_failure
from game.store.graph_repo import SqlGraph, SqlGraphSource
from game.store.lock import SaveLock
from game.store.merge_log import MergeEntry
from game.store.rows import RowWrite, Scalar, read_rows, write_rows
from game.store.told_log import Told

# Fills a new save before it gets its name (the world's turn 0), so no save is ever seen half made.
Seed = Callable[["SaveDatabase"], Awaitable[None]]

if TYPE_CHECKING:
    from game.store.schema import Schema


@dataclass
class TurnRecord:
    """A committed player turn as stored."""

    number: int
    input: str
    narration: str
    npc_context: str
    world_ir: dict[str, Any] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    extracted: bool = True
    """False while the turn waits for a model's reading (the enrichment queue)."""
    created_at: str = ""
    extraction: str = "full"
    """How the graph holds the turn: ``full`` (the narrator's extractor), ``fast`` (the model-free fast
    path), ``none`` (nothing read yet) or ``enriched`` (a model's reading, written later)."""


class SaveDatabase:
    """An open save file. Use ``async with await SaveDatabase.open(path, schema=...)`` or call ``close()``.

    ``schema``: the migrations the save is built and upgraded by (the registry's, ``Registry.schema``): the
    store is given them and never imports a feature's tables."""

    def __init__(self, path: Path, conn: aiosqlite.Connection, schema: Schema, lock: SaveLock | None = None,
                 name: str | None = None) -> None:
        self.path = path
        self.conn = conn
        self.schema = schema
        self.name = name or path.stem  # a save being built under a temporary name keeps its own
        self.graph = SqlGraph(conn, self.name)
        self._lock = lock
        # One transaction at a time on the one connection: a game's background enrichment and the front
        # end (the map's layout) both write through it, and SQLite cannot nest their BEGINs.
        self._writing = asyncio.Lock()
        self._source: SqlGraphSource | None = None

    @classmethod
    async def open(cls, path: Path, *, schema: Schema, create: bool = False, world_id: str | None = None,
                   seed: Seed | None = None, exclusive: bool = False) -> SaveDatabase:
        """Open a save; create it first when ``create`` and missing (filled by ``seed`` before it appears).

        ``exclusive`` (a game) takes the save's lock now; other openers take it at their first write.
        """
        connection.sweep_leftovers(path.parent)
        if not path.exists() and not path.is_symlink():
            if not create:
                raise SaveNotFound(f"there is no save {path.stem!r} (looked for {path})")
            meta = {"world": world_id} if world_id else {}
            return await cls._create(path, meta, seed, exclusive, schema)
        connection.require_regular(path, path.name)
        lock = None
        if exclusive:
            if not connection.folder_writable(path):
                raise SaveError(f"{path.stem} is in a read-only folder ({path.parent}): it can be listed and "
                                "read (kith saves, kith graph) but not played")
            lock = SaveLock.acquire(path)
        try:
            conn = await connection.open_connection(path, schema)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return cls(path, conn, schema, lock)

    @classmethod
    async def _create(cls, path: Path, meta: dict[str, str], seed: Seed | None, exclusive: bool,
                      schema: Schema) -> SaveDatabase:
        async def fill(temporary: Path, conn: aiosqlite.Connection, lock: SaveLock) -> None:
            if seed is not None:
                building = cls(temporary, conn, schema, lock, name=path.stem)
                try:
                    await seed(building)
                finally:
                    # A lazy graph read the temporary file through a second connection: it must be gone
                    # before the file is checkpointed and renamed, or its WAL would outlive the name.
                    building.close_graph_source()

        conn, lock = await connection.create_save(path, meta, fill, schema)
        if not exclusive:
            lock.release()
        return cls(path, conn, schema, lock if exclusive else None)

    def close_graph_source(self) -> None:
        """Close the read-only connection lazy graph reads use (a lazy index read after this fails)."""
        if self._source is not None:
            self._source.conn.close()
            self._source = None

    async def close(self) -> None:
        try:
            self.close_graph_source()
            await self.conn.close()
        finally:
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    async def __aenter__(self) -> SaveDatabase:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, value: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self.close()

    def hold_lock(self) -> None:
        """Take the save's lock now unless held (a write, ``snapshots.restore_from``): kept until close."""
        if self._lock is None:
            self._lock = SaveLock.acquire(self.path, self.name)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT; any exception (or cancellation) rolls everything back.

        SQLite's own errors (a locked file, a full disk, a broken constraint) become one ``SaveError``
        here, so every caller, in game or on the command line, can say plainly that nothing was written.
        """
        self.hold_lock()
        async with self._writing:
            try:
                await self.conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self.conn
                    await self.conn.execute("COMMIT")
                except BaseException:
                    if self.conn.in_transaction:
                        await self.conn.execute("ROLLBACK")
                    raise
            except SaveError:
                raise
            except READ_ERRORS as error:
                raise write_failure(self.name, error) from error

    # ---------------------------------------------------------------------------------------- meta

    @reads
    async def meta(self) -> dict[str, str]:
        rows = await self.conn.execute_fetchall("SELECT key, value FROM meta")
        return {str(row[0]): str(row[1]) for row in rows}

    async def set_meta(self, values: dict[str, str]) -> None:
        async with self.transaction() as conn:
            await _put_meta(conn, values)

    async def world_id(self) -> str | None:
        return (await self.meta()).get("world")

    @reads
    async def vocabulary(self) -> Vocabulary:
        """The default vocabulary extended by what the save's world declared when it was created."""
        raw = (await self.meta()).get("vocabulary")
        base = Vocabulary.default()
        if not raw:
            return base
        try:
            return base.extended([RelationSpec.model_validate(spec) for spec in json.loads(raw)])
        except (ValueError, TypeError):
            return base

    # ---------------------------------------------------------------------------------------- reads

    @reads
    async def current_turn(self) -> int:
        rows = await self.conn.execute_fetchall("SELECT coalesce(max(number), 0) FROM turns")
        return int(next(iter(rows))[0])

    @reads
    async def load_graph_index(self, *, lazy: bool = True, source: GraphSource | None = None) -> GraphIndex:
        """The save's graph as a graph index, for a session or a command that reads much of it.

        ``lazy`` (a game, most commands): nodes and the merge log now, everything else as it is asked for
        (see ``game.graph.index``), read through this save's own read-only connection. Opening a long
        game then costs its nodes, not its 100k versions and 200k knower rows. Not lazy (a bulk import,
        which reads most of the graph anyway): every open version, every version ID and every knower row
        now. Either way the index answers the same. ``source``: where a lazy index reads instead of the
        save as committed (``graph_before_turn``).
        """
        nodes = await self.graph.all_nodes()
        retired = [merge.merged_id for merge in await merge_log.read_merges(self.conn)]
        if lazy:
            return GraphIndex(nodes, retired_node_ids=retired, source=source or self._graph_source())
        open_edges = await self.graph.all_edges(open_only=True)
        ids = [row[0] for row in await self.conn.execute_fetchall("SELECT id FROM edges")]
        knowings = await self.graph.all_knowings()
        return GraphIndex(nodes, open_edges, ids, retired, knowings)

    async def graph_before_turn(self, turn: int) -> BeforeTurnSource:
        """A lazy graph source answering as this save did before ``turn`` while it still holds the turn
        (retry). Call it in the transaction that undoes the turn, before undoing it: it reads the journal."""
        return BeforeTurnSource(self._graph_source(), await read_turn_before(self.conn, turn))

    def _graph_source(self) -> SqlGraphSource:
        """This save's read-only connection for lazy reads, opened at the first lazy load."""
        if self._source is None:
            immutable = not connection.folder_writable(self.path)
            reader = sqlite3.connect(connection.readonly_uri(self.path, immutable=immutable), uri=True,
                                     check_same_thread=False)
            self._source = SqlGraphSource(reader, self.name)
        return self._source

    # ---------------------------------------------------------------------------------------- graph writes

    async def commit_graph(self, writes: GraphWrites, told: Sequence[Told] = (), rows: Sequence[RowWrite] = (),
                           merges: Sequence[MergeEntry] = ()) -> None:
        """Commit one execution's writes outside a game turn (``kith graph upsert``).

        They are journaled at the save's current turn, whatever turn they are dated: undo goes backwards
        through the journal, so a later write must be undone before the turn whose nodes it points at.
        ``told``: gossip exchanges to log with them (``kith graph gossip``); ``rows`` and ``merges``: the
        questions and assumed identities of ``kith graph upsert --identity``.
        """
        if not writes and not told and not rows and not merges:
            return
        journal_turn = await self.current_turn()
        async with self.transaction() as conn:
            await self.write_graph(conn, writes, journal_turn, journal=journal_turn > 0)
            await _log_told(conn, told, journal_turn, journal=journal_turn > 0)
            await write_rows(conn, journal_turn, rows, journal_it=journal_turn > 0)
            for merge in merges:  # assumed identities; a "yes" here folds the graph only, as ``merge_nodes``
                if merge.merged_id is None:
                    await merge_log.log_identity(conn, merge, journal_turn)
                else:
                    await merge_log.merge_graph(conn, self.graph, merge.kept_id, merge.merged_id,
                                                strategy=merge.strategy, evidence=merge.evidence, turn=journal_turn,
                                                vocabulary=await self.vocabulary())
            await _put_meta(conn, {"last_played": now_iso()})

    async def write_graph(self, conn: aiosqlite.Connection, writes: GraphWrites, turn: int, *, journal: bool) -> None:
        stored: dict[str, Node] | None = None
        if journal:
            stored = await journal_log.record_nodes(
                conn, turn, [n for n in writes.nodes if n not in writes.created_nodes],
                created=[n for n in writes.nodes if n in writes.created_nodes])
            await journal_log.record_edges(conn, turn, [e for e in writes.edges if e not in writes.created_edges],
                                           created=[e for e in writes.edges if e in writes.created_edges])
            await journal_log.record_knowings(conn, turn, list(writes.knowings))
        await graph_repo.put_nodes(conn, writes.nodes.values(), stored)
        await graph_repo.put_edges(conn, writes.edges.values())
        await graph_repo.put_knowings(conn, writes.knowings.values())

    @reads
    async def read_rows(self, table: str) -> list[dict[str, Scalar]]:
        """Every row of a feature's own table (written with turns as ``RowWrite`` rows)."""
        return await read_rows(self.conn, table)

    # ---------------------------------------------------------------------------------------- turns

    async def start_game(self, scene: dict[str, Any], writes: GraphWrites, meta: dict[str, str]) -> None:
        """Turn 0: the world's initial graph and scene, in one transaction (not undoable)."""
        async with self.transaction() as conn:
            await self.write_graph(conn, writes, 0, journal=False)
            await conn.execute("INSERT OR REPLACE INTO scenes (turn, state) VALUES (0, ?)", (json.dumps(scene),))
            await _put_meta(conn, {**meta, "last_played": now_iso()})

    async def commit_turn(self, record: TurnRecord, writes: GraphWrites, scene: dict[str, Any],
                          told: Sequence[Told] = (), rows: Sequence[RowWrite] = ()) -> None:
        """The turn row, its graph writes (gossip's included, logged as ``told``), the rows of other
        features' tables the turn changed (``rows``) and the scene after it: all in ONE transaction. A turn
        that merges people writes in three steps inside one transaction of its caller's (``start_turn``,
        the merges, ``end_turn``: game/engine/save_store.py)."""
        async with self.transaction() as conn:
            await self.write_turn(conn, record, writes, scene, told, rows)

    async def write_turn(self, conn: aiosqlite.Connection, record: TurnRecord, writes: GraphWrites,
                         scene: dict[str, Any], told: Sequence[Told] = (), rows: Sequence[RowWrite] = ()) -> None:
        """``commit_turn``'s writes inside the caller's transaction: swapping a turn's telling
        (``game.features.tellings``) undoes the turn and writes another in one transaction."""
        await self.start_turn(conn, record, writes, told, rows)
        await self.end_turn(conn, record, scene)

    async def start_turn(self, conn: aiosqlite.Connection, record: TurnRecord, writes: GraphWrites,
                         told: Sequence[Told] = (), rows: Sequence[RowWrite] = ()) -> None:
        """The first part of a turn's writes, inside the caller's transaction: the turn row, its graph
        writes, its gossip and its rows, journaled at the turn. ``end_turn`` finishes it."""
        await conn.execute(
            "INSERT INTO turns (number, input, narration, world_ir, npc_context, timings, extracted, created_at, "
            "extraction) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (record.number, record.input, record.narration,
             json.dumps(record.world_ir) if record.world_ir is not None else None, record.npc_context,
             json.dumps(record.timings), int(record.extracted), record.created_at or now_iso(), record.extraction),
        )
        await self.write_graph(conn, writes, record.number, journal=True)
        await _log_told(conn, told, record.number, journal=True)
        await write_rows(conn, record.number, rows, journal_it=True)

    async def end_turn(self, conn: aiosqlite.Connection, record: TurnRecord, scene: dict[str, Any], *,
                       narration_changed: bool = False) -> None:
        """The last part of a turn's writes (after ``start_turn`` and any merges): the scene after it, and
        the narration again when what was written since changed it (a merge's tier line ends it). The
        turn's row is new in this transaction: undo deletes it, the line with it."""
        if narration_changed:
            await conn.execute("UPDATE turns SET narration = ? WHERE number = ?", (record.narration, record.number))
        await conn.execute("INSERT OR REPLACE INTO scenes (turn, state) VALUES (?, ?)",
                           (record.number, json.dumps(scene)))
        await _put_meta(conn, {"last_played": now_iso()})

    async def undo_last_turn(self) -> int:
        """Revert the last turn exactly; returns the turn now current. Raises ``SaveError`` at turn 0."""
        turn = await self.current_turn()
        if turn == 0:
            raise SaveError("there is nothing to undo: no turn has been played yet")
        async with self.transaction() as conn:
            await undo.undo_turn(conn, turn)
        return turn - 1

    async def rewind_to_start(self) -> None:
        """Undo every turn back to turn 0 in ONE transaction: killed midway, the save is unchanged."""
        async with self.transaction() as conn:
            rows = await conn.execute_fetchall("SELECT number FROM turns ORDER BY number DESC")
            for row in rows:
                await undo.undo_turn(conn, int(row[0]))

async def _put_meta(conn: aiosqlite.Connection, values: dict[str, str]) -> None:
    """Set ``values`` in the meta table inside the caller's transaction (a turn stamps ``last_played``)."""
    await conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        list(values.items()),
    )


async def _log_told(conn: aiosqlite.Connection, told: Sequence[Told], turn: int, *, journal: bool) -> None:
    """Gossip exchanges written with a turn's (or ``commit_graph``'s) writes, journaled when undoable."""
    if journal:
        await journal_log.record_told(conn, turn, told)
    await told_log.put(conn, told)


async def node_by_name(db: SaveDatabase, name: str) -> list[Node]:
    """Nodes a name or alias means (case-insensitive), for commands that take names."""
    key = normalize_name(name)
    return (await db.graph.nodes_named([key])).get(key, [])

