"""The fast path written into an upsert execution, with every version it opens marked as its own.

A turn whose model extractor failed, a story imported from text and ``kith graph rebuild --extractor
fast`` all take this one path: read the text against the save's names (plus the nodes the execution
has buffered), run the triples and closes as ordinary upsert calls, and mark each version opened here
with ``fast:turn-N`` (``FAST_PREFIX``, N the turn read) in its ``evidenceTurnIds``; a version it ends
(closed, excluded, superseded) gets ``fast-closed:turn-N``. The mark is what lets enrichment later find exactly
the fast path's versions of a turn and replace them, and what lets ``/why`` say a fact is only read
from the narration. The extractor's patterns compile on first import (a quarter of a second), so
callers import this module lazily.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.graph.fast_extract.extractor import FastExtractor
from game.graph.fast_extract.gazetteer import Gazetteer
from game.graph.fast_extract.marks import FAST_CLOSED_PREFIX, FAST_PREFIX
from game.graph.fast_extract.results import Extraction
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary


@dataclass
class FastApplied:
    """What the fast path wrote into an execution: how many calls ran, were refused, and what was read."""

    extraction: Extraction
    calls: int = 0
    rejected: list[str] = field(default_factory=list)

    @property
    def opened(self) -> int:
        return len(self.extraction.triples)


_EXTRACTORS: dict[str, FastExtractor] = {}
_KEPT_EXTRACTORS = 8


def extractor_for(vocabulary: Vocabulary) -> FastExtractor:
    """A fast extractor over ``vocabulary``'s relations, built once per vocabulary in a process.

    Keyed by what the vocabulary says, not by the object: each turn reads its vocabulary afresh, and a
    ``Vocabulary`` is unhashable, so an object key never hit. Building the patterns compiles hundreds of
    expressions (more than ``re``'s own cache keeps): every paragraph of an imported story paid it."""
    key = repr(sorted(vocabulary.relations.items()))
    extractor = _EXTRACTORS.get(key)
    if extractor is None:
        if len(_EXTRACTORS) >= _KEPT_EXTRACTORS:
            _EXTRACTORS.pop(next(iter(_EXTRACTORS)))
        extractor = _EXTRACTORS[key] = FastExtractor(vocabulary)
    return extractor


async def apply_fast(execution: UpsertExecution, text: str, read_turn: int | None = None,
                     context: str = "") -> FastApplied:
    """Read ``text`` (the narration of ``read_turn``, by default the execution's turn) with the fast path
    and write what it plainly states through ``execution``; ``context``, what was told just before, says
    only who is talking to whom as ``text`` begins."""
    gazetteer = Gazetteer(execution.reader, execution.writes.nodes.values())
    index = await gazetteer.index_for(f"{context}\n\n{text}" if context else text)
    extraction = extractor_for(execution.vocabulary).extract(text, index, context)
    applied = FastApplied(extraction)
    before = set(execution.writes.created_edges)
    ended = {i for i, e in execution.writes.edges.items() if not e.is_open}
    for call in extraction.upsert_calls():
        outcome = await execution.run(call)
        applied.calls += 1
        if outcome.error:
            applied.rejected.append(outcome.error)
    number = execution.turn if read_turn is None else read_turn
    created = set(execution.writes.created_edges)
    mark_versions(execution, created - before, f"{FAST_PREFIX}{number}")
    # What this reading ended of what stood before it: a model reading the turn later may put it back.
    closed = {i for i, e in execution.writes.edges.items() if not e.is_open and i not in created} - ended
    mark_versions(execution, closed, f"{FAST_CLOSED_PREFIX}{number}", created=False)
    return applied


def mark_versions(execution: UpsertExecution, edge_ids: set[str], mark: str, *, created: bool = True) -> None:
    """Add ``mark`` to the evidence of the buffered versions ``edge_ids`` (those this execution opened, or
    with ``created=False`` stored versions it changed)."""
    for edge_id in sorted(edge_ids):
        edge = execution.writes.edges.get(edge_id)
        if edge is None or mark in edge.evidence_turn_ids:
            continue
        execution.buffer.put_edge(edge.model_copy(update={"evidence_turn_ids": [*edge.evidence_turn_ids, mark]}),
                                  created=created)
