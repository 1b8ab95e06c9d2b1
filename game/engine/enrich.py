"""Enrichment: a model reads again the turns the fast path read, or nobody did, one turn at a time.

The queue is the turns stored with ``extracted = 0`` (marked ``fast`` or ``none``). For each, the
configured narrator is asked for the turn's World IR (the stored one when the World IR step had
succeeded) and runs its extractor at the current turn, as ``kith graph rebuild`` always did. Its result
REPLACES the fast path's versions of that turn: a relation the model states again supersedes the fast
version (a new version, ``supersedes``), and a fast version the model does not state is closed. It wins
the other way too: what the fast path ENDED reading that turn (``fast-closed:turn-N``: "no longer
trusts", or a value it read over an older one) is opened again, as a new version at the current turn,
unless the model ended it as well, or the relation was written again since, or a relation that excludes it
stands. Every version the model opens or puts back carries ``enriched:turn-N`` in its evidence. A fast
version the model states again UNCHANGED (same strength and fact: the upsert skips it) is confirmed
instead: the same version, its ``fast:turn-N`` traded for ``enriched:turn-N`` plus ``confirmed:turn-M`` (M
the turn of this reading); a fast close the model ends too, by a close, a new value or a relation that
excludes it, trades ``fast-closed:turn-N`` for ``enriched-closed:turn-N``. Both are written with the
reading's other writes, so undo restores the marks. The fast versions are found in the save by their
marks (``game.store.enrichment.fast_reading``, indexed), never by going through every open version.

Each turn commits on its own (``game.store.enrichment.commit_enrichment``, journaled at the current turn
with the turn's row), shielded from cancellation: Ctrl+C or a new turn starting stops the queue between two
turns or after a commit, never inside one, and the next run resumes with the turns still queued.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from game.engine.turn import TurnPipeline
from game.engine.turn_commit import commit_reading
from game.graph.endings import ReadEndings
from game.graph.models import Edge
from game.graph.ports import GraphWrites
from game.graph.upsert import UpsertExecution
from game.narrator.base import NarrationRequest, NarrationResult
from game.narrator.ir_extract import limit_closes, plausible_only
from game.store import enrichment
from game.store.database import SaveDatabase, TurnRecord
from game.world.ir import WorldIR

Extractor = Literal["fast", "model"]


@dataclass(frozen=True)
class Replaced:
    """What a model's reading of a turn did beside the fast path's reading of it."""

    fast: bool = False
    """Whether the fast path had read the turn (else nobody had)."""
    added: int = 0
    """Versions the model's reading opened."""
    confirmed: int = 0
    """Fast versions whose relation the model stated too (superseded by its version, or the same)."""
    replaced: int = 0
    """Fast versions the model did not state: closed."""
    reopened: int = 0
    """Relations the fast path ended that the model did not: opened again."""


@dataclass(frozen=True)
class Reading:
    """One queued turn read again: whether it worked, a line saying how, and the mark it now has."""

    number: int
    ok: bool
    line: str
    extraction: str
    writes: GraphWrites
    replaced: Replaced = Replaced()

    def story_note(self) -> str | None:
        """The one quiet line the story log gets for a turn a model read again (None when it failed, or
        the fast path read it: that is no news to the player)."""
        if not self.ok or self.extraction != "enriched":
            return None
        done = self.replaced
        if not done.fast:
            return f"Turn {self.number}'s relations were read by the model: {_count(done.added, 'relation')} recorded."
        parts = [f"{_count(done.confirmed, 'relation')} confirmed", f"{done.replaced} replaced"]
        if done.reopened:
            parts.append(f"{done.reopened} the fast reading had ended put back")
        return f"Turn {self.number}'s relations were read again by the model: {', '.join(parts)}."


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def new_execution(pipeline: TurnPipeline, label: str) -> UpsertExecution:
    """An execution at the current turn, seen by the player (who else stood on stage then is not kept)."""
    state = pipeline.state
    return UpsertExecution(state.graph, pipeline.vocabulary, state.turn,
                           rng=random.Random(f"{pipeline.seed}:{label}:{state.turn}"),
                           witnesses=sorted(state.graph.player_ids))


