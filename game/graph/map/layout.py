"""Node positions for the map: networkx's force-directed (spring) layout, incremental.

Nodes that already have a position are held in place and only new ones move, so a turn that adds a
character never reshuffles the map the player has learned. Positions live in the unit square, x to the
right and y downwards, and are what a save keeps between sessions.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from game.graph.models import Edge, Node

if TYPE_CHECKING:
    import networkx as nx

Position = tuple[float, float]

DEFAULT_SEED = 7
ITERATIONS = 60
NEIGHBOUR_JITTER = 0.08


def compute_layout(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    previous: Mapping[str, Position] | None = None,
    *,
    seed: int = DEFAULT_SEED,
    iterations: int = ITERATIONS,
) -> dict[str, Position]:
    """A position in [0, 1]² for every node; ``previous`` positions of present nodes are kept exactly.

    Deterministic for the same nodes, edges, previous positions and seed.
    """
    ids = sorted({node.id for node in nodes})
    previous = previous or {}
    fixed = {i: _clamp(previous[i]) for i in ids if i in previous}
    if len(fixed) == len(ids):
        return fixed
    graph = _graph(ids, edges)
    if not fixed:
        if len(ids) == 1:
            return {ids[0]: (0.5, 0.5)}
        raw = _spring(graph, None, None, seed, iterations)
        return normalise(raw)
    start = _starting_positions(ids, graph, fixed)
    raw = _spring(graph, start, sorted(fixed), seed, iterations)
    placed = {i: _clamp(raw[i]) for i in ids if i not in fixed}
    return {**fixed, **placed}


def _graph(ids: Sequence[str], edges: Sequence[Edge]) -> nx.Graph:
    """An undirected graph; stronger relations (of either sign) pull their ends closer."""
    import networkx as nx  # imported on first layout, so drawing from kept positions never pays for it

    graph = nx.Graph()
    graph.add_nodes_from(ids)
    known = set(ids)
    for edge in edges:
        if edge.source == edge.target or edge.source not in known or edge.target not in known:
            continue
        weight = 0.5 + abs(edge.strength)
        if graph.has_edge(edge.source, edge.target):
            weight = max(weight, graph[edge.source][edge.target]["weight"])
        graph.add_edge(edge.source, edge.target, weight=weight)
    return graph


def _starting_positions(ids: Sequence[str], graph: nx.Graph, fixed: Mapping[str, Position]) -> dict[str, Position]:
    """New nodes start beside the nodes they relate to, so the simulation settles them nearby."""
    start: dict[str, Position] = dict(fixed)
    for node_id in ids:
        if node_id in start:
            continue
        anchors = [start[other] for other in sorted(graph.neighbors(node_id)) if other in start]
        angle, radius = _hash_angle(node_id)
        if anchors:
            cx = sum(p[0] for p in anchors) / len(anchors)
            cy = sum(p[1] for p in anchors) / len(anchors)
            start[node_id] = _clamp((cx + NEIGHBOUR_JITTER * math.cos(angle),
                                     cy + NEIGHBOUR_JITTER * math.sin(angle)))
        else:
            start[node_id] = _clamp((0.5 + 0.45 * radius * math.cos(angle), 0.5 + 0.45 * radius * math.sin(angle)))
    return start


def _hash_angle(node_id: str) -> tuple[float, float]:
    """A stable pseudo-random direction and radius for an ID (``hash()`` differs between runs)."""
    value = zlib.crc32(node_id.encode("utf-8"))
    return (value % 3600) / 3600 * 2 * math.pi, 0.3 + ((value >> 12) % 1000) / 1000 * 0.7


def _spring(graph: nx.Graph, start: Mapping[str, Position] | None, fixed: list[str] | None,
            seed: int, iterations: int) -> dict[str, Position]:
    import networkx as nx

    raw = nx.spring_layout(graph, pos=start, fixed=fixed, seed=seed, iterations=iterations,
                           weight="weight", method="force")
    return {str(node): (float(xy[0]), float(xy[1])) for node, xy in raw.items()}


def normalise(raw: Mapping[str, Position]) -> dict[str, Position]:
    """Stretch each axis to fill [0, 1] so a wide pane is used edge to edge."""
    xs = [p[0] for p in raw.values()]
    ys = [p[1] for p in raw.values()]

    def scale(value: float, low: float, high: float) -> float:
        return 0.5 if high - low < 1e-9 else (value - low) / (high - low)

    return {i: (scale(x, min(xs), max(xs)), scale(y, min(ys), max(ys))) for i, (x, y) in raw.items()}


def _clamp(point: Position) -> Position:
    return (min(1.0, max(0.0, float(point[0]))), min(1.0, max(0.0, float(point[1]))))
