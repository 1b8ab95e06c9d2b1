"""Merging two people: the graph merged by the store, then their minds folded, in ONE transaction.

The store only stores: ``merge_log.merge_graph`` merges the graph inside its caller's transaction and
reports what it did; the fold (``minds.fold_minds``: memories, attitude, said words, the graph kept
in agreement with the united attitude) is decided here, above the store, reading through the same
connection (it sees the merge), and its rows and writes are handed back to the store journaled at the
merge's turn, so undo of that turn restores both minds exactly. Every merge of people goes through
here: ``kith graph merge``, ``kith graph resolve`` and a "yes" in play (game/engine/save_store.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import aiosqlite

from game.features.identity.minds import fold_minds
from game.features.identity.questions import PendingIdentity, after_merge, read
from game.features.memories.book import MemorySettings
from game.graph.vocabulary import Vocabulary
from game.store import merge_log
from game.store.database import SaveDatabase
from game.store.merge_log import MergeEntry, MergeReport
from game.store.rows import write_rows


async def merge_in(db: SaveDatabase, conn: aiosqlite.Connection, keep_id: str, merged_id: str, *, strategy: str,
                   evidence: str, turn: int, settings: MemorySettings,
                   vocabulary: Vocabulary | None = None) -> MergeReport:
    """Merge ``merged_id`` into ``keep_id`` with their minds, inside the caller's transaction."""
    report = await merge_log.merge_graph(conn, db.graph, keep_id, merged_id, strategy=strategy, evidence=evidence,
                                         turn=turn, vocabulary=vocabulary or await db.vocabulary())
    asked = after_merge(await read(conn, open_only=True), (report.kept.id, report.kept.name),
                        (report.merged.id, report.merged.name), turn)
    await write_rows(conn, turn, [question.write() for question in asked], journal_it=True)
    folded = await fold_minds(db, report.kept, report.merged, turn, settings)
    await db.write_graph(conn, folded.writes, turn, journal=True)
    await write_rows(conn, turn, folded.rows, journal_it=True)
    report.mind = folded.summary
    return report


async def identity_merges(db: SaveDatabase, conn: aiosqlite.Connection, merges: Sequence[MergeEntry],
                          turn: int, settings: MemorySettings) -> list[MergeReport]:
    """A turn's identity decisions inside its transaction: an assumed name is logged (the turn's writes made
    it an alias); a "yes" folds the new person into the one asked about, minds and all. Returns the folds."""
    vocabulary = await db.vocabulary() if any(merge.merged_id for merge in merges) else None
    reports: list[MergeReport] = []
    for merge in merges:
        if merge.merged_id is None:
            await merge_log.log_identity(conn, merge, turn)
        else:
            reports.append(await merge_in(db, conn, merge.kept_id, merge.merged_id, strategy=merge.strategy,
                                          evidence=merge.evidence, turn=turn, settings=settings,
                                          vocabulary=vocabulary))
    return reports


async def merge_people(db: SaveDatabase, keep_id: str, merged_id: str, *, strategy: str, evidence: str, turn: int,
                       settings: MemorySettings) -> MergeReport:
    """``kith graph merge``: one merge of people, minds and all, in its own transaction."""
    async with db.transaction() as conn:
        return await merge_in(db, conn, keep_id, merged_id, strategy=strategy, evidence=evidence, turn=turn,
                              settings=settings)


async def resolve(db: SaveDatabase, answered: PendingIdentity, turn: int, merge: MergeEntry | None,
                  settings: MemorySettings) -> None:
    """An author's answer (``kith graph resolve``): the question's row and, for "yes", the merge, in ONE
    transaction, journaled at ``turn`` (the save's current turn) like ``graph merge``."""
    async with db.transaction() as conn:
        await write_rows(conn, turn, [answered.write()], journal_it=turn > 0)
        if merge is not None:
            await identity_merges(db, conn, [merge], turn, settings)
