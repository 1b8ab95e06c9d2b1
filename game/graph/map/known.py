"""What one knower has learned of the graph, and the graph cut down to it for the map.

The renderer stays pure and knows nothing of knowledge: it is handed nodes and edges already cut down
to what a knower knows. Each is shown from the turn it was learned (a person heard of at turn 5 is not on
the map of turn 3, nor is a relation learned then), so time travel never shows what was learned later.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from game.graph.models import Edge, Node


@dataclass(frozen=True)
class KnownView:
    """What one knower knows: node id -> turn learned, version id -> turn learned, and for nodes whose
    description the knower sees differently from the stored summary, that description."""

    nodes: Mapping[str, int]
    edges: Mapping[str, int]
    summaries: Mapping[str, str] = field(default_factory=dict)


def known_graph(nodes: Iterable[Node], edges: Iterable[Edge],
                view: KnownView | None) -> tuple[list[Node], list[Edge]]:
    """The nodes and versions ``view`` knows (all of them when ``view`` is None), each from when it was
    learned; a version is shown only when both its ends are."""
    if view is None:
        return list(nodes), list(edges)
    shown: list[Node] = []
    for node in nodes:
        since = view.nodes.get(node.id)
        if since is None:
            continue
        first = max(node.first_seen_turn, since)
        update: dict[str, object] = {"first_seen_turn": first, "last_seen_turn": max(first, node.last_seen_turn)}
        if node.id in view.summaries:
            update["summary"] = view.summaries[node.id]
        shown.append(node.model_copy(update=update))
    ids = {node.id for node in shown}
    kept: list[Edge] = []
    for edge in edges:
        learned = view.edges.get(edge.id)
        if learned is None or edge.source not in ids or edge.target not in ids:
            continue
        valid = max(edge.valid_at, learned)
        if edge.invalid_at is not None:
            valid = min(valid, edge.invalid_at)  # learned only after it ended: known as ended
        kept.append(edge if valid == edge.valid_at else edge.model_copy(update={"valid_at": valid}))
    return shown, kept


def known_by_one(knower: str, learned: Mapping[str, int], edges: Iterable[Edge]) -> KnownView:
    """A view for someone whose awareness is derived from the facts they know (an NPC): themself, and
    the ends of every version they know, each from the earliest turn they learned something of it."""
    nodes: dict[str, int] = {knower: 0}
    for edge in edges:
        turn = learned.get(edge.id)
        if turn is None:
            continue
        for end in (edge.source, edge.target):
            nodes[end] = min(nodes.get(end, turn), turn)
    return KnownView(nodes, dict(learned))
