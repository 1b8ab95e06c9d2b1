"""How a relation version says who read it: the fast path, or a model reading a turn later.

Kept apart from the extractor (whose patterns take a quarter of a second to compile) so that ``/why``
and the command line can tell the marks without loading it.
"""

from __future__ import annotations

from game.graph.models import Edge

FAST_PREFIX = "fast:turn-"
"""In an edge's ``evidenceTurnIds``: the version is the fast path's reading of that turn's narration."""
FAST_CLOSED_PREFIX = "fast-closed:turn-"
"""In a CLOSED version's ``evidenceTurnIds``: the fast path's reading of that turn ended it (a close, an
exclusion, a new value superseding it). A model reading the turn later and not ending it too reopens it."""
ENRICHED_PREFIX = "enriched:turn-"
"""In an edge's ``evidenceTurnIds``: the version is a model's reading of that turn, written later, or the fast
path's reading of it that a model's later reading stated again unchanged (then ``confirmed:turn-M`` follows)."""
CONFIRMED_PREFIX = "confirmed:turn-"
"""Beside ``enriched:turn-N`` in a version the fast path opened: a model's reading of turn N, made at turn M,
stated the relation again with the same strength and fact, so the version (its id, value and validity kept)
is the model's now. It REPLACES ``fast:turn-N``: every reader of the fast mark (``/why``, the enrichment
lookup ``game.store.fast_marks``) then takes it for a model's, and no later reading ends it as the fast
path's own."""
ENRICHED_CLOSED_PREFIX = "enriched-closed:turn-"
"""In a CLOSED version's ``evidenceTurnIds``, replacing ``fast-closed:turn-N``: the fast path's reading of
turn N ended it and a model's later reading of that turn ended it too (or stated a value or a relation that
ends it), so the end is confirmed and never put back."""


def fast_from(edge: Edge) -> int | None:
    """The turn whose narration the fast path read ``edge`` from, or None (a model's or an author's)."""
    return _marked(edge, FAST_PREFIX)


def enriched_from(edge: Edge) -> int | None:
    """The turn whose narration a model's later reading made ``edge`` from, or None."""
    return _marked(edge, ENRICHED_PREFIX)


def fast_closed_at(edge: Edge) -> int | None:
    """The turn whose narration the fast path read when it ended ``edge``, or None."""
    return _marked(edge, FAST_CLOSED_PREFIX)


def confirmed_at(edge: Edge) -> int | None:
    """The turn at which a model's reading confirmed ``edge``, a version the fast path had read, or None."""
    return _marked(edge, CONFIRMED_PREFIX)


def enriched_closed_at(edge: Edge) -> int | None:
    """The turn whose narration both the fast path and a model's later reading ended ``edge`` by, or None."""
    return _marked(edge, ENRICHED_CLOSED_PREFIX)


def confirmed(edge: Edge, number: int, at: int) -> Edge:
    """``edge``, a version the fast path read from turn ``number``, confirmed by a model's reading at turn
    ``at``: its mark traded for the model's (in place, so the list keeps its order) and the turn added."""
    marks = [f"{ENRICHED_PREFIX}{number}" if mark == f"{FAST_PREFIX}{number}" else mark
             for mark in edge.evidence_turn_ids]
    return edge.model_copy(update={"evidence_turn_ids": [*dict.fromkeys([*marks, f"{CONFIRMED_PREFIX}{at}"])]})


def close_confirmed(edge: Edge, number: int) -> Edge:
    """``edge``, a version the fast path's reading of turn ``number`` ended, with that end confirmed by a
    model's reading of the same turn."""
    marks = [f"{ENRICHED_CLOSED_PREFIX}{number}" if mark == f"{FAST_CLOSED_PREFIX}{number}" else mark
             for mark in edge.evidence_turn_ids]
    return edge.model_copy(update={"evidence_turn_ids": list(dict.fromkeys(marks))})


def _marked(edge: Edge, prefix: str) -> int | None:
    for mark in edge.evidence_turn_ids:
        if mark.startswith(prefix) and mark.removeprefix(prefix).isdigit():
            return int(mark.removeprefix(prefix))
    return None
