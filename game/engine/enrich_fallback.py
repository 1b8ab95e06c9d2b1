"""A turn's graph update when the narrator's own extractor failed or is off: the fast path over its narration.

The story already committed to what the narration says; a model that could not record it (World IR
failed, extractor error, ``memory_deadline`` passed, tools refused) should not leave the graph blind to
"Mira is afraid of Tomas" written in plain words. The fast path reads only such plain statements, with
a confidence below a model's, and marks each version it opens (``fast:turn-N``), so the turn stays in
the enrichment queue and a model's reading replaces them later (``game.engine.enrich``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from game.graph.endings import ReadEndings
from game.graph.ports import GraphReader, GraphWrites
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary


@dataclass(frozen=True)
class Fallback:
    """What the fast path kept of a turn: its writes, how the turn is marked, and a line for the player."""

    writes: GraphWrites
    extraction: str
    """``fast`` when the fast path read the narration (even if it found nothing to state), else ``none``."""
    opened: int = 0
    rejected: int = 0
    held: str | None = None
    """What the one rule for endings kept of what the narration said had ended (``ReadEndings.notice``)."""


async def fast_fallback(reader: GraphReader, vocabulary: Vocabulary, turn: int, narration: str, *,
                        rng: random.Random, witnesses: list[str], before: str = "", acted: str = "") -> Fallback:
    """The fast path's writes for ``narration`` at ``turn``, seen by ``witnesses`` like any turn's;
    ``before`` (the turns told just before) tells who is speaking to whom when the narration begins;
    ``acted``, what the player typed, is all that lets it end one of the world's own relations
    (``game.graph.endings``)."""
    from game.graph.fast_extract.apply import apply_fast  # compiles the patterns: only when needed

    if not narration.strip():
        return Fallback(GraphWrites(), "none")
    endings = ReadEndings(acted)
    execution = UpsertExecution(reader, vocabulary, turn, rng=rng, witnesses=witnesses, endings=endings)
    applied = await apply_fast(execution, narration, context=before)
    return Fallback(execution.writes, "fast", applied.opened, len(applied.rejected), endings.notice())


def fallback_notice(reason: str, fallback: Fallback) -> str:
    """What the player is told about a turn the model could not record."""
    reason = reason.strip().rstrip(".")
    if fallback.extraction != "fast":
        return f"The story went on, but the graph was not updated this turn: {reason}"
    kept = (f"{fallback.opened} relation(s) the narration plainly states were kept" if fallback.opened
            else "the narration states no relation plainly, so nothing was kept")
    return (f"The story went on, but the graph was not updated this turn by the model: {reason}. Read without a model "
            f"(the fast path), {kept}; the turn waits for a model to read it again (`kith graph enrich`)."
            + (f" {fallback.held}" if fallback.held else ""))


CONTEXT_TURNS = 12
"""How many turns told before are read for who is talking (a story imported turn by turn has one paragraph a turn)."""


def told_before(narrations: Iterable[str]) -> str:
    """The narrations of the last turns, oldest first, as the fast path's ``before``."""
    return "\n\n".join(list(narrations)[-CONTEXT_TURNS:])
