"""Enrichment: a model reads again the turns the fast path read, or nobody did, one turn at a time.

The queue is the turns stored with ``extracted = 0`` (marked ``fast`` or ``none``). For each, the
configured narrator is asked for the turn's World IR (the stored one when the World IR step had
succeeded) and runs its extractor at the current turn, as ``kith graph rebuild`` always did. Its result
REPLACES the fast path's versions of that turn: a relation the model states again supersedes the fast
version (a new version, ``supersedes``), and a fast version the model does not state is closed. Every
version the model opens carries ``enriched:turn-N`` in its evidence.

Each turn commits on its own (``SaveDatabase.commit_enrichment``, journaled at the current turn with
the turn's row), shielded from cancellation: Ctrl+C or a new turn starting stops the queue between two
turns or after a commit, never inside one, and the next run resumes with the turns still queued.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import ValidationError

from game.engine.turn import TurnPipeline
from game.graph.memory import GraphIndex
from game.graph.ports import GraphWrites
from game.graph.upsert import UpsertExecution
from game.narrator.base import NarrationRequest, NarrationResult
from game.narrator.ir_extract import limit_closes, plausible_only
from game.store.database import SaveDatabase, TurnRecord
from game.world.ir import WorldIR

Extractor = Literal["fast", "model"]
T = TypeVar("T")


@dataclass(frozen=True)
class Reading:
    """One queued turn read again: whether it worked, a line saying how, and the mark it now has."""

    number: int
    ok: bool
    line: str
    extraction: str
    writes: GraphWrites


def new_execution(pipeline: TurnPipeline, label: str) -> UpsertExecution:
    """An execution at the current turn, seen by the player (who else stood on stage then is not kept)."""
    state = pipeline.state
    return UpsertExecution(state.graph, pipeline.vocabulary, state.turn,
                           rng=random.Random(f"{pipeline.seed}:{label}:{state.turn}"),
                           witnesses=sorted(state.graph.player_ids))


async def read_turn(pipeline: TurnPipeline, record: TurnRecord, execution: UpsertExecution,
                    extractor: Extractor = "model") -> tuple[bool, str]:
    """Read ``record`` into ``execution`` with ``extractor``; on failure nothing of it stays buffered.

    Returns whether it worked and a line (without the turn number) saying how.
    """
    from game.graph.fast_extract.apply import apply_fast, mark_versions
    from game.graph.fast_extract.marks import ENRICHED_PREFIX

    saved = execution.writes.copy()
    before = set(execution.writes.created_edges)
    if extractor == "fast":
        applied = await apply_fast(execution, record.narration, read_turn=record.number)
        return True, f"read by the fast path ({applied.opened} relation(s))"
    state, narrator = pipeline.state, pipeline.narrator
    request = NarrationRequest(turn=state.turn, player_input=record.input, npc_context=record.npc_context,
                               scene=state.scene, graph=state.graph, history=tuple(state.history),
                               seed=pipeline.seed + record.number)
    stored = _readable(record.world_ir)
    if stored is None:
        # The World IR step failed that turn (or what was stored no longer validates): ask for it again
        # from the stored narration, through the same checks as a turn's.
        result = await narrator.finish(request, record.narration)
        if result.ir_error:
            return False, f"still no World IR: {result.ir_error}"
    else:
        # A stored World IR is held to the same rules as a fresh one (names, repeats, summaries, authored
        # summaries, relation endings): saves from before they existed may hold a looping model's junk.
        stored, _ = await plausible_only(stored, f"{record.input}\n{record.narration}", state.graph)
        stored, _ = limit_closes(stored)
        result = NarrationResult(stored, state.scene)
    report = await narrator.extract(request, result, execution)
    if not report.extracted:
        execution.writes = saved
        return False, f"still not extracted: {report.message}"
    mark_versions(execution, set(execution.writes.created_edges) - before, f"{ENRICHED_PREFIX}{record.number}")
    replaced = replace_fast_versions(execution, state.graph, record.number)
    return True, f"extracted ({report.calls} calls)" + (f", {replaced} fast relation(s) replaced" if replaced else "")


def _readable(stored: dict[str, Any] | None) -> WorldIR | None:
    """A stored World IR, or None when there is none or it does not validate (a save edited by hand, or
    written before a limit existed): such a turn is asked for again rather than failing the rebuild."""
    if stored is None:
        return None
    try:
        return WorldIR.model_validate(stored)
    except ValidationError:
        return None


def replace_fast_versions(execution: UpsertExecution, graph: GraphIndex, number: int) -> int:
    """Close every version the fast path read from turn ``number`` that is still open after the model's
    reading (one the model stated again was superseded by it already); returns how many it closed."""
    from game.graph.fast_extract.marks import fast_from

    closed = 0
    stored = [edge for edge in graph.open_edges.values() if fast_from(edge) == number]
    buffered = [edge for edge in execution.writes.edges.values() if fast_from(edge) == number]
    for edge in {e.id: e for e in [*stored, *buffered]}.values():
        current = execution.writes.edges.get(edge.id, edge)
        if current.is_open:
            execution.buffer.put_edge(current.model_copy(update={"invalid_at": execution.turn}))
            closed += 1
    return closed


async def enrich_one(db: SaveDatabase, pipeline: TurnPipeline, record: TurnRecord,
                     extractor: Extractor = "model") -> Reading:
    """Read one queued turn and commit it on its own; memory follows only what was stored."""
    execution = new_execution(pipeline, f"enrich:{record.number}")
    ok, line = await read_turn(pipeline, record, execution, extractor)
    line = f"turn {record.number}: {line}"
    if not ok:
        return Reading(record.number, False, line, record.extraction, GraphWrites())
    extracted, extraction = (False, "fast") if extractor == "fast" else (True, "enriched")
    writes = execution.writes

    async def commit() -> None:
        await db.commit_enrichment(writes, pipeline.state.turn, [(record.number, extracted, extraction)])
        pipeline.state.graph.apply(writes)  # memory follows the store, inside the shield with it

    await _shielded(commit())
    return Reading(record.number, True, line, extraction, writes)


async def queue(db: SaveDatabase, extractor: Extractor = "model") -> list[TurnRecord]:
    """The turns waiting to be read: for a model, every one not yet extracted; for the fast path, the
    ones nobody read at all."""
    pending = await db.pending_extraction()
    return pending if extractor == "model" else [t for t in pending if t.extraction == "none"]


async def drain(db: SaveDatabase, pipeline: TurnPipeline, extractor: Extractor = "model") -> AsyncIterator[Reading]:
    """Read the queue oldest first, yielding each turn once it is committed (or failed, and left queued)."""
    for record in await queue(db, extractor):
        yield await enrich_one(db, pipeline, record, extractor)


async def _shielded(step: Awaitable[T]) -> T:
    """``step`` finished whatever happens to the caller: a commit interrupted is a commit completed."""
    task = asyncio.ensure_future(step)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    result = task.result()
    if cancelled:
        raise asyncio.CancelledError
    return result