async def read_turn(db: SaveDatabase, pipeline: TurnPipeline, record: TurnRecord, execution: UpsertExecution,
                    extractor: Extractor = "model") -> tuple[bool, str, Replaced]:
    """Read ``record`` into ``execution`` with ``extractor``; on failure nothing of it stays buffered.

    Returns whether it worked, a line (without the turn number) saying how, and what it did beside the
    fast path's reading of the turn.
    """
    from game.graph.fast_extract.apply import apply_fast, mark_versions
    from game.graph.fast_extract.marks import ENRICHED_PREFIX

    saved = execution.writes.copy()
    before = set(execution.writes.created_edges)
    # Each turn read again is a reading of its text (unless the world's own story tells it), held to the
    # one rule for endings afresh: at most three a turn, the world's relations only by the player's act.
    authors = extractor == "model" and getattr(pipeline.narrator, "authors_endings", False)
    execution.endings = None if authors else ReadEndings(record.input)
    if extractor == "fast":
        applied = await apply_fast(execution, record.narration, read_turn=record.number)
        return True, f"read by the fast path ({applied.opened} relation(s))", Replaced()
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
            return False, f"still no World IR: {result.ir_error}", Replaced()
    else:
        # A stored World IR is held to the same rules as a fresh one (names, repeats, summaries, authored
        # summaries, relation endings): saves from before they existed may hold a looping model's junk.
        stored, _ = await plausible_only(stored, f"{record.input}\n{record.narration}", state.graph)
        stored, _ = limit_closes(stored)
        result = NarrationResult(stored, state.scene)
    said = len(execution.outcomes)
    report = await narrator.extract(request, result, execution)
    if not report.extracted:
        execution.writes = saved
        return False, f"still not extracted: {report.message}", Replaced()
    opened = set(execution.writes.created_edges) - before
    mark = f"{ENRICHED_PREFIX}{record.number}"
    mark_versions(execution, opened, mark)
    model = _ModelSaid.of(execution, said)
    fast = await enrichment.fast_reading(db, record.number)
    confirmed, replaced = replace_fast_versions(execution, fast.opened, record.number, model)
    reopened = await reopen_fast_closes(db, execution, fast.ended, record.number, model)
    done = Replaced(record.extraction == "fast", len(opened), confirmed, replaced, reopened)
    line = f"extracted ({report.calls} calls)"
    if replaced:
        line += f", {replaced} fast relation(s) replaced"
    if reopened:
        line += f", {reopened} relation(s) the fast path had ended put back"
    return True, line, done


@dataclass
class _ModelSaid:
    """The relations a model's reading stated and the ones it ended, by ``NormalizedRelation.key``."""

    stated: set[tuple[str, str, str]]
    ended: set[tuple[str, str, str]]
    kept: set[str] = field(default_factory=set)
    """The versions it stated again unchanged (the upsert skipped them: "unchanged relation")."""

    @classmethod
    def of(cls, execution: UpsertExecution, start: int) -> _ModelSaid:
        vocabulary = execution.vocabulary
        said = cls(set(), set())
        for outcome in execution.outcomes[start:]:
            if outcome.result is None:
                continue
            for edge in outcome.result.edges.results:
                if edge.id is not None and edge.source is not None and edge.target is not None:
                    said.stated.add(vocabulary.normalize(edge.relation).key(edge.source, edge.target))
                    if edge.skipped == "unchanged relation":
                        said.kept.add(edge.id)
            for closed in outcome.result.closed:
                explicit = closed.reason == "closed" or closed.skipped == "no open relation"
                if explicit and closed.source is not None and closed.target is not None:
                    said.ended.add(vocabulary.normalize(closed.relation).key(closed.source, closed.target))
        return said

    def ends(self, execution: UpsertExecution, edge: Edge) -> bool:
        """Whether this reading ends ``edge``'s relation too: it closed it, stated a value of it of its own
        (which stands in the old one's place), or stated a relation that cannot stand beside it."""
        key = _key(execution, edge)
        if key in self.ended or key in self.stated:
            return True
        vocabulary = execution.vocabulary
        return any(vocabulary.normalize(other).key(edge.source, edge.target) in self.stated
                   for other in vocabulary.excluded_by(edge.relation))


def _key(execution: UpsertExecution, edge: Edge) -> tuple[str, str, str]:
    return execution.vocabulary.normalize(edge.relation).key(edge.source, edge.target)


def replace_fast_versions(execution: UpsertExecution, stored: list[Edge], number: int,
                          model: _ModelSaid) -> tuple[int, int]:
    """Close every version the fast path read from turn ``number`` whose relation the model did not state
    (one it stated again was superseded by it already, or is the same: then it is confirmed, marked as the
    model's reading); returns (confirmed, closed).

    ``stored``: the turn's open fast versions in the save; the execution's own buffered ones (a rebuild
    reads many turns before it commits) are looked at too."""
    from game.graph.fast_extract.marks import confirmed as confirmed_version
    from game.graph.fast_extract.marks import fast_from

    buffered = [edge for edge in execution.writes.edges.values() if fast_from(edge) == number]
    confirmed = closed = 0
    for edge in {e.id: e for e in [*stored, *buffered]}.values():
        current = execution.writes.edges.get(edge.id, edge)
        if _key(execution, current) in model.stated:
            confirmed += 1
            if current.is_open and current.id in model.kept and fast_from(current) == number:
                # Restated unchanged, the upsert kept it: the same version is the model's reading now.
                execution.buffer.put_edge(confirmed_version(current, number, execution.turn),
                                          created=current.id in execution.writes.created_edges)
        elif current.is_open:
            execution.buffer.put_edge(current.model_copy(update={"invalid_at": execution.turn}))
            closed += 1
    return confirmed, closed


