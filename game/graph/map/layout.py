"""Node positions for the map: a force-directed (Fruchterman-Reingold) layout, incremental.

Nodes that already have a position are held in place and only new ones move, so a turn that adds a
character never reshuffles the map the player has learned. Positions live in the unit square, x to the
right and y downwards, and are what a save keeps between sessions.

The simulation is networkx's ``spring_layout(method="force")`` (same start, same forces, same cooling,
so the same positions), rewritten over NumPy arrays because the map redraws on the UI's clock: building
a networkx graph and an adjacency matrix each turn cost more than the simulation, and networkx works out
the forces on every node and then throws away those of the nodes that are held. Here only the nodes that
move are simulated: a newcomer beside 200 placed nodes costs 200 pairs per step, not 40,000.

Past ``DENSE_PAIRS`` pairs (about 500 nodes laid out afresh) the all-pairs arrays would grow with the
square of the graph (4,000 nodes: 17 s and 833 MB), so large graphs are laid out by
``sparse_layout.simulate_sparse`` instead: the same forces over an edge list and a grid, in time and
memory that grow with the graph, not its square.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from game.graph.models import Edge, Node

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float64]

Position = tuple[float, float]

DEFAULT_SEED = 7
ITERATIONS = 60
NEIGHBOUR_JITTER = 0.08
THRESHOLD = 1e-4
"""Stop early once the average step is this small (networkx's default)."""
DENSE_PAIRS = 250_000
"""Moving nodes times all nodes up to which the exact all-pairs simulation runs (a few MB of arrays)."""


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
    if not fixed and len(ids) == 1:
        return {ids[0]: (0.5, 0.5)}
    import numpy as np  # imported on first layout, so drawing from kept positions never pays for it

    index = {node_id: at for at, node_id in enumerate(ids)}
    pairs = _pairs(index, edges)
    neighbours: dict[str, list[str]] = {node_id: [] for node_id in ids}
    for (a, b) in pairs:
        neighbours[ids[a]].append(ids[b])
        neighbours[ids[b]].append(ids[a])
    if not fixed:
        start = np.random.RandomState(seed).rand(len(ids), 2)
        raw = _run(pairs, start, np.arange(len(ids)), math.sqrt(1.0 / len(ids)), iterations)
        return normalise({node_id: (float(raw[at, 0]), float(raw[at, 1])) for at, node_id in enumerate(ids)})
    begin = _starting_positions(ids, neighbours, fixed)
    start = np.array([begin[node_id] for node_id in ids], dtype=np.float64)
    moving = np.array([at for at, node_id in enumerate(ids) if node_id not in fixed])
    # As networkx does with held nodes: the ideal distance follows the size of the domain already laid out.
    domain = float(start.max()) or 1.0
    raw = _run(pairs, start, moving, domain / math.sqrt(len(ids)), iterations)
    placed = {ids[at]: _clamp((raw[at, 0], raw[at, 1])) for at in moving.tolist()}
    return {**fixed, **placed}


def _pairs(index: Mapping[str, int], edges: Sequence[Edge]) -> dict[tuple[int, int], float]:
    """Each related pair once (lower index first) with its weight: stronger relations, of either sign,
    pull their ends closer; of several relations between two people the strongest counts."""
    pairs: dict[tuple[int, int], float] = {}
    for edge in edges:
        a, b = index.get(edge.source), index.get(edge.target)
        if a is None or b is None or a == b:
            continue
        key = (a, b) if a < b else (b, a)
        pairs[key] = max(0.5 + abs(edge.strength), pairs.get(key, 0.0))
    return pairs


def _run(pairs: Mapping[tuple[int, int], float], start: Matrix, moving: npt.NDArray[np.int_], k: float,
         iterations: int) -> Matrix:
    """The exact all-pairs simulation while its arrays are small, the grid one past that."""
    import numpy as np

    count = len(start)
    if len(moving) * count <= DENSE_PAIRS:
        weights = np.zeros((count, count), dtype=np.float64)
        for (a, b), weight in pairs.items():
            weights[a, b] = weights[b, a] = weight
        return _simulate(weights, start, moving, k, iterations)
    from game.graph.map.sparse_layout import simulate_sparse

    keys = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
    values = np.array(list(pairs.values()), dtype=np.float64)
    return simulate_sparse(keys[:, 0], keys[:, 1], values, start, moving.astype(np.int64), k, iterations)


def _simulate(weights: Matrix, pos: Matrix, moving: npt.NDArray[np.int_], k: float, iterations: int) -> Matrix:
    """Fruchterman-Reingold with linear cooling, moving only the rows in ``moving`` (the rest hold).

    Each step: every moving node is pushed away from every node (k²/d) and pulled toward the ones it
    relates to (w·d²/k), then moves along the sum by at most the temperature.
    """
    import numpy as np

    pos = pos.copy()
    count = len(pos)
    temperature = max(float(np.ptp(pos[:, 0])), float(np.ptp(pos[:, 1]))) * 0.1
    cooling = temperature / (iterations + 1)
    pull = weights[moving] / k
    push = k * k
    # Buffers reused every step: at 200 nodes the arithmetic is cheap and allocating is what costs.
    shape = (len(moving), count)
    dx, dy, square, force = (np.empty(shape) for _ in range(4))
    for _ in range(iterations):
        xs, ys = np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(pos[:, 1])
        np.subtract(xs[moving][:, None], xs[None, :], out=dx)
        np.subtract(ys[moving][:, None], ys[None, :], out=dy)
        np.multiply(dx, dx, out=square)
        np.multiply(dy, dy, out=force)
        square += force
        np.maximum(square, 1e-4, out=square)  # pairs closer than 0.01 count as 0.01 apart
        # force = k²/d² - w·d/k, the repulsion and the attraction along the pair's direction.
        np.sqrt(square, out=force)
        force *= pull
        np.divide(push, square, out=square)
        np.subtract(square, force, out=force)
        # Σ_j f_ij (p_i - p_j) = p_i Σ_j f_ij - (f @ p)_i: one matrix product instead of two big products.
        step = pos[moving] * force.sum(axis=1)[:, None] - force @ pos
        length = np.sqrt((step * step).sum(axis=1))
        step *= (temperature / np.clip(length, 0.01, None))[:, None]
        pos[moving] += step
        temperature -= cooling
        if math.sqrt(float((step * step).sum())) / count < THRESHOLD:
            break
    return pos


def _starting_positions(ids: Sequence[str], neighbours: Mapping[str, list[str]],
                        fixed: Mapping[str, Position]) -> dict[str, Position]:
    """New nodes start beside the nodes they relate to, so the simulation settles them nearby."""
    start: dict[str, Position] = dict(fixed)
    for node_id in ids:
        if node_id in start:
            continue
        anchors = [start[other] for other in sorted(neighbours[node_id]) if other in start]
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


def normalise(raw: Mapping[str, Position]) -> dict[str, Position]:
    """Stretch each axis to fill [0, 1] so a wide pane is used edge to edge."""
    if not raw:
        return {}
    xs = [p[0] for p in raw.values()]
    ys = [p[1] for p in raw.values()]

    def scale(value: float, low: float, high: float) -> float:
        return 0.5 if high - low < 1e-9 else (value - low) / (high - low)

    left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)  # once, not once per node
    return {i: (scale(x, left, right), scale(y, top, bottom)) for i, (x, y) in raw.items()}


def _clamp(point: Position) -> Position:
    return (min(1.0, max(0.0, float(point[0]))), min(1.0, max(0.0, float(point[1]))))
