"""The merge log and applying a merge plan: the store's half of ``graph merge``.

What a merge changes is decided by ``game.graph.merge_plan`` on plain models; here it is read, planned
and written, inside the caller's transaction, with the journal entries that let undo take it back
(``merge_graph``). It takes the connection and the graph's reader, never the open save: the save's own
commit (``SaveDatabase.commit_graph``) merges through it, as the identity feature does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite

from game.errors import SaveError
from game.graph.knowledge import Knowing, keep_better
from game.graph.merge_plan import MergePlan, plan_merge
from game.graph.models import Edge, Node
from game.graph.vocabulary import Vocabulary
from game.store import graph_repo, journal
from game.store.connection import now_iso
from game.store.graph_repo import SqlGraph
from game.store.mind_fold import MindSummary


@dataclass(frozen=True)
class MergeRecord:
    """One row of the merge log: both IDs, the strategy and the evidence, as ``graph merge`` wrote them."""

    kept_id: str
    merged_id: str
    merged_name: str
    strategy: str
    evidence: str
    turn: int
    at: str

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "keptId": self.kept_id, "mergedId": self.merged_id, "mergedName": self.merged_name,
            "strategy": self.strategy, "evidence": self.evidence, "turn": self.turn, "at": self.at,
        }


@dataclass(frozen=True)
class MergeEntry:
    """A merge-log entry a turn writes: an identity assumed (the name became an alias, ``merged_id`` None,
    nothing to fold), or a question answered "yes" (``merged_id`` folded into ``kept_id``)."""

    kept_id: str
    merged_id: str | None
    merged_name: str
    strategy: str
    """``assumed`` (the scoring was sure), ``player`` (the answer in the story), ``author`` (``kith graph resolve``)."""
    evidence: str


@dataclass
class MergeReport:
    kept: Node
    merged: Node
    repointed: int
    closed: list[str]
    mind: MindSummary | None = None
    """What was folded of the merged NPC's mind; None for a merge of the graph alone (``game.store.node_identity.merge_nodes``)."""


async def merge_graph(conn: aiosqlite.Connection, graph: SqlGraph, keep_id: str, merged_id: str, *, strategy: str,
                      evidence: str, turn: int, vocabulary: Vocabulary) -> MergeReport:
    """A merge of the graph inside the caller's transaction (``merge_nodes``, ``kith graph upsert
    --identity``, a turn, an answered question), journaled at ``turn``; the caller writes what else it
    folds in the same transaction (the identity feature: the two minds, and the open questions the merge
    answers or moves). ``graph`` reads the save through ``conn``'s transaction; ``vocabulary`` is the save's."""
    if keep_id == merged_id:
        raise SaveError("a node cannot be merged into itself")
    found = await graph.get_nodes([keep_id, merged_id])
    for node_id in (keep_id, merged_id):
        if node_id not in found:
            raise SaveError(f"there is no node {node_id!r} in this save")
    kept, merged = found[keep_id], found[merged_id]
    touching = await graph.edges_touching(merged_id)
    others = await graph.open_edges_of(keep_id)
    plan = plan_merge(kept, merged, touching, others, vocabulary, turn)
    await apply_merge(conn, kept, merged, plan, [*touching, *others], strategy=strategy, evidence=evidence, turn=turn)
    return MergeReport(kept=plan.united, merged=merged, repointed=plan.repointed, closed=plan.closed)


async def log_identity(conn: aiosqlite.Connection, merge: MergeEntry, turn: int) -> None:
    """An assumed name (an identity decision that folds nobody: the turn's writes made it an alias),
    logged inside the caller's transaction."""
    await log_merge(conn, merge.kept_id, "", merge.merged_name, merge.strategy, merge.evidence, turn)


