"""Who knows what: each relation version has knowers, each with how, from whom and how sure.

A fact nobody on stage knows must not reach the narrator, and word must be able to travel between people
with a source and a fading confidence; so knowledge is kept per ``(edge_id, knower)`` beside the graph, not
folded into the edge. This module is pure: the rows, the rule that decides which of two learnings of one
fact is kept, and the default knowers of a new version. Storage lives in ``game.store``; the graph
index in ``game.graph.index``; the plain words (``PUBLIC``, ``How``, the floor) in
``game.graph.knowing_terms``.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import Field

from game.graph.knowing_terms import PUBLIC, How
from game.graph.models import CamelModel, Edge, Node


class Knowing(CamelModel):
    """One knower of one relation version. Keyed by ``(edge_id, knower)``."""

    edge_id: str
    knower: str
    how: How
    source: str | None = None
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    since_turn: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.edge_id, self.knower)


def keep_better(current: Knowing | None, learned: Knowing) -> Knowing:
    """Which row a knower keeps when learning a fact again: the higher confidence, on a tie the earlier.

    Learning something again never makes a knower less sure, and the first time they heard it stays the
    turn they knew it (so ``since_turn`` and ``source`` keep telling the true story for ``/why``).
    """
    if current is None:
        return learned
    if learned.confidence > current.confidence:
        return learned
    if learned.confidence == current.confidence and learned.since_turn < current.since_turn:
        return learned
    return current


def default_knowings(edge: Edge, ends: Iterable[Node], witnesses: Iterable[str], turn: int) -> list[Knowing]:
    """The knowers of a newly written version: its individual ends (``authored``), then each witness.

    Groups and factions know nothing themselves: their members learn things one by one.
    """
    rows: dict[str, Knowing] = {}
    for node in ends:
        if node.type == "individual" and node.id in (edge.source, edge.target):
            rows[node.id] = Knowing(edge_id=edge.id, knower=node.id, how="authored", confidence=1.0,
                                    since_turn=turn)
    for witness in witnesses:
        if witness not in rows:
            rows[witness] = Knowing(edge_id=edge.id, knower=witness, how="witnessed", confidence=1.0,
                                    since_turn=turn)
    return list(rows.values())


def public_knowing(edge_id: str, turn: int) -> Knowing:
    """The row saying everyone knows a version."""
    return Knowing(edge_id=edge_id, knower=PUBLIC, how="authored", confidence=1.0, since_turn=turn)
