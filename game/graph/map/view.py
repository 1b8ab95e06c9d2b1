"""Which nodes and edges a map shows: the graph as it stood at a turn, closed versions or not, and the
selected node's neighbourhood when the whole graph would be too crowded to read.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from game.errors import InputError
from game.graph.models import Edge, Node
from game.graph.names import resolve_name

CELLS_PER_NODE = 60
"""About 25 nodes fit a 50x30 pane before names start to crowd each other out."""
MIN_CAPACITY = 6
NEIGHBOURHOOD_HOPS = 2


def edge_open_at(edge: Edge, turn: int | None) -> bool:
    """Whether this version held at ``turn`` (now, when ``turn`` is None)."""
    if turn is None:
        return edge.invalid_at is None
    return edge.valid_at <= turn and (edge.invalid_at is None or edge.invalid_at > turn)


def edge_closed_by(edge: Edge, turn: int | None) -> bool:
    """Whether this version had begun and already ended by ``turn``."""
    if edge.invalid_at is None:
        return False
    return turn is None or (edge.valid_at <= turn and edge.invalid_at <= turn)


def capacity(width: int, height: int) -> int:
    """How many nodes a pane of this size shows before it falls back to a neighbourhood."""
    return max(MIN_CAPACITY, (width * height) // CELLS_PER_NODE)


def focus_node(nodes: Iterable[Node], wanted: str) -> Node:
    """The node map focus means by ``wanted`` (an ID, name or alias, by ``resolve_name``'s rule)."""
    match = resolve_name(wanted, nodes, by_id=True)
    if match.ambiguous:
        raise InputError(f"{wanted!r} names more than one character: {match.choices()}. Use the ID.", "Map")
    if match.node is None:
        raise InputError(f"No character, group or faction called {wanted!r} in this save.", "Map")
    return match.node


@dataclass
class MapView:
    """What to draw, in the order names should claim space (most important first)."""

    nodes: list[Node]
    edges: list[Edge]
    focus: str | None = None
    hops: dict[str, int] = field(default_factory=dict)
    """Distance from the focus, for nodes within two hops (empty without a focus)."""
    degree: dict[str, int] = field(default_factory=dict)
    total: int = 0
    """Nodes that existed at the turn shown; more than ``len(nodes)`` when only a neighbourhood fits."""


def select_view(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    *,
    width: int,
    height: int,
    focus: str | None = None,
    show_closed: bool = False,
    at_turn: int | None = None,
) -> MapView:
    present = [n for n in nodes if at_turn is None or n.first_seen_turn <= at_turn]
    present_ids = {n.id for n in present}
    shown_edges = [
        e for e in edges
        if e.source in present_ids and e.target in present_ids
        and (edge_open_at(e, at_turn) or (show_closed and edge_closed_by(e, at_turn)))
    ]
    adjacency: dict[str, set[str]] = defaultdict(set)
    for edge in shown_edges:
        if edge.source != edge.target:
            adjacency[edge.source].add(edge.target)
            adjacency[edge.target].add(edge.source)
    degree = {n.id: len(adjacency[n.id]) for n in present}
    by_id = {n.id: n for n in present}

    focus_id: str | None = None
    if focus is not None:
        node = focus_node(nodes, focus)
        focus_id = node.id if node.id in present_ids else None

    hops = _distances(focus_id, adjacency) if focus_id else {}
    kept = list(present)
    limit = capacity(width, height)
    if len(present) > limit and present:
        centre = focus_id or _default_centre(present, degree)
        around = hops if centre == focus_id else _distances(centre, adjacency)
        ordered = sorted(around, key=lambda i: (around[i], -degree[i], by_id[i].name.casefold(), i))
        kept = [by_id[i] for i in ordered[:limit]]
    else:
        kept.sort(key=lambda n: (-degree[n.id], n.name.casefold(), n.id))
    if focus_id:
        kept.sort(key=lambda n: (hops.get(n.id, NEIGHBOURHOOD_HOPS + 1), -degree[n.id]))
    kept_ids = {n.id for n in kept}
    return MapView(
        nodes=kept,
        edges=[e for e in shown_edges if e.source in kept_ids and e.target in kept_ids],
        focus=focus_id,
        hops=hops,
        degree=degree,
        total=len(present),
    )


def _distances(start: str, adjacency: Mapping[str, set[str]]) -> dict[str, int]:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        if seen[current] == NEIGHBOURHOOD_HOPS:
            continue
        for other in sorted(adjacency.get(current, ())):
            if other not in seen:
                seen[other] = seen[current] + 1
                queue.append(other)
    return seen


def _default_centre(present: Sequence[Node], degree: Mapping[str, int]) -> str:
    """The player when there is one (their circle matters most), else the best-connected node."""
    for node in present:
        if node.attributes.get("player") is True:
            return node.id
    return max(present, key=lambda n: (degree[n.id], n.name.casefold(), n.id)).id
