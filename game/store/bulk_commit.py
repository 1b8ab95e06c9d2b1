"""A bulk load's one transaction (``kith graph import``, ``commit_many``): how it reaches the save.

On a save with played turns it is journaled at the current turn like any write; on a save with none there
is nothing to undo to, and the rows stream in while the loader reads on (``bulk_write.LoadStream``).
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from game.graph.bulk import BulkLoad, BulkLoader
from game.graph.version_rows import edge_row, knowing_row
from game.store import graph_repo, node_identity
from game.store.bulk_write import REINDEX_FROM, SWITCH_INTERVAL, LoadStream, Phase

if TYPE_CHECKING:
    from game.graph.ports import GraphWrites
    from game.graph.vocabulary import Vocabulary
    from game.store.database import SaveDatabase


async def commit_many(db: SaveDatabase, batches: Sequence[tuple[GraphWrites, int]]) -> None:
    """Commit many executions in one transaction, as one bulk load (see ``commit_load``)."""
    load = BulkLoad()
    for writes, _turn in batches:
        load.nodes.update(writes.nodes)
        load.edges.update((i, edge_row(e)) for i, e in writes.edges.items())
        load.created_nodes |= writes.created_nodes
        load.created_edges |= writes.created_edges
        load.knowings.update((k, knowing_row(v)) for k, v in writes.knowings.items())
    await commit_load(db, load)

async def bulk_loader(db: SaveDatabase, vocabulary: Vocabulary, rng: random.Random) -> BulkLoader:
    """A ``BulkLoader`` over this save as it is: its nodes, open versions, version IDs and knower rows."""
    return BulkLoader(
        vocabulary, rng, nodes=await db.graph.all_nodes(),
        retired_node_ids=[merge.merged_id for merge in await node_identity.merges(db)],
        open_edges=await db.conn.execute_fetchall(
            f"SELECT {graph_repo.EDGE_COLUMNS} FROM edges WHERE invalid_at IS NULL ORDER BY seq"),
        edge_ids=[row[0] for row in await db.conn.execute_fetchall("SELECT id FROM edges")],
        knowings=await db.conn.execute_fetchall(f"SELECT {graph_repo.KNOWING_COLUMNS} FROM knowings"),
    )

async def commit_load(db: SaveDatabase, load: BulkLoad, *, unpublished: bool = False) -> None:
    """Commit a whole bulk load in one transaction (see ``load_stream``)."""
    if load:
        async with load_stream(db, load, unpublished=unpublished, versions=len(load.edges)):
            pass

@asynccontextmanager
async def load_stream(db: SaveDatabase, load: BulkLoad, *, versions: int, unpublished: bool = False,
                      phase: Phase | None = None) -> AsyncIterator[LoadStream | None]:
    """Commit a bulk load (``kith graph import``) in one transaction, as the caller makes it.

    On a save with played turns this gives None, and the load is journaled at the current turn when
    the block ends, like ``commit_graph``. On a save with none there is nothing to undo to: it gives
    a ``LoadStream`` (``bulk_write``) whose batches the caller sends while it goes on making the load,
    and the transaction commits when the block ends. An exception in the block writes nothing.

    ``unpublished``: this save is being built under a temporary name (a ``SaveDatabase.open`` seed)
    that nothing else has open, so its commit writes the pages once, straight into the file, without
    a journal and without waiting for the disk; the file is synced after it, before it is named. A
    failure there leaves a file nobody opens, and the save is not created. Never for a named save.

    ``versions``: about how many versions the load will write; when that is at least as many as the
    save holds, the indexes of the graph's tables are built again after the rows instead of kept up.

    ``phase``: told the name of each step after the block as it begins (``building indexes``,
    ``checking``, ``saving``), for a progress display.
    """
    journal_turn = await db.current_turn()
    if journal_turn > 0:
        yield None
        if phase is not None:
            phase("saving")
        if load:
            async with db.transaction() as conn:
                await db.write_graph(conn, load.writes(), journal_turn, journal=True)
        return
    synchronous = None
    if unpublished:
        synchronous = int((await db.conn.execute_fetchall("PRAGMA synchronous"))[0][0])  # type: ignore[index]
        await db.conn.execute("PRAGMA journal_mode = OFF")
        await db.conn.execute("PRAGMA synchronous = OFF")
    await _checks(db, on=False)  # ``LoadStream.finish`` checks every row instead
    switch_interval = sys.getswitchinterval()
    # The connection's thread needs Python's lock for a moment after each batch; by default it would
    # wait up to 5 ms for the reading thread to let go, and sit idle meanwhile.
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        async with db.transaction() as conn:
            stored_node_ids = {str(row[0]) for row in await conn.execute_fetchall("SELECT id FROM nodes")}
            stream = LoadStream(conn, load, stored_node_ids, phase)
            stored = (await conn.execute_fetchall("SELECT coalesce(max(seq), 0) FROM edges"))[0][0]  # type: ignore[index]
            if versions >= REINDEX_FROM * max(int(stored), 1):
                await stream.drop_indexes()
            try:
                yield stream
                await stream.finish()
                if phase is not None:
                    phase("saving")  # the commit, and for a new save the sync to disk
            finally:
                await stream.settle()
    finally:
        sys.setswitchinterval(switch_interval)
        if synchronous is not None:
            await db.conn.execute("PRAGMA journal_mode = WAL")
            await db.conn.execute(f"PRAGMA synchronous = {synchronous}")
        await _checks(db, on=True)
    if unpublished:
        # Closing syncs only what went through the WAL, and these pages did not.
        await asyncio.to_thread(sync_file, db.path)

async def _checks(db: SaveDatabase, *, on: bool) -> None:
    # Never inside a transaction: SQLite ignores ``foreign_keys`` there.
    await db.conn.execute(f"PRAGMA foreign_keys = {'ON' if on else 'OFF'}")
    await db.conn.execute(f"PRAGMA ignore_check_constraints = {'OFF' if on else 'ON'}")


def sync_file(path: Path) -> None:
    """Wait until ``path``'s contents are on the disk."""
    with path.open("r+b") as file:
        os.fsync(file.fileno())
