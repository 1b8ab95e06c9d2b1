"""The force layout for graphs too large for the all-pairs simulation: near-linear time, bounded memory.

``layout._simulate`` compares every moving node with every node, which is exact (networkx's forces) and
fast to a few hundred nodes, but quadratic: 4,000 nodes took 17 s and 833 MB, 9,000 ran out of memory.
Past that size the same Fruchterman-Reingold forces are worked out here over lists instead of matrices:
attraction only along relations (an edge list, not an n x n weight matrix) and repulsion only between
nodes in neighbouring cells of a grid whose cells are twice the ideal distance wide (far nodes push each
other by little; the cut-off is what makes the cost linear). A crowded grid cell lets only its first
``CELL_CAP`` nodes push, so even a layout that collapses to a point costs a bounded number of pairs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float64]
    Indices = npt.NDArray[np.int64]

CELL_CAP = 8
"""At most this many nodes of one grid cell push on each neighbour: bounds the pairs per node at 9 x 8."""
THRESHOLD = 1e-4


def simulate_sparse(sources: Indices, targets: Indices, weights: Matrix, pos: Matrix, moving: Indices,
                    k: float, iterations: int) -> Matrix:
    """The forces of ``layout._simulate`` over an edge list and a grid; only ``moving`` rows move."""
    import numpy as np

    pos = pos.copy()
    count = len(pos)
    is_moving = np.zeros(count, dtype=bool)
    is_moving[moving] = True
    # Each relation pulls both its ends; only the ends that move are kept.
    pull_from = np.concatenate([sources, targets])
    pull_to = np.concatenate([targets, sources])
    pull_weight = np.concatenate([weights, weights]) / k
    keep = is_moving[pull_from]
    pull_from, pull_to, pull_weight = pull_from[keep], pull_to[keep], pull_weight[keep]
    temperature = max(float(np.ptp(pos[:, 0])), float(np.ptp(pos[:, 1]))) * 0.1
    cooling = temperature / (iterations + 1)
    cell = 2.0 * k
    for _ in range(iterations):
        near_i, near_j = _neighbour_pairs(pos, moving, cell)
        delta = pos[near_i] - pos[near_j]
        square = np.maximum((delta * delta).sum(axis=1), 1e-4)
        push = (k * k) / square
        # Sums per node by bincount: a scatter-add in C, many times faster than ``np.add.at``.
        fx = np.bincount(near_i, delta[:, 0] * push, minlength=count)
        fy = np.bincount(near_i, delta[:, 1] * push, minlength=count)
        delta = pos[pull_from] - pos[pull_to]
        pull = pull_weight * np.sqrt(np.maximum((delta * delta).sum(axis=1), 1e-4))
        fx -= np.bincount(pull_from, delta[:, 0] * pull, minlength=count)
        fy -= np.bincount(pull_from, delta[:, 1] * pull, minlength=count)
        step = np.stack([fx[moving], fy[moving]], axis=1)
        length = np.sqrt((step * step).sum(axis=1))
        step *= (temperature / np.clip(length, 0.01, None))[:, None]
        pos[moving] += step
        temperature -= cooling
        if math.sqrt(float((step * step).sum())) / count < THRESHOLD:
            break
    return pos


def _neighbour_pairs(pos: Matrix, moving: Indices, cell: float) -> tuple[Indices, Indices]:
    """(i, j) for each moving node i and each node j (not i) in the 3 x 3 grid cells around it, a crowded
    cell contributing only its first ``CELL_CAP`` nodes."""
    import numpy as np

    low = pos.min(axis=0)
    grid = np.floor((pos - low) / cell).astype(np.int64)
    columns = int(grid[:, 0].max()) + 3
    # One number per cell, with a free border of cells so the neighbours of an edge cell exist.
    key = (grid[:, 1] + 1) * columns + (grid[:, 0] + 1)
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    firsts: list[Indices] = []
    seconds: list[Indices] = []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            wanted = key[moving] + dy * columns + dx
            start = np.searchsorted(sorted_keys, wanted, side="left")
            stop = np.minimum(np.searchsorted(sorted_keys, wanted, side="right"), start + CELL_CAP)
            sizes = stop - start
            total = int(sizes.sum())
            if not total:
                continue
            owner = np.repeat(moving, sizes)
            # The offsets 0..size-1 within each run, without a Python loop over nodes.
            offsets = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            other = order[np.repeat(start, sizes) + offsets]
            distinct = owner != other
            firsts.append(owner[distinct])
            seconds.append(other[distinct])
    if not firsts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(firsts), np.concatenate(seconds)
