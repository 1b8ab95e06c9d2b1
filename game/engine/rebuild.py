"""The graph update run again for turns the story committed without one (``kith graph rebuild``).

A turn whose extraction failed (a model that never called its tool) or whose World IR could not be had
is stored marked not extracted; the story went on, and the fast path kept what the narration plainly
states. Here each such turn is read again (``game.engine.enrich.read_turn``) at the current turn
(relations it opens are new versions now): by the configured narrator's model (``model``, the default),
whose reading replaces the fast path's versions of the turn, or by the fast path alone (``fast``) for
the turns nothing read yet. All that succeed commit together with their new marks, and the changes are
returned as a diff against the graph before (added, changed, closed relations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.engine.changes import summarize_writes
from game.engine.enrich import Extractor, new_execution, queue, read_turn
from game.engine.turn import TurnPipeline
from game.engine.turn_commit import commit_reading
from game.graph.ports import GraphWrites
from game.store.database import SaveDatabase

IMPORTED_TURNS_KEY = "imported_turns"
"""Meta key: the number of turns an imported story holds (they come first in the save)."""
DIFF_KINDS = {"edge-opened": "added", "edge-superseded": "changed", "edge-closed": "closed",
              "node-created": "people"}


@dataclass
class Rebuilt:
    """What a rebuild did: a line per turn, the turns it read, and the diff against the graph before."""

    lines: list[str] = field(default_factory=list)
    done: list[int] = field(default_factory=list)
    diff: dict[str, list[str]] = field(default_factory=lambda: {kind: [] for kind in DIFF_KINDS.values()})

    def diff_json(self) -> dict[str, Any]:
        return {kind: list(lines) for kind, lines in self.diff.items()}

    def diff_text(self) -> str:
        """The diff as a person reads it: one line a change, ``+`` added, ``~`` changed, ``-`` closed."""
        marks = {"people": "new person:", "added": "+", "changed": "~", "closed": "-"}
        lines = [f"  {marks[kind]} {line}" for kind in ("people", "added", "changed", "closed")
                 for line in self.diff[kind]]
        counts = ", ".join(f"{len(self.diff[kind])} {kind}" for kind in ("added", "changed", "closed"))
        return "\n".join([f"Changes to the graph: {counts}.", *lines])


async def rebuild(db: SaveDatabase, pipeline: TurnPipeline, extractor: Extractor = "model") -> Rebuilt:
    """Read every queued turn of ``db`` into ``pipeline``'s game with ``extractor``, committed together."""
    rebuilt = Rebuilt()
    pending = await queue(db, extractor)
    if not pending:
        return rebuilt
    state = pipeline.state
    execution = new_execution(pipeline, "rebuild")
    # The offline story engine can tell its own turns again, never a story's: it would read the story's
    # paragraph labels as commands and replace what the fast path read with nothing.
    imported = imported_turns(await db.meta()) if _offline(pipeline) else 0
    failed: tuple[int, str] | None = None  # the last turn that failed, and why
    for record in pending:
        if record.number <= imported:
            rebuilt.lines.append(f"turn {record.number}: imported from a story; only a model can read it again")
            continue
        ok, line, _ = await read_turn(db, pipeline, record, execution, extractor)
        rebuilt.lines.append(f"turn {record.number}: {line}")
        if ok:
            rebuilt.done.append(record.number)
        elif failed is not None and failed[1] == line:
            # A server that is down or refuses fails every turn alike (as `kith graph enrich` stops too):
            # asking it for each of hundreds of turns, each maybe waiting out the timeout, helps nobody.
            rebuilt.lines.append(f"Stopped: turns {failed[0]} and {record.number} failed alike; the rest stay "
                                 "queued. Fix the model server and run it again.")
            break
        failed = None if ok else (record.number, line)
    if rebuilt.done:
        extracted, extraction = (False, "fast") if extractor == "fast" else (True, "enriched")
        nodes = {**state.graph.nodes, **execution.writes.nodes}
        await commit_reading(db, state, execution.writes, [(n, extracted, extraction) for n in rebuilt.done])
        rebuilt.diff = _diff(execution.writes, nodes, state.turn)
    return rebuilt


def imported_turns(meta: dict[str, str]) -> int:
    """How many of a save's first turns ``kith import-story`` wrote (0 for a played game)."""
    value = meta.get(IMPORTED_TURNS_KEY, "0")
    return int(value) if value.isdigit() else 0


def _offline(pipeline: TurnPipeline) -> bool:
    from game.narrator.offline import OfflineNarrator

    return isinstance(pipeline.narrator, OfflineNarrator)


def _diff(writes: GraphWrites, nodes: dict[str, Any], turn: int) -> dict[str, list[str]]:
    from game.graph.fast_extract.marks import enriched_closed_at

    # A fast end the model confirmed (``enriched-closed``) was already ended before: only its marks
    # changed, though its end may be dated this very turn. No version closed here carries that mark.
    changed = writes.copy()
    for edge_id in [i for i, e in changed.edges.items()
                    if i not in changed.created_edges and enriched_closed_at(e) is not None]:
        del changed.edges[edge_id]
    diff: dict[str, list[str]] = {kind: [] for kind in DIFF_KINDS.values()}
    for change in summarize_writes(changed, nodes, turn):
        diff[DIFF_KINDS[change.kind]].append(change.text)
    return diff

