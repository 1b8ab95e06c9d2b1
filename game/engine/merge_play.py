"""What a merge in play changes besides the save's tables: the tiers it moves, and what the player knows.

A "yes" to "is the stranger Maud?" folds the stranger's attitude into Maud's (``game.mind.mind_merge``,
inside the store's transaction). If that moves how Maud stands toward the player (NEUTRAL to UNFRIENDLY),
the turn says so the way a told turn does: an ``AttitudeChanged`` event with the story's line when she is
on stage, and the game read back after the merge holds the new attitude, so the world's tier conditions
follow from the next turn on. "Before" is the tier the player knew: the kept person's as the game stood
before the answer (recorded, or what their relations implied); "after" is theirs once the merge is read
back.

The answer's turn stores the scene as it is after the merge: what the player knew of the stranger is
known of Maud (``merge_traces.fold_known``), so she is someone the player has met and heard of, and the
stranger's ID is known no more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from game.graph.memory import GraphIndex
from game.mind.attitude import AttitudeBook
from game.mind.attitude_turn import TierChange
from game.mind.merge_traces import fold_known
from game.store.pending import IdentityMerge
from game.world.scene import SceneState
from game.world.tiers import Tier


def tiers_before(merges: Sequence[IdentityMerge], book: AttitudeBook, graph: GraphIndex) -> dict[str, Tier]:
    """The kept person's tier, by node ID, for each merge that folds one node into another."""
    found: dict[str, Tier] = {}
    for merge in merges:
        kept = graph.nodes.get(merge.kept_id)
        if merge.merged_id is not None and kept is not None and kept.type == "individual":
            found[kept.id] = book.of(graph, kept).tier
    return found


def tier_changes(before: Mapping[str, Tier], book: AttitudeBook, graph: GraphIndex) -> list[TierChange]:
    """The changes from ``before`` to the game as read back after the merges (``book`` and ``graph``)."""
    changes: list[TierChange] = []
    for npc_id, was in before.items():
        kept = graph.nodes.get(npc_id)
        if kept is None or npc_id in graph.player_ids:
            continue
        now = book.of(graph, kept).tier
        if now != was:
            changes.append(TierChange(npc_id, kept.name, was, now))
    return changes


def known_after(merges: Sequence[IdentityMerge], scene: SceneState, graph: GraphIndex) -> SceneState:
    """``scene`` with what the player knows of each merged person known of the kept one."""
    known = scene.known
    for merge in merges:
        kept = graph.nodes.get(merge.kept_id)
        if merge.merged_id is not None and kept is not None:
            known = fold_known(known, kept, merge.merged_id) or known
    return scene if known is scene.known else scene.model_copy(update={"known": known})
