"""Edge paths between two placed names.

A few simple shapes are tried first (straight, one elbow, a step through a middle row or column),
cheapest first; only when none is allowed does a grid search find a detour. The rules are hard, not
costs: a line never passes under a name, never shares a cell with another line except to cross one
straight line straight at right angles, and never touches another line's end. An edge with no such path
is not drawn (the map lists it instead), so every line drawn can be followed from one name to the other.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import pairwise, repeat
from typing import NamedTuple

from game.graph.map.canvas import (
    EAST,
    HORIZONTAL,
    NODE_LABEL,
    NORTH,
    SOUTH,
    VERTICAL,
    WEST,
    Canvas,
    may_cross,
)
from game.graph.map.place import Placed

ARROWS = {EAST: "→", WEST: "←", SOUTH: "↓", NORTH: "↑"}
CROSSING_COST = 1.0
LENGTH_COST = 0.05
TURN_COST = 1.5
SEARCH_LIMIT = 20_000
"""Grid cells one detour search may expand before the edge is given up (and listed)."""
GREED = 2.0
"""Weight on the detour search's distance estimate: a near-shortest detour found quickly beats the
shortest one found after searching half the canvas."""

Point = tuple[int, int]
_OPPOSITE = {EAST: WEST, WEST: EAST, NORTH: SOUTH, SOUTH: NORTH}


@dataclass(frozen=True, slots=True)
class Route:
    """Cells from beside ``a`` to beside ``b``; ``into_a``/``into_b`` point from the end cells to the names."""

    points: tuple[Point, ...]
    """The corners, ends included."""
    cells: tuple[tuple[int, int], ...]
    """(cell index, connection mask) in order from ``a`` to ``b``."""
    into_a: int
    into_b: int

    def segments(self) -> list[tuple[Point, Point]]:
        return list(pairwise(self.points)) or [(self.points[0], self.points[0])]


class _Shape(NamedTuple):
    """A candidate path's corners; a tuple, as a drawing weighs a few thousand of them."""

    points: tuple[Point, ...]
    into_a: int
    into_b: int


def _direction(p: Point, q: Point) -> int:
    if q[0] > p[0]:
        return EAST
    if q[0] < p[0]:
        return WEST
    return SOUTH if q[1] > p[1] else NORTH


def build(points: list[Point], into_a: int, into_b: int, width: int, height: int) -> Route | None:
    """Walk axis-aligned corners cell by cell; None if any cell is off the canvas. Each cell's mask joins
    it to the cells before and after it (the ends to the names), a stretch at a time."""
    corners: list[Point] = []
    for point in points:
        if not corners or corners[-1] != point:
            corners.append(point)
    if any(not (0 <= x < width and 0 <= y < height) for x, y in corners):
        return None  # the stretches are straight, so their corners bound every cell
    cells: list[tuple[int, int]] = []
    back = into_a
    for p, q in pairwise(corners):
        step = _direction(p, q)
        stride = _STRIDE[step] if step in (EAST, WEST) else _STRIDE[step] * width
        start = p[1] * width + p[0]
        cells.append((start, back | step))
        axis = HORIZONTAL if step in (EAST, WEST) else VERTICAL
        length = abs(q[0] - p[0]) + abs(q[1] - p[1])
        cells.extend(zip(range(start + stride, start + stride * length, stride), repeat(axis)))
        back = _OPPOSITE[step]
    x, y = corners[-1]
    cells.append((y * width + x, back | into_b))
    return Route(tuple(corners), tuple(cells), into_a, into_b)


_STRIDE = {EAST: 1, WEST: -1, SOUTH: 1, NORTH: -1}
"""How far one step moves along a row (EAST, WEST) or, times the width, down the rows (SOUTH, NORTH)."""