async def apply_merge(conn: aiosqlite.Connection, kept: Node, merged: Node, plan: MergePlan,
                      before: Sequence[Edge], *, strategy: str, evidence: str, turn: int) -> None:
    """Write ``plan`` journaled at ``turn`` and log the merge; ``before`` holds the edges as they were."""
    before_edges = {e.id: e for e in before}
    # Undo replays backwards: the merged node comes back first, then edges point to it again,
    # then the kept node loses the merged names.
    entries: list[journal.Entry] = [(turn, "node", kept.id, journal.before_image(kept))]
    entries += [(turn, "edge", edge_id, journal.before_image(before_edges[edge_id]))
                for edge_id in plan.edges if edge_id in before_edges]
    entries.append((turn, "node", merged.id, journal.before_image(merged)))
    await journal.record(conn, entries)
    await _merge_knowers(conn, kept.id, merged.id, turn)
    await graph_repo.put_nodes(conn, [plan.united])
    await graph_repo.put_edges(conn, plan.edges.values())
    await graph_repo.delete_node(conn, merged.id)
    await log_merge(conn, kept.id, merged.id, merged.name, strategy, evidence, turn)


async def log_merge(conn: aiosqlite.Connection, kept_id: str, merged_id: str, merged_name: str, strategy: str,
                    evidence: str, turn: int) -> None:
    """One row of the merge log (undo of ``turn`` deletes it). ``merged_id`` is "" when no node was folded:
    an identity assumed on upsert only gave the kept node another name."""
    await conn.execute(
        "INSERT INTO merges (kept_id, merged_id, merged_name, strategy, evidence, turn, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (kept_id, merged_id, merged_name, strategy, evidence, turn, now_iso()),
    )


async def _merge_knowers(conn: aiosqlite.Connection, kept_id: str, merged_id: str, turn: int) -> None:
    """What the merged node knew, the kept one now knows (the better row of the two wins), and what it told
    others they now heard from the kept one: one person cannot know less for having had two names."""
    columns = graph_repo.KNOWING_COLUMNS
    known = [graph_repo.knowing_from_row(r) for r in await conn.execute_fetchall(
        f"SELECT {columns} FROM knowings WHERE knower = ?", (merged_id,))]
    # No index on the teller: a merge is a rare author's command, and a scan keeps every turn's writes cheap.
    told = [graph_repo.knowing_from_row(r) for r in await conn.execute_fetchall(
        f"SELECT {columns} FROM knowings WHERE source = ? AND knower != ?", (merged_id, merged_id))]
    if not known and not told:
        return
    held = await graph_repo.knowings_by_key(conn, [(k.edge_id, kept_id) for k in known])
    moved: dict[tuple[str, str], Knowing] = {}
    for row in known:
        key = (row.edge_id, kept_id)
        learned = row.model_copy(update={"knower": kept_id, "source": None if row.source == kept_id else row.source})
        moved[key] = keep_better(moved.get(key) or held.get(key), learned)
    for row in told:
        key = (row.edge_id, row.knower)
        moved[key] = row.model_copy(update={"source": kept_id}) if row.knower != kept_id else \
            row.model_copy(update={"source": None})
    entries: list[journal.Entry] = [
        (turn, "knowing", graph_repo.knowing_key(row.edge_id, merged_id), journal.before_image(row)) for row in known
    ]
    before = {**held, **{(r.edge_id, r.knower): r for r in told}}
    entries += [(turn, "knowing", graph_repo.knowing_key(*key), journal.before_image(before.get(key))) for key in moved]
    await journal.record(conn, entries)
    await conn.executemany("DELETE FROM knowings WHERE edge_id = ? AND knower = ?",
                           [(row.edge_id, merged_id) for row in known])
    await graph_repo.put_knowings(conn, moved.values())


async def read_merges(conn: aiosqlite.Connection) -> list[MergeRecord]:
    rows = await conn.execute_fetchall(
        "SELECT kept_id, merged_id, merged_name, strategy, evidence, turn, at FROM merges ORDER BY id"
    )
    return [MergeRecord(str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), int(r[5]), str(r[6])) for r in rows]

