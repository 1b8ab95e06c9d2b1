"""The one commit of a turn, and the events of a committed turn, derived once from what was committed.

Every kind of turn ends here: a told turn, a telling that replaces one, a command kept as a turn
(``/relationship NAME set ...``, ``/knowledge NAME add ...``) and an answer to a question asked. Each
builds a ``FinishedTurn``; the pipeline hands it to its store (``TurnStore``), shielded so that once the
store starts it finishes, and the game in play follows only what was kept. What the front ends are then told (the
reply, the tier changes, the graph's changes, ``TurnCommitted``, the notices, an ending) is read from that
same ``FinishedTurn`` by ``committed_events``, so no kind of turn tells its commit its own way. A reading
of past turns (enrichment) tells no new turn; it commits through ``commit_reading``, shielded the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from game.engine.changes import summarize_writes
from game.engine.events import (
    AttitudeChanged,
    Event,
    GameEnded,
    GraphChanged,
    MetaOutput,
    Notice,
    TurnCommitted,
)
from game.engine.play_state import PlayState
from game.features.feature import MergeSaid, TierChange
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.narrator.base import ExtractionReport, NarrationResult
from game.store import enrichment
from game.store.database import SaveDatabase, TurnRecord
from game.store.merge_log import MergeEntry
from game.store.rows import RowWrite
from game.store.told_log import Told

T = TypeVar("T")


@dataclass(frozen=True)
class FinishedTurn:
    """Everything one turn produced, before it is stored: what the store keeps and what the player is told."""

    record: TurnRecord
    writes: GraphWrites
    result: NarrationResult
    report: ExtractionReport
    told: tuple[Told, ...] = ()
    """The turn's gossip exchanges; their knower rows are already in ``writes``."""
    rows: tuple[RowWrite, ...] = ()
    """Rows of other features' tables the turn changed (attitudes, memories...), stored and undone with it."""
    merges: tuple[MergeEntry, ...] = ()
    """Merge-log entries the turn writes (names assumed) and people it folds together (an answer's "yes"),
    in the same transaction (``Registry.merge_people``)."""
    mode: str = "tell"
    """How it was told (``NarrationRequest.mode``): ``story`` is the player's own writing (Story mode)."""
    said: MergeSaid | None = None
    """What the story adds once ``merges`` are folded (a tier line), asked inside the commit's transaction."""
    tiers: tuple[TierChange, ...] = ()
    """The attitude tiers the turn moved (told or set by hand), each told to the player once committed."""
    spoken: Mapping[str, str] = field(default_factory=dict)
    """The story's line for each of ``tiers``, by node ID (none for someone off stage)."""
    reply: MetaOutput | None = None
    """A command's (or an answer's) reply: shown first, before what the commit changed."""
    notices: tuple[Notice, ...] = ()
    """What the player should know of the turn that is not story (a fallback, an ending read from text)."""


class TurnStore(Protocol):
    """Where a finished turn is kept. Raising means nothing of it was kept (the pipeline reports it)."""

    folds_people: bool
    """Whether it merges the people an answer's turn folds (a save does; a game in memory does not, and
    there the player's lines are never taken as answers)."""

    async def commit(self, turn: FinishedTurn) -> PlayState | None:
        """Keep ``turn``; returns the game as now kept when the commit changed more than the turn's own
        writes say (people merged, minds folded: the game in play cannot follow by applying the turn), else None."""


async def shielded(step: Awaitable[T]) -> T:
    """``step`` finished whatever happens to the caller: a commit interrupted is a commit completed (however
    often Esc is pressed), and the caller's cancellation is raised once it has."""
    task = asyncio.ensure_future(step)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    result = task.result()  # a failed step raises here
    if cancelled:
        raise asyncio.CancelledError
    return result


async def commit_reading(db: SaveDatabase, state: PlayState, writes: GraphWrites,
                         marks: Sequence[tuple[int, bool, str]]) -> None:
    """The commit of an enrichment: turns told before, read again (``kith graph enrich``/``rebuild``, the
    background queue). It tells no new turn, so it is journaled at the current one (undo takes it back with
    that turn); shielded like a turn's commit, and the graph index follows only what was stored."""
    async def keep() -> None:
        await enrichment.commit_enrichment(db, writes, state.turn, marks)
        state.graph.apply(writes)

    await shielded(keep())


def committed_events(finished: FinishedTurn, nodes: Mapping[str, Node],
                     ending_title: Callable[[str], str]) -> list[Event]:
    """What a front end is told of a committed turn, in order, from what was committed: the reply, each
    tier moved (by the turn, or by the merges its commit folded), the graph's changes (``nodes``: the graph
    as it now is, for the names), the commit itself, the notices and the story's ending."""
    record, turn = finished.record, finished.record.number
    events: list[Event] = [finished.reply] if finished.reply is not None else []
    spoken = dict(finished.spoken)
    tiers = list(finished.tiers)
    if finished.said is not None:  # the fold's own changes, known once it ran
        tiers += finished.said.changes
        spoken.update(finished.said.said)
    events += [AttitudeChanged(turn, c.name, c.before, c.after, spoken.get(c.npc_id, "")) for c in tiers]
    changes = summarize_writes(finished.writes, nodes, turn)
    if changes:
        events.append(GraphChanged(turn, changes))
    events.append(TurnCommitted(turn, finished.report.extracted, record.timings, record.extraction,
                                dict(finished.report.usage)))
    events += finished.notices
    ending = finished.result.scene.ending
    if ending and finished.reply is None:  # a command after the end keeps the scene, not a new ending
        events.append(GameEnded(ending, ending_title(ending)))
    return events
