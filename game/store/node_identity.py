"""Who a node is, through an open save: merging two nodes of the graph, another name for one, the merge log.

These are the graph's identity writes of the commands (``kith graph merge`` of the graph alone, ``kith
graph alias``) and the merge log's read (``graph stats``, ``graph pending``, a bulk load's retired IDs).
They are not the save's core: each takes the open save and writes through its transaction. A merge of
*people* (their minds and the questions about them too) is the identity feature's,
``game.features.identity.merging``, over ``merge_log.merge_graph`` as here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.errors import SaveError
from game.graph.names import normalize_name
from game.store import graph_repo, merge_log
from game.store import journal as journal_log
from game.store.damage import reading

if TYPE_CHECKING:
    from game.graph.models import Node
    from game.store.database import SaveDatabase
    from game.store.merge_log import MergeRecord, MergeReport


async def merges(db: SaveDatabase) -> list[MergeRecord]:
    """The merge log, oldest first (a damaged row is one ``SaveError`` naming the save)."""
    with reading(db.name):
        return await merge_log.read_merges(db.conn)


async def merge_nodes(db: SaveDatabase, keep_id: str, merged_id: str, *, strategy: str, evidence: str,
                      turn: int) -> MergeReport:
    """Fold ``merged_id`` into ``keep_id`` as ``plan_merge`` decides, in one transaction; the merge is
    journaled and logged. The graph only: a merge of people (their minds and the questions of identity
    about them) is ``game.features.identity.merging.merge_people``."""
    async with db.transaction() as conn:
        return await merge_log.merge_graph(conn, db.graph, keep_id, merged_id, strategy=strategy, evidence=evidence,
                                           turn=turn, vocabulary=await db.vocabulary())


async def add_alias(db: SaveDatabase, node_id: str, alias: str, turn: int) -> Node:
    """Declare another name for a node (identity rung 3: an explicit alias table), journaled at ``turn``."""
    nodes = await db.graph.get_nodes([node_id])
    if node_id not in nodes:
        raise SaveError(f"there is no node {node_id!r} in this save")
    node = nodes[node_id]
    if normalize_name(alias) in {normalize_name(n) for n in node.names}:
        return node
    updated = node.model_copy(update={"aliases": [*node.aliases, " ".join(alias.split())]})
    async with db.transaction() as conn:
        await journal_log.record(conn, [(turn, "node", node_id, journal_log.before_image(node))])
        await graph_repo.put_nodes(conn, [updated])
    return updated