def _shapes(a: Placed, b: Placed) -> list[_Shape]:
    """Simple orthogonal paths from beside ``a`` to beside ``b``."""
    # Read once: a drawing builds a few thousand shapes and ``end``/``centre`` are computed.
    a_x, a_y, a_end, a_centre = a.x, a.y, a.end, a.centre
    b_x, b_y, b_end, b_centre = b.x, b.y, b.end, b.centre
    shapes: list[_Shape] = []
    if a_y == b_y:
        if a_end < b_x:
            shapes.append(_Shape(((a_end + 1, a_y), (b_x - 1, b_y)), WEST, EAST))
        elif b_end < a_x:
            shapes.append(_Shape(((a_x - 1, a_y), (b_end + 1, b_y)), EAST, WEST))
        for side in (-1, 1, -2, 2):
            row = a_y + side
            toward = SOUTH if side < 0 else NORTH
            shapes.append(_Shape(((a_centre, a_y + (-1 if side < 0 else 1)), (a_centre, row), (b_centre, row),
                                  (b_centre, b_y + (-1 if side < 0 else 1))), toward, toward))
        return shapes
    down = b_y > a_y
    step = 1 if down else -1
    leave_a, enter_b = (NORTH, SOUTH) if down else (SOUTH, NORTH)
    low, high = max(a_x, b_x), min(a_end, b_end)
    if low <= high:
        for column in dict.fromkeys(((low + high) // 2, low, high)):
            shapes.append(_Shape(((column, a_y + step), (column, b_y - step)), leave_a, enter_b))
    right = b_x > a_end
    beside_a = a_end + 1 if right else a_x - 1
    beside_b = b_x - 1 if right else b_end + 1
    if low > high:
        for column in (a_centre, a_x, a_end):
            shapes.append(_Shape(((column, a_y + step), (column, b_y), (beside_b, b_y)),
                                 leave_a, EAST if right else WEST))
        for column in (b_centre, b_x, b_end):
            shapes.append(_Shape(((beside_a, a_y), (column, a_y), (column, b_y - step)),
                                 WEST if right else EAST, enter_b))
        # Steps through a middle column, from side to side.
        for column in dict.fromkeys(((beside_a + beside_b) // 2, beside_a, beside_b)):
            shapes.append(_Shape(((beside_a, a_y), (column, a_y), (column, b_y), (beside_b, b_y)),
                                 WEST if right else EAST, EAST if right else WEST))
    # Steps through a middle row, from top to bottom.
    if abs(b_y - a_y) >= 2:
        quarter = (b_y - a_y) // 4
        for row in dict.fromkeys(((a_y + b_y) // 2, a_y + step, b_y - step, a_y + quarter, b_y - quarter)):
            shapes.append(_Shape(((a_centre, a_y + step), (a_centre, row), (b_centre, row), (b_centre, b_y - step)),
                                 leave_a, enter_b))
    return shapes


def _around_shapes(a: Placed, b: Placed) -> list[_Shape]:
    """U-shaped paths round the outside of both names: over, under, left or right of them. Cheap to try
    (a few slices of the grid each) and they find most of the ways a step through the middle cannot."""
    # Read once: a drawing builds a few thousand shapes and ``end``/``centre`` are computed.
    a_x, a_y, a_end, a_centre = a.x, a.y, a.end, a.centre
    b_x, b_y, b_end, b_centre = b.x, b.y, b.end, b.centre
    shapes: list[_Shape] = []
    for offset in range(1, 5):
        top = min(a_y, b_y) - offset
        shapes.append(_Shape(((a_centre, a_y - 1), (a_centre, top), (b_centre, top), (b_centre, b_y - 1)),
                             SOUTH, SOUTH))
        bottom = max(a_y, b_y) + offset
        shapes.append(_Shape(((a_centre, a_y + 1), (a_centre, bottom), (b_centre, bottom), (b_centre, b_y + 1)),
                             NORTH, NORTH))
        left = min(a_x, b_x) - 1 - offset
        shapes.append(_Shape(((a_x - 1, a_y), (left, a_y), (left, b_y), (b_x - 1, b_y)), EAST, EAST))
        right = max(a_end, b_end) + 1 + offset
        shapes.append(_Shape(((a_end + 1, a_y), (right, a_y), (right, b_y), (b_end + 1, b_y)), WEST, WEST))
    return shapes


def _cost(shape: _Shape, canvas: Canvas) -> tuple[float, bool, bool] | None:
    """What a shape would cost on this canvas, whether it is ruled out (under a name, or along another
    line) and whether it touches no line at all; None if it leaves the canvas. Each straight stretch is
    one slice of the grid (no Python loop per cell), and the first stretch ruled out ends the reading."""
    width, height = canvas.width, canvas.height
    masks, along, down = canvas.masks, canvas.across[HORIZONTAL], canvas.across[VERTICAL]
    points = shape.points
    cells = lines = 0
    px, py = points[0]
    # One stretch per pair of corners (a lone corner is a stretch of one cell); the first stretch
    # holds its first cell, each later one starts past the corner the one before it reached.
    for number, (qx, qy) in enumerate(points[1:] or points[:1]):
        if not (0 <= px < width and 0 <= qx < width and 0 <= py < height and 0 <= qy < height):
            return None
        if py == qy:
            if number and px == qx:
                continue
            first = px + ((1 if qx >= px else -1) if number else 0)
            low, high = (first, qx) if first <= qx else (qx, first)
            start, stop = py * width + low, py * width + high + 1
            # A cell with a name, or a line along our axis (a shared run, a corner): never allowed.
            if along.find(1, start, stop) != -1:
                return 0.0, True, False
            cells += stop - start
            lines += stop - start - masks.count(0, start, stop)
        else:
            first = py + ((1 if qy >= py else -1) if number else 0)
            low, high = (first, qy) if first <= qy else (qy, first)
            start, stop = low * width + px, high * width + px + 1
            if 1 in down[start:stop:width]:
                return 0.0, True, False
            marks = masks[start:stop:width]
            cells += len(marks)
            lines += len(marks) - marks.count(0)
        px, py = qx, qy
    turns = max(0, len(points) - 2)
    return CROSSING_COST * lines + TURN_COST * turns + LENGTH_COST * cells, False, lines == 0


def _bound(shape: _Shape) -> float:
    """The least a shape can cost: its turns and length on an empty canvas."""
    points = shape.points
    length = 1
    x, y = points[0]
    for qx, qy in points[1:]:
        length += (qx - x if qx > x else x - qx) + (qy - y if qy > y else y - qy)
        x, y = qx, qy
    return TURN_COST * max(0, len(points) - 2) + LENGTH_COST * length


def allowed(route: Route, canvas: Canvas) -> bool:
    """Whether every cell of ``route`` keeps the rules: no name under it, and only straight crossings."""
    kind, masks, ends = canvas.kind, canvas.masks, canvas.ends
    last = len(route.cells) - 1
    for number, (index, mask) in enumerate(route.cells):
        if kind[index] == NODE_LABEL:
            return False
        existing = masks[index]
        if existing and (number in (0, last) or not may_cross(existing, mask, bool(ends[index]))):
            return False
    return True


def _around_floor(a: Placed, b: Placed) -> float:
    """The least a U-shaped path round both names can cost: it turns twice, and any path from beside one
    name to beside the other covers the gap between them."""
    across = max(0, max(a.x, b.x) - min(a.end, b.end) - 2)
    down = max(0, abs(a.y - b.y) - 2)
    return 2 * TURN_COST + LENGTH_COST * (1 + across + down)


def best_route(a: Placed, b: Placed, canvas: Canvas, *, clear: bool = False) -> Route | None:
    """The cheapest simple path that keeps the rules, else a detour that does; None if there is none.
    The paths round the outside are only worked out when no simple one costs less than they must.
    ``clear``: only a simple path that meets no other line (no crossing, no detour), else None."""
    best = _cheapest(_shapes(a, b), canvas, None, clear)
    if best is None or best[0] > _around_floor(a, b):
        best = _cheapest(_around_shapes(a, b), canvas, best, clear)
    if best is not None:
        _cost_of, shape, route = best
        return route or build(list(shape.points), shape.into_a, shape.into_b, canvas.width, canvas.height)
    if clear:
        return None
    found = detour(a, b, canvas)
    return found if found is not None and allowed(found, canvas) else None


def _cheapest(shapes: list[_Shape], canvas: Canvas, best: tuple[float, _Shape, Route | None] | None,
              clear: bool = False) -> tuple[float, _Shape, Route | None] | None:
    """The cheapest of ``shapes`` that keeps the rules and beats ``best`` (else ``best``), with its route
    when it was built to be checked (a shape over no line keeps the rules: it is built once chosen)."""
    # Cheapest first by a bound that ignores what is on the canvas; penalties only add to it, so once
    # the bound reaches the best allowed cost found, no later shape can beat it.
    bounds = [_bound(shape) for shape in shapes]
    for number in sorted(range(len(shapes)), key=bounds.__getitem__):  # stable: ties keep their order
        if best is not None and bounds[number] >= best[0]:
            break
        shape = shapes[number]
        cost = _cost(shape, canvas)
        if cost is None or cost[1] or (best is not None and cost[0] >= best[0]):
            continue  # off the canvas, under a name or along another line, or no better
        if cost[2]:
            best = (cost[0], shape, None)
            continue
        if clear:
            continue  # it would cross a line
        route = build(list(shape.points), shape.into_a, shape.into_b, canvas.width, canvas.height)
        # One that crosses lines is checked cell by cell.
        if route is not None and allowed(route, canvas):
            best = (cost[0], shape, route)
    return best


_STEPS = ((NORTH, 0, -1), (EAST, 1, 0), (SOUTH, 0, 1), (WEST, -1, 0))
_DIRECTION_SLOT = {NORTH: 0, EAST: 1, SOUTH: 2, WEST: 3}


def _beside(box: Placed, width: int, height: int) -> list[tuple[int, int, int]]:
    """Cells next to a name, each with the direction that points from it to the name."""
    cells = [(box.x - 1, box.y, EAST), (box.end + 1, box.y, WEST)]
    cells += [(x, box.y - 1, SOUTH) for x in range(box.x, box.end + 1)]
    cells += [(x, box.y + 1, NORTH) for x in range(box.x, box.end + 1)]
    return [(x, y, d) for x, y, d in cells if 0 <= x < width and 0 <= y < height]


def detour(a: Placed, b: Placed, canvas: Canvas) -> Route | None:
    """A cheap path over the grid (weighted A*) that never enters a name nor another line's cell, except
    to cross a straight line straight; few turns and crossings preferred.

    The state is a cell and the heading the path entered it with: whether a path may go on through a
    crossing depends on which way it came in, so one heading per cell would lose paths that exist.
    """
    if canvas.search_left <= 0:
        return None  # the drawing's search budget is spent: the edge is listed
    width, height = canvas.width, canvas.height
    kind, masks, ends = canvas.kind, canvas.masks, canvas.ends
    goals = {y * width + x: into for x, y, into in _beside(b, width, height) if not masks[y * width + x]}
    starts = {y * width + x: into for x, y, into in _beside(a, width, height) if not masks[y * width + x]}
    if not goals or not starts:
        return None  # every cell beside one of the names is taken: nothing to search for
    best: dict[int, float] = {}
    came: dict[int, int] = {}
    heap: list[tuple[float, float, int]] = []
    tx, ty = b.centre, b.y
    for index, into in starts.items():
        state = index * 4 + _DIRECTION_SLOT[_OPPOSITE[into]]
        best[state] = 0.0
        came[state] = -1
        guess = GREED * (abs(index % width - tx) + abs(index // width - ty))
        heapq.heappush(heap, (guess, guess, state))
    moves = [(slot, dx, dy, HORIZONTAL if dx else VERTICAL) for slot, (_d, dx, dy) in enumerate(_STEPS)]
    # Per heading: the moves a path may make from a free cell (any but back) and from a crossing
    # (straight on only), worked out once rather than tested per move.
    onward = [[move for move in moves if move[0] != (slot + 2) & 3] for slot in range(4)]
    straight = [[moves[slot]] for slot in range(4)]
    expansions = 0
    limit = min(SEARCH_LIMIT, canvas.search_left)
    pop, push, seen = heapq.heappop, heapq.heappush, best.get
    # The distance estimate by column and by row (GREED is 2, so the sum of the halves is exact).
    toward_x = [GREED * abs(x - tx) for x in range(width)]
    toward_y = [GREED * abs(y - ty) for y in range(height)]
    while heap and expansions < limit:
        estimate, guess, state = pop(heap)
        so_far = estimate - guess
        if so_far > best[state] + 1e-9:
            continue
        index, slot = divmod(state, 4)
        if index in goals:
            canvas.search_left -= expansions
            return _rebuild(state, came, starts, goals[index], width, height)
        expansions += 1
        x, y = index % width, index // width
        for turn_slot, dx, dy, axis in (straight[slot] if masks[index] else onward[slot]):
            nx, ny = x + dx, y + dy
            if nx < 0 or ny < 0 or nx >= width or ny >= height:
                continue
            step_index = ny * width + nx
            if kind[step_index] == NODE_LABEL:
                continue
            total = so_far + (1.0 if turn_slot == slot else 1.0 + TURN_COST)
            existing = masks[step_index]
            if existing:
                # Only one straight line crossed at right angles, away from its end (``may_cross``).
                if step_index in goals or ends[step_index] or existing != (HORIZONTAL | VERTICAL) ^ axis:
                    continue
                total += CROSSING_COST
            step_state = step_index * 4 + turn_slot
            if total < seen(step_state, 1e18):
                best[step_state] = total
                came[step_state] = state
                guess = toward_x[nx] + toward_y[ny]
                push(heap, (total + guess, guess, step_state))
    canvas.search_left -= expansions
    return None


def _rebuild(end: int, came: dict[int, int], starts: dict[int, int], into_b: int, width: int,
             height: int) -> Route | None:
    indices: list[int] = []
    state = end
    while state != -1:
        indices.append(state // 4)
        state = came[state]
    indices.reverse()
    cells = [(index % width, index // width) for index in indices]
    corners = [cells[0]]
    for before, here, after in zip(cells, cells[1:], cells[2:], strict=False):
        if (here[0] - before[0], here[1] - before[1]) != (after[0] - here[0], after[1] - here[1]):
            corners.append(here)
    corners.append(cells[-1])
    return build(corners, starts[indices[0]], into_b, width, height)