async def reopen_fast_closes(db: SaveDatabase, execution: UpsertExecution, ended: list[Edge], number: int,
                             model: _ModelSaid) -> int:
    """Open again, as new versions at the execution's turn, what the fast path's reading of turn
    ``number`` ended and the model's reading did not; returns how many.

    Left ended: a relation the model ended too (its close is then confirmed: ``enriched-closed:turn-N``),
    one written again since (a later turn's version), one open now, and one a relation that excludes it
    stands beside. The new version keeps the old one's strength, fact and knowers, and says why in its
    evidence (``enriched:turn-N``)."""
    from game.graph.fast_extract.marks import ENRICHED_PREFIX, close_confirmed, fast_closed_at

    reader, buffer, vocabulary = execution.reader, execution.buffer, execution.vocabulary
    reopened = 0
    done: set[tuple[str, str, str]] = set()
    for old in sorted(ended, key=lambda e: (e.invalid_at or 0, e.id), reverse=True):
        current = execution.writes.edges.get(old.id, old)
        if current.invalid_at is not None and fast_closed_at(current) == number and model.ends(execution, current):
            buffer.put_edge(close_confirmed(current, number), created=current.id in execution.writes.created_edges)
            done.add(_key(execution, current))  # the model ended it: neither it nor an older one comes back
    for old in sorted(ended, key=lambda e: (e.invalid_at or 0, e.id), reverse=True):
        key = _key(execution, old)
        if key in model.ended or key in done or old.invalid_at is None:
            continue
        done.add(key)  # the newest ended version of a relation is the one put back
        if len(await reader.get_nodes({old.source, old.target})) < len({old.source, old.target}):
            continue  # an end merged away since
        if any([await _open_now(execution, old.source, old.target, name)
                for name in [old.relation, *vocabulary.excluded_by(old.relation)]]):
            continue
        later = [v for v in await db.graph.edges_between(old.source, old.target)
                 if _key(execution, v) == key and v.valid_at > old.invalid_at]
        if later:
            continue
        edge = old.model_copy(update={
            "id": await execution.new_edge_id(old.relation), "valid_at": execution.turn, "invalid_at": None,
            "evidence_turn_ids": [f"turn-{execution.turn}", f"{ENRICHED_PREFIX}{number}"]})
        buffer.put_edge(edge, created=True)
        for knowing in (await reader.knowings_of([old.id])).get(old.id, {}).values():
            buffer.put_knowing(knowing.model_copy(update={"edge_id": edge.id, "since_turn": execution.turn}))
        reopened += 1
    return reopened


async def _open_now(execution: UpsertExecution, source: str, target: str, relation: str) -> bool:
    """Whether a version of ``relation`` between the two stands, in the save or this execution's writes."""
    normalized = execution.vocabulary.normalize(relation)
    for s, t in normalized.directions(source, target):
        found = await execution.reader.open_edges_between(s, t, normalized.name)
        for edge in [*found, *execution.buffer.edges_between(s, t, normalized.name)]:
            if execution.writes.edges.get(edge.id, edge).is_open:
                return True
    return False


def _readable(stored: dict[str, Any] | None) -> WorldIR | None:
    """A stored World IR, or None when there is none or it does not validate (a save edited by hand, or
    written before a limit existed): such a turn is asked for again rather than failing the rebuild."""
    if stored is None:
        return None
    try:
        return WorldIR.model_validate(stored)
    except ValidationError:
        return None


async def enrich_one(db: SaveDatabase, pipeline: TurnPipeline, record: TurnRecord,
                     extractor: Extractor = "model") -> Reading:
    """Read one queued turn and commit it on its own; the graph index follows only what was stored."""
    execution = new_execution(pipeline, f"enrich:{record.number}")
    ok, line, done = await read_turn(db, pipeline, record, execution, extractor)
    line = f"turn {record.number}: {line}"
    if not ok:
        return Reading(record.number, False, line, record.extraction, GraphWrites())
    extracted, extraction = (False, "fast") if extractor == "fast" else (True, "enriched")
    writes = execution.writes

    await commit_reading(db, pipeline.state, writes, [(record.number, extracted, extraction)])
    return Reading(record.number, True, line, extraction, writes, done)


async def queue(db: SaveDatabase, extractor: Extractor = "model") -> list[TurnRecord]:
    """The turns waiting to be read: for a model, every one not yet extracted; for the fast path, the
    ones nobody read at all."""
    pending = await enrichment.pending_extraction(db)
    return pending if extractor == "model" else [t for t in pending if t.extraction == "none"]


async def drain(db: SaveDatabase, pipeline: TurnPipeline, extractor: Extractor = "model") -> AsyncIterator[Reading]:
    """Read the queue oldest first, yielding each turn once it is committed (or failed, and left queued)."""
    for record in await queue(db, extractor):
        yield await enrich_one(db, pipeline, record, extractor)
