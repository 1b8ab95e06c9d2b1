"""``SaveDatabase``: one open save, one connection, every write in a transaction.

Graph writes are journaled with before-images per turn (``journal``), so ``undo_last_turn`` restores the
exact state before the last turn (graph, scene and history) as many times as there are turns. Bulk loads
(``commit_many``, the world's turn 0) skip the journal: they are not undoable turns. The first write
takes the save's lock (``lock``) and keeps it until close, so two processes never write one save.

It is one piece (over 400 lines) on purpose: it owns the one connection and its transactions, so every
write that must be atomic with another (turn, graph, scene, journal) is a method here; the SQL of each
part lives in its own module (``journal``, ``graph_repo``, ``snapshots``, ``merge_log``, ``told_log``).
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
from game.graph.merge_plan import plan_merge
from game.graph.models import Edge, Node
from game.graph.names import normalize_name
from game.graph.ports import GraphWrites
from game.graph.vocabulary import RelationSpec, Vocabulary
from game.store import connection, decoded, graph_repo, merge_log, snapshots, told_log, undo
from game.store import journal as journal_log
from game.store.before_turn import BeforeTurnSource, read_turn_before
from game.store.connection import now_iso
from game.store.damage import READ_ERRORS, reads, write_failure
from game.store.graph_repo import SqlGraph, SqlGraphSource
from game.store.lock import SaveLock
from game.store.merge_log import MergeEntry, MergeRecord, MergeReport
from game.store.packed import unpack
from game.store.rows import RowWrite, Scalar, read_rows, write_rows
from game.store.told_log import Told

# Fills a new save before it gets its name (the world's turn 0), so no save is ever seen half made.
Seed = Callable[["SaveDatabase"], Awaitable[None]]
_TURN_COLUMNS = ("number", "input", "narration", "npc_context", "world_ir", "timings", "extracted", "created_at",
                 "extraction")

if TYPE_CHECKING:
    from game.store.fast_marks import FastReading
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

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT; any exception (or cancellation) rolls everything back.

        SQLite's own errors (a locked file, a full disk, a broken constraint) become one ``SaveError``
        here, so every caller, in game or on the command line, can say plainly that nothing was written.
        """
        if self._lock is None:
            self._lock = SaveLock.acquire(self.path, self.name)
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
            await self._put_meta(conn, values)

    @staticmethod
    async def _put_meta(conn: aiosqlite.Connection, values: dict[str, str]) -> None:
        await conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            list(values.items()),
        )

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
    async def latest_turn(self) -> int:
        """The latest turn the save knows: played turns, or a turn its graph was written at ahead of play
        (``graph upsert --turn``), whichever is later. Writing at this turn never ends a version early."""
        rows = await self.conn.execute_fetchall(
            "SELECT max(coalesce((SELECT max(number) FROM turns), 0), coalesce((SELECT max(valid_at) FROM edges), 0), "
            "coalesce((SELECT max(invalid_at) FROM edges), 0), coalesce((SELECT max(last_seen_turn) FROM nodes), 0))"
        )
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
        retired = [merge.merged_id for merge in await self.merges()]
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

    async def all_nodes(self) -> list[Node]:
        return await self.graph.all_nodes()

    async def all_edges(self) -> list[Edge]:
        return await self.graph.all_edges()

    async def edges_between(self, a: str, b: str) -> list[Edge]:
        return await self.graph.edges_between(a, b)

    @reads
    async def merges(self) -> list[MergeRecord]:
        return await merge_log.read_merges(self.conn)

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
            await self._log_gossip(conn, told, journal_turn, journal=journal_turn > 0)
            await write_rows(conn, journal_turn, rows, journal_it=journal_turn > 0)
            for merge in merges:  # assumed identities; a "yes" here folds the graph only, as ``merge_nodes``
                if merge.merged_id is None:
                    await self.log_identity(conn, merge, journal_turn)
                else:
                    await self.merge_in(conn, merge.kept_id, merge.merged_id, strategy=merge.strategy,
                                        evidence=merge.evidence, turn=journal_turn)
            await self._put_meta(conn, {"last_played": now_iso()})

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

    async def _log_gossip(self, conn: aiosqlite.Connection, told: Sequence[Told], turn: int, *, journal: bool) -> None:
        if journal:
            await journal_log.record_told(conn, turn, told)
        await told_log.put(conn, told)

    @reads
    async def read_rows(self, table: str) -> list[dict[str, Scalar]]:
        """Every row of a feature's own table (written with turns as ``RowWrite`` rows)."""
        return await read_rows(self.conn, table)

    @reads
    async def gossip_last_talked(self) -> dict[tuple[str, str], int]:
        """The last turn each pair of people gossiped (gossip's cooldown)."""
        return await told_log.last_talked(self.conn)

    @reads
    async def gossip_told_to(self, listeners: Sequence[str]) -> list[Told]:
        """Every exchange in which one of ``listeners`` was told something, oldest first (``/why``)."""
        return await told_log.told_to(self.conn, listeners)

    # ---------------------------------------------------------------------------------------- turns

    async def start_game(self, scene: dict[str, Any], writes: GraphWrites, meta: dict[str, str]) -> None:
        """Turn 0: the world's initial graph and scene, in one transaction (not undoable)."""
        async with self.transaction() as conn:
            await self.write_graph(conn, writes, 0, journal=False)
            await conn.execute("INSERT OR REPLACE INTO scenes (turn, state) VALUES (0, ?)", (json.dumps(scene),))
            await self._put_meta(conn, {**meta, "last_played": now_iso()})

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
        await self._log_gossip(conn, told, record.number, journal=True)
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
        await self._put_meta(conn, {"last_played": now_iso()})

    async def commit_enrichment(self, writes: GraphWrites, turn: int, marks: Sequence[tuple[int, bool, str]]) -> None:
        """Graph writes read later for earlier turns, and each turn's new mark, in one transaction.

        ``marks``: ``(number, extracted, extraction)`` per turn. Journaled at the current ``turn``, the
        turns' rows included (``row:turns``): undoing that turn puts the graph and the marks back, so the
        turns wait in the queue again.
        """
        async with self.transaction() as conn:
            await self.write_graph(conn, writes, turn, journal=turn > 0)
            if turn > 0:
                await journal_log.record_rows(conn, turn, "turns", [{"number": number} for number, _, _ in marks])
            await conn.executemany("UPDATE turns SET extracted = ?, extraction = ? WHERE number = ?",
                                   [(int(extracted), extraction, number) for number, extracted, extraction in marks])

    @reads
    async def fast_reading(self, turn: int) -> FastReading:
        """What the fast path's reading of ``turn`` left: its open versions and the ones it ended (by their
        evidence marks, through their indexes: a few rows however long the game)."""
        from game.store.fast_marks import fast_reading

        return await fast_reading(self.conn, turn)

    @reads
    async def extraction_counts(self) -> dict[str, int]:
        """How many turns the graph holds each way (``full``, ``fast``, ``none``, ``enriched``)."""
        rows = await self.conn.execute_fetchall("SELECT extraction, count(*) FROM turns GROUP BY extraction")
        return {str(row[0]): int(row[1]) for row in rows}

    @reads
    async def pending_extraction(self) -> list[TurnRecord]:
        """The enrichment queue, oldest first: turns whose narration committed but whose relations no model
        has recorded (the fast path read them, ``extraction = 'fast'``, or nobody did, ``'none'``)."""
        return await self._turns_where("extracted = 0")

    @reads
    async def turn_inputs(self, numbers: Sequence[int]) -> dict[int, str]:
        """What the player typed at each of ``numbers``."""
        marks = ",".join("?" * len(numbers))
        rows = await self.conn.execute_fetchall(f"SELECT number, input FROM turns WHERE number IN ({marks})",
                                                tuple(numbers)) if numbers else []
        return {int(row[0]): str(row[1]) for row in rows}

    @reads
    async def latest_turn_row(self, table: str, at_most: int) -> dict[str, Scalar] | None:
        """The row of a per-turn table of a feature (keyed by ``turn``, written by ``RowWrite``) for the
        newest turn at or before ``at_most``, or None. Packed texts come back as text."""
        cursor = await self.conn.execute(f'SELECT * FROM "{table}" WHERE turn <= ? ORDER BY turn DESC LIMIT 1',
                                         (at_most,))
        try:
            row = await cursor.fetchone()
            names = [column[0] for column in cursor.description or ()]
        finally:
            await cursor.close()
        return None if row is None else {name: unpack(value) for name, value in zip(names, row, strict=True)}

    @reads
    async def scene_at(self, turn: int) -> dict[str, Any] | None:
        rows = await self.conn.execute_fetchall("SELECT state FROM scenes WHERE turn = ?", (turn,))
        for row in rows:
            loaded = json.loads(row[0])
            if not isinstance(loaded, dict):
                raise ValueError(f"the scene of turn {turn} is not a JSON object")
            return loaded
        return None

    @reads
    async def turns(self, last: int | None = None) -> list[TurnRecord]:
        """Committed turns, oldest first (the last ``last`` of them when given)."""
        limit = "" if last is None else f"LIMIT {int(last)}"
        return await self._turns_where("1", limit)

    async def _turns_where(self, condition: str, limit: str = "") -> list[TurnRecord]:
        rows = await self.conn.execute_fetchall(
            f"SELECT {', '.join(_TURN_COLUMNS)} FROM "
            f"(SELECT * FROM turns WHERE {condition} ORDER BY number DESC {limit}) ORDER BY number"
        )
        for r in rows:  # a value of another type (a BLOB for the input) is damage, named, not a traceback later
            decoded.require("turns", _TURN_COLUMNS, r)
        return [
            TurnRecord(number=r[0], input=r[1], narration=r[2], npc_context=r[3],
                       world_ir=json.loads(r[4]) if r[4] else None, timings=json.loads(r[5]),
                       extracted=bool(r[6]), created_at=r[7], extraction=r[8])
            for r in rows
        ]

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

    # ---------------------------------------------------------------------------------------- identity

    async def merge_nodes(self, keep_id: str, merged_id: str, *, strategy: str, evidence: str, turn: int) -> MergeReport:
        """Fold ``merged_id`` into ``keep_id`` as ``plan_merge`` decides; the merge is journaled and logged.
        The graph only: a merge of people (their minds and the questions of identity about them) is
        ``game.features.identity.merging.merge_people``."""
        async with self.transaction() as conn:
            return await self.merge_in(conn, keep_id, merged_id, strategy=strategy, evidence=evidence, turn=turn)

    async def merge_in(self, conn: aiosqlite.Connection, keep_id: str, merged_id: str, *, strategy: str,
                       evidence: str, turn: int, vocabulary: Vocabulary | None = None) -> MergeReport:
        """A merge of the graph inside the caller's transaction (``merge_nodes``, a turn, an answered
        question), journaled at ``turn``; the caller writes what else it folds in the same transaction (the
        identity feature: the two minds, and the open questions the merge answers or moves)."""
        if keep_id == merged_id:
            raise SaveError("a node cannot be merged into itself")
        found = await self.graph.get_nodes([keep_id, merged_id])
        for node_id in (keep_id, merged_id):
            if node_id not in found:
                raise SaveError(f"there is no node {node_id!r} in this save")
        kept, merged = found[keep_id], found[merged_id]
        touching = await self.graph.edges_touching(merged_id)
        others = await self.graph.open_edges_of(keep_id)
        plan = plan_merge(kept, merged, touching, others, vocabulary or await self.vocabulary(), turn)
        await merge_log.apply_merge(conn, kept, merged, plan, [*touching, *others],
                                    strategy=strategy, evidence=evidence, turn=turn)
        return MergeReport(kept=plan.united, merged=merged, repointed=plan.repointed, closed=plan.closed)

    async def log_identity(self, conn: aiosqlite.Connection, merge: MergeEntry, turn: int) -> None:
        """An assumed name (an identity decision that folds nobody: the turn's writes made it an alias),
        logged inside the caller's transaction."""
        await merge_log.log_merge(conn, merge.kept_id, "", merge.merged_name, merge.strategy, merge.evidence, turn)

    async def add_alias(self, node_id: str, alias: str, turn: int) -> Node:
        """Declare another name for a node (identity rung 3: an explicit alias table)."""
        nodes = await self.graph.get_nodes([node_id])
        if node_id not in nodes:
            raise SaveError(f"there is no node {node_id!r} in this save")
        node = nodes[node_id]
        if normalize_name(alias) in {normalize_name(n) for n in node.names}:
            return node
        updated = node.model_copy(update={"aliases": [*node.aliases, " ".join(alias.split())]})
        async with self.transaction() as conn:
            await journal_log.record(conn, [(turn, "node", node_id, journal_log.before_image(node))])
            await graph_repo.put_nodes(conn, [updated])
        return updated

    # ---------------------------------------------------------------------------------------- layout

    @reads
    async def load_layout(self) -> dict[str, tuple[float, float]]:
        rows = await self.conn.execute_fetchall("SELECT node_id, x, y FROM layout")
        return {row[0]: (float(row[1]), float(row[2])) for row in rows}

    async def save_layout(self, positions: dict[str, tuple[float, float]]) -> None:
        async with self.transaction() as conn:
            await conn.executemany(
                "INSERT INTO layout (node_id, x, y) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM nodes WHERE id = ?) "
                "ON CONFLICT(node_id) DO UPDATE SET x = excluded.x, y = excluded.y",
                [(node_id, x, y, node_id) for node_id, (x, y) in positions.items()],
            )

    # ---------------------------------------------------------------------------------------- snapshots

    async def snapshot_to(self, destination: Path) -> None:
        """Copy this save to ``destination`` (see ``snapshots.write_snapshot``)."""
        await snapshots.write_snapshot(self.conn, self.name, destination)

    async def restore_from(self, source: Path) -> None:
        """Replace this game with ``source``, a snapshot of a game of the same world (else refused)."""
        await snapshots.check_restorable(source, self.name, await self.world_id(), self.schema)
        if self._lock is None:
            self._lock = SaveLock.acquire(self.path, self.name)
        await snapshots.restore_into(self.conn, self.name, source)


async def node_by_name(db: SaveDatabase, name: str) -> list[Node]:
    """Nodes a name or alias means (case-insensitive), for commands that take names."""
    key = normalize_name(name)
    return (await db.graph.nodes_named([key])).get(key, [])

