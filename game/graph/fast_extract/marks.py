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
"""In an edge's ``evidenceTurnIds``: the version is a model's reading of that turn, written later."""


def fast_from(edge: Edge) -> int | None:
    """The turn whose narration the fast path read ``edge`` from, or None (a model's or an author's)."""
    return _marked(edge, FAST_PREFIX)


def enriched_from(edge: Edge) -> int | None:
    """The turn whose narration a model's later reading made ``edge`` from, or None."""
    return _marked(edge, ENRICHED_PREFIX)


def fast_closed_at(edge: Edge) -> int | None:
    """The turn whose narration the fast path read when it ended ``edge``, or None."""
    return _marked(edge, FAST_CLOSED_PREFIX)


def _marked(edge: Edge, prefix: str) -> int | None:
    for mark in edge.evidence_turn_ids:
        if mark.startswith(prefix) and mark.removeprefix(prefix).isdigit():
            return int(mark.removeprefix(prefix))
    return None
