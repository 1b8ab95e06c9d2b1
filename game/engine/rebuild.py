"""The memory update run again for turns the story committed without one (``kith graph rebuild``).

A turn whose extraction failed (a model that never called its tool) or whose World IR could not be had
is stored marked not extracted; the story went on. Here each is extracted at the current turn (relations
it opens are new versions now), asking for the World IR again from the stored narration when it is
missing, and all that succeed commit together with their turns marked extracted.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import ValidationError

from game.engine.turn import TurnPipeline
from game.graph.upsert import UpsertExecution
from game.narrator.base import NarrationRequest, NarrationResult
from game.narrator.ir_extract import limit_closes, plausible_only
from game.store.database import SaveDatabase
from game.world.ir import WorldIR


async def reextract_pending(db: SaveDatabase, pipeline: TurnPipeline) -> list[str]:
    """Extract every pending turn of ``db`` into ``pipeline``'s game; returns a line per turn."""
    pending = await db.pending_extraction()
    if not pending:
        return []
    state, narrator = pipeline.state, pipeline.narrator
    # The player was there for every pending turn (who else stood on stage then is not kept).
    execution = UpsertExecution(state.graph, pipeline.vocabulary, state.turn,
                                rng=random.Random(f"{pipeline.seed}:rebuild:{state.turn}"),
                                witnesses=sorted(state.graph.player_ids))
    lines: list[str] = []
    done: list[int] = []
    for record in pending:
        request = NarrationRequest(turn=state.turn, player_input=record.input, npc_context=record.npc_context,
                                   scene=state.scene, graph=state.graph, history=tuple(state.history),
                                   seed=pipeline.seed + record.number)
        stored = _readable(record.world_ir)
        if stored is None:
            # The World IR step failed that turn (or what was stored no longer validates): ask for it
            # again from the stored narration, through the same checks as a turn's.
            result = await narrator.finish(request, record.narration)
            if result.ir_error:
                lines.append(f"turn {record.number}: still no World IR: {result.ir_error}")
                continue
        else:
            # A stored World IR is held to the same rules as a fresh one (names, repeats, summaries,
            # authored summaries, relation endings): saves from before they existed may hold a looping
            # model's junk.
            stored, _ = await plausible_only(stored, f"{record.input}\n{record.narration}", state.graph)
            stored, _ = limit_closes(stored)
            result = NarrationResult(stored, state.scene)
        saved = execution.writes.copy()
        report = await narrator.extract(request, result, execution)
        if report.extracted:
            done.append(record.number)
            lines.append(f"turn {record.number}: extracted ({report.calls} calls)")
        else:
            execution.writes = saved
            lines.append(f"turn {record.number}: still not extracted: {report.message}")
    if done:
        await db.commit_reextraction(execution.writes, state.turn, done)
        state.graph.apply(execution.writes)
    return lines


def _readable(stored: dict[str, Any] | None) -> WorldIR | None:
    """A stored World IR, or None when there is none or it does not validate (a save edited by hand, or
    written before a limit existed): such a turn is asked for again rather than failing the rebuild."""
    if stored is None:
        return None
    try:
        return WorldIR.model_validate(stored)
    except ValidationError:
        return None
