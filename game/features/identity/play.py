"""What a merge in play changes besides the save's tables: the tiers it moves, and what the player knows.

A "yes" to "is the stranger Maud?" folds the stranger's attitude into Maud's (``game.features.identity.merging``,
inside the turn's transaction). If that moves how Maud stands toward the player (NEUTRAL to UNFRIENDLY),
the turn says so the way a told turn does: an ``AttitudeChanged`` event with the story's line when she is
on stage, the line stored at the end of the answer's narration (``MergeTiers``, a ``MergeSaid``: the
fold runs inside the turn's transaction, after its row is written, and the engine's commit step
(game/engine/save_store.py) adds the line before it ends the turn), and the game read back after
the merge holds the new attitude, so the world's tier conditions follow from the next turn on. "Before" is
the tier the player knew: the kept person's as the game stood before the answer (recorded, or what their
relations implied); "after" is theirs as the fold leaves it.

The answer's turn stores the scene as it is after the merge: what the player knew of the stranger is
known of Maud (``traces.fold_known``), so she is someone the player has met and heard of, and the
stranger's ID is known no more.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from game.features.attitudes.model import AttitudeBook
from game.features.feature import TierChange
from game.features.identity.traces import fold_known
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.names import normalize_name
from game.store.merge_log import MergeEntry, MergeReport
from game.world.scene import SceneState
from game.world.tiers import TIERS, Tier

MergeSaid = Callable[[Sequence[MergeReport]], str]
"""``said(reports)``: what a turn's story adds once its merges are folded (a tier line), "" for nothing.
Asked by the commit step inside the turn's transaction, after the merges; the turn's stored narration
ends with it, so the save says what the screen said and undo takes it back with the turn."""


def tiers_before(merges: Sequence[MergeEntry], book: AttitudeBook, graph: GraphIndex) -> dict[str, Tier]:
    """The kept person's tier, by node ID, for each merge that folds one node into another."""
    found: dict[str, Tier] = {}
    for merge in merges:
        kept = graph.nodes.get(merge.kept_id)
        if merge.merged_id is not None and kept is not None and kept.type == "individual":
            found[kept.id] = book.of(graph, kept).tier
    return found


@dataclass
class MergeTiers:
    """What the merges of an answer's turn say of the tiers they move: the ``MergeSaid`` its commit is
    handed (``SaveDatabase.commit_turn``). Called inside the turn's transaction once the minds are folded,
    it compares each kept person's tier (``MindSummary.tier``) with ``before``, keeps the changes for the
    turn's events, and returns the story's lines for those on stage (``cast``, by any of their names) to end the turn's narration:
    what the screen shows is what the save holds, and undo takes it back with the turn."""

    before: Mapping[str, Tier]
    cast: Sequence[str]
    lines: Callable[[str, Tier], str | None] | None
    changes: list[TierChange] = field(default_factory=list)
    said: dict[str, str] = field(default_factory=dict)
    """The line said of each change, by node ID (none when the person is off stage or the world is silent)."""

    def __call__(self, reports: Sequence[MergeReport]) -> str:
        self.changes.clear()
        self.said.clear()
        for report in reports:
            kept, now = report.kept, report.mind.tier if report.mind is not None else None
            was = self.before.get(kept.id)
            if was is None or now is None or now == was or now not in TIERS:
                continue
            self.changes.append(TierChange(kept.id, kept.name, was, now))
            line = self.lines(kept.name, now) if self.lines is not None and self._on_stage(kept) else None
            if line:
                self.said[kept.id] = line
        return "\n\n".join(self.said.values())

    def _on_stage(self, kept: Node) -> bool:
        """Whether the kept person is with the player: the stage may still call them by the merged
        person's name ("Captain Kettle" is on the steps, and is Bram), now one of the kept one's names."""
        here = {normalize_name(name) for name in self.cast}
        return any(normalize_name(name) in here for name in kept.names)


def known_after(merges: Sequence[MergeEntry], scene: SceneState, graph: GraphIndex) -> SceneState:
    """``scene`` with what the player knows of each merged person known of the kept one."""
    known = scene.known
    for merge in merges:
        kept = graph.nodes.get(merge.kept_id)
        if merge.merged_id is not None and kept is not None:
            known = fold_known(known, kept, merge.merged_id) or known
    return scene if known is scene.known else scene.model_copy(update={"known": known})
