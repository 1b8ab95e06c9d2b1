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
from functools import lru_cache
from itertools import pairwise, repeat

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

    def coordinates(self) -> list[Point]:
        """The cells as (x, y), end to end: each straight stretch read off its corners in C (``zip`` over a
        ``range``) rather than each cell's index divided by the width, as a drawing has thousands."""
        out = [self.points[0]]
        for (px, py), (qx, qy) in pairwise(self.points):
            if py == qy:
                step = 1 if qx > px else -1
                out.extend(zip(range(px + step, qx + step, step), repeat(py)))
            else:
                step = 1 if qy > py else -1
                out.extend(zip(repeat(px), range(py + step, qy + step, step)))
        return out


_Shape = tuple[tuple[Point, ...], int, int, float]
"""A candidate path's corners, then ``into_a``, ``into_b`` and its ``_bound``: a plain tuple, as a drawing
weighs a few thousand of them (a named tuple's constructor costs several times a tuple's)."""
_STRAIGHT, _ONE_TURN, _TWO_TURNS = TURN_COST * 0, TURN_COST * 1, TURN_COST * 2
"""``_bound``'s turn costs for the shapes of two, three and four corners."""


def build(points: list[Point], into_a: int, into_b: int, width: int, height: int) -> Route | None:
    """Walk axis-aligned corners cell by cell; None if any cell is off the canvas. Each cell's mask joins
    it to the cells before and after it (the ends to the names), a stretch at a time."""
    corners: list[Point] = [points[0]]
    for point in points:
        if corners[-1] != point:
            corners.append(point)
    for x, y in corners:
        if not (0 <= x < width and 0 <= y < height):
            return None  # the stretches are straight, so their corners bound every cell
    cells: list[tuple[int, int]] = []
    back = into_a
    for (px, py), (qx, qy) in pairwise(corners):
        # The stretch's heading, its step along the cells, its axis and the heading back.
        if qx != px:
            step, stride, axis, back_to = (EAST, 1, HORIZONTAL, WEST) if qx > px else (WEST, -1, HORIZONTAL, EAST)
        else:
            step, stride, axis, back_to = (SOUTH, width, VERTICAL, NORTH) if qy > py else (NORTH, -width, VERTICAL, SOUTH)
        start = py * width + px
        cells.append((start, back | step))
        length = abs(qx - px) + abs(qy - py)
        cells.extend(zip(range(start + stride, start + stride * length, stride), repeat(axis)))
        back = back_to
    x, y = corners[-1]
    cells.append((y * width + x, back | into_b))
    return Route(tuple(corners), tuple(cells), into_a, into_b)


def _shapes(a: Placed, b: Placed) -> list[_Shape]:
    """Simple orthogonal paths from beside ``a`` to beside ``b``, each with its ``_bound`` worked out from
    its corners as it is made (the same whole-cell length, so the same float)."""
    # Read once: a drawing builds a few thousand shapes and ``end``/``centre`` are computed.
    a_x, a_y, a_end, a_centre = a.x, a.y, a.end, a.centre
    b_x, b_y, b_end, b_centre = b.x, b.y, b.end, b.centre
    shapes: list[_Shape] = []
    across = abs(b_centre - a_centre)
    if a_y == b_y:
        if a_end < b_x:
            shapes.append((((a_end + 1, a_y), (b_x - 1, b_y)), WEST, EAST,
                           _STRAIGHT + LENGTH_COST * (1 + abs(b_x - a_end - 2))))
        elif b_end < a_x:
            shapes.append((((a_x - 1, a_y), (b_end + 1, b_y)), EAST, WEST,
                           _STRAIGHT + LENGTH_COST * (1 + abs(b_end - a_x + 2))))
        for side in (-1, 1, -2, 2):
            row = a_y + side
            toward = SOUTH if side < 0 else NORTH
            near = -1 if side < 0 else 1
            shapes.append((((a_centre, a_y + near), (a_centre, row), (b_centre, row), (b_centre, b_y + near)),
                           toward, toward,
                           _TWO_TURNS + LENGTH_COST * (1 + abs(row - a_y - near) + across + abs(b_y + near - row))))
        return shapes
    down = b_y > a_y
    step = 1 if down else -1
    leave_a, enter_b = (NORTH, SOUTH) if down else (SOUTH, NORTH)
    low, high = max(a_x, b_x), min(a_end, b_end)
    if low <= high:
        for column in dict.fromkeys(((low + high) // 2, low, high)):
            shapes.append((((column, a_y + step), (column, b_y - step)), leave_a, enter_b,
                           _STRAIGHT + LENGTH_COST * (1 + abs(b_y - a_y - 2 * step))))
    right = b_x > a_end
    beside_a = a_end + 1 if right else a_x - 1
    beside_b = b_x - 1 if right else b_end + 1
    if low > high:
        for column in (a_centre, a_x, a_end):
            shapes.append((((column, a_y + step), (column, b_y), (beside_b, b_y)),
                           leave_a, EAST if right else WEST,
                           _ONE_TURN + LENGTH_COST * (1 + abs(b_y - a_y - step) + abs(beside_b - column))))
        for column in (b_centre, b_x, b_end):
            shapes.append((((beside_a, a_y), (column, a_y), (column, b_y - step)),
                           WEST if right else EAST, enter_b,
                           _ONE_TURN + LENGTH_COST * (1 + abs(column - beside_a) + abs(b_y - step - a_y))))
        # Steps through a middle column, from side to side.
        for column in dict.fromkeys(((beside_a + beside_b) // 2, beside_a, beside_b)):
            shapes.append((((beside_a, a_y), (column, a_y), (column, b_y), (beside_b, b_y)),
                           WEST if right else EAST, EAST if right else WEST,
                           _TWO_TURNS + LENGTH_COST * (1 + abs(column - beside_a) + abs(b_y - a_y)
                                                       + abs(beside_b - column))))
    # Steps through a middle row, from top to bottom.
    if abs(b_y - a_y) >= 2:
        quarter = (b_y - a_y) // 4
        for row in dict.fromkeys(((a_y + b_y) // 2, a_y + step, b_y - step, a_y + quarter, b_y - quarter)):
            shapes.append((((a_centre, a_y + step), (a_centre, row), (b_centre, row), (b_centre, b_y - step)),
                           leave_a, enter_b,
                           _TWO_TURNS + LENGTH_COST * (1 + abs(row - a_y - step) + across + abs(b_y - step - row))))
    return shapes


def _around_shapes(a: Placed, b: Placed) -> list[_Shape]:
    """U-shaped paths round the outside of both names: over, under, left or right of them. Cheap to try
    (a few slices of the grid each) and they find most of the ways a step through the middle cannot."""
    # Read once: a drawing builds a few thousand shapes and ``end``/``centre`` are computed.
    a_x, a_y, a_end, a_centre = a.x, a.y, a.end, a.centre
    b_x, b_y, b_end, b_centre = b.x, b.y, b.end, b.centre
    shapes: list[_Shape] = []
    across, rows = abs(b_centre - a_centre), abs(b_y - a_y)
    for offset in range(1, 5):
        top = min(a_y, b_y) - offset
        shapes.append((((a_centre, a_y - 1), (a_centre, top), (b_centre, top), (b_centre, b_y - 1)), SOUTH, SOUTH,
                       _TWO_TURNS + LENGTH_COST * (1 + abs(top - a_y + 1) + across + abs(b_y - 1 - top))))
        bottom = max(a_y, b_y) + offset
        shapes.append((((a_centre, a_y + 1), (a_centre, bottom), (b_centre, bottom), (b_centre, b_y + 1)), NORTH,
                       NORTH, _TWO_TURNS + LENGTH_COST * (1 + abs(bottom - a_y - 1) + across + abs(b_y + 1 - bottom))))
        left = min(a_x, b_x) - 1 - offset
        shapes.append((((a_x - 1, a_y), (left, a_y), (left, b_y), (b_x - 1, b_y)), EAST, EAST,
                       _TWO_TURNS + LENGTH_COST * (1 + abs(left - a_x + 1) + rows + abs(b_x - 1 - left))))
        right = max(a_end, b_end) + 1 + offset
        shapes.append((((a_end + 1, a_y), (right, a_y), (right, b_y), (b_end + 1, b_y)), WEST, WEST,
                       _TWO_TURNS + LENGTH_COST * (1 + abs(right - a_end - 1) + rows + abs(b_end + 1 - right))))
    return shapes


def _bound(points: tuple[Point, ...]) -> float:
    """The least a shape can cost: its turns and length on an empty canvas. The shapes carry it, worked
    out as they are made (``_shapes``); this is its definition, which the tests hold them to."""
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
        _cost_of, (points, into_a, into_b, _bound_of), route = best
        return route or build(list(points), into_a, into_b, canvas.width, canvas.height)
    if clear:
        return None
    found = detour(a, b, canvas)
    return found if found is not None and allowed(found, canvas) else None


def _cheapest(shapes: list[_Shape], canvas: Canvas, best: tuple[float, _Shape, Route | None] | None,
              clear: bool = False) -> tuple[float, _Shape, Route | None] | None:
    """The cheapest of ``shapes`` that keeps the rules and beats ``best`` (else ``best``); its route is
    left for the caller to build once one is chosen (so the last of the tuple is None).

    A shape's cost is read a straight stretch at a time, each one slice of the grid (no Python loop per
    cell): a stretch off the canvas, over a name or along another line (a shared run, a corner) rules the
    shape out and ends the reading. Written out here rather than called per shape: a drawing weighs over
    a thousand shapes, most of them ruled out at their first stretch or two."""
    # Cheapest first by a bound that ignores what is on the canvas; penalties only add to it, so once
    # the bound reaches the best allowed cost found, no later shape can beat it.
    bounds = [shape[3] for shape in shapes]
    width, height, masks = canvas.width, canvas.height, canvas.masks
    along, down = canvas.across[HORIZONTAL], canvas.across[VERTICAL]
    for number in sorted(range(len(shapes)), key=bounds.__getitem__):  # stable: ties keep their order
        if best is not None and bounds[number] >= best[0]:
            break
        shape = shapes[number]
        points = shape[0]
        cells = lines = 0
        px, py = points[0]
        # One stretch per pair of corners (a lone corner is a stretch of one cell); the first stretch
        # holds its first cell, each later one starts past the corner the one before it reached.
        for stretch, (qx, qy) in enumerate(points[1:] or points[:1]):
            if not (0 <= px < width and 0 <= qx < width and 0 <= py < height and 0 <= qy < height):
                break
            if py == qy:
                if stretch and px == qx:
                    continue
                first = px + ((1 if qx >= px else -1) if stretch else 0)
                low, high = (first, qx) if first <= qx else (qx, first)
                start, stop = py * width + low, py * width + high + 1
                if along.find(1, start, stop) != -1:
                    break
                cells += stop - start
                lines += stop - start - masks.count(0, start, stop)
            else:
                first = py + ((1 if qy >= py else -1) if stretch else 0)
                low, high = (first, qy) if first <= qy else (qy, first)
                start, stop = low * width + px, high * width + px + 1
                if 1 in down[start:stop:width]:
                    break
                marks = masks[start:stop:width]
                cells += len(marks)
                lines += len(marks) - marks.count(0)
            px, py = qx, qy
        else:
            cost = CROSSING_COST * lines + TURN_COST * max(0, len(points) - 2) + LENGTH_COST * cells
            if best is not None and cost >= best[0]:
                continue  # no better
            if not lines:
                best = (cost, shape, None)  # over no line: it keeps the rules
            elif not clear and _crossings_allowed(shape, width, masks, canvas.ends):
                # One that crosses lines is checked where it meets them, and only built once chosen.
                best = (cost, shape, None)
    return best


def _crossings_allowed(shape: _Shape, width: int, masks: bytearray, ends: bytearray) -> bool:
    """``allowed`` for the route ``build`` would make of a shape ``_cheapest`` let through (on the canvas, over
    no name, along no line), read off its stretches instead of built cell by cell: most such shapes are
    not allowed, and building them is most of what weighing them costs. A stretch's inner cells may meet
    only the straight line across them, away from its end (``_cheapest`` saw no line along them, so a line
    there is across, or ends or turns there); a corner or an end of the route may meet none but, at a
    corner that goes straight on, such a line."""
    points, into_a, into_b, _bound_of = shape
    corners: list[Point] = [points[0]]
    for point in points:
        if corners[-1] != point:
            corners.append(point)
    last = len(corners) - 1
    back = into_a
    for number, (px, py) in enumerate(corners):
        index = py * width + px
        if number < last:
            qx, qy = corners[number + 1]
            if qx != px:
                step, stride, across, back_to = (EAST, 1, VERTICAL, WEST) if qx > px else (WEST, -1, VERTICAL, EAST)
            else:
                step, stride, across, back_to = ((SOUTH, width, HORIZONTAL, NORTH) if qy > py
                                                 else (NORTH, -width, HORIZONTAL, SOUTH))
            mask = back | step
        else:
            mask = back | into_b
        existing = masks[index]
        if existing and (number in (0, last) or not may_cross(existing, mask, bool(ends[index]))):
            return False
        if number == last:
            return True
        length = abs(qx - px) + abs(qy - py)
        if length > 1:
            # The cells strictly between this corner and the next, lowest index first.
            gap = abs(stride)
            low, high = (index + gap, index + gap * length) if stride > 0 else (index - gap * (length - 1), index)
            lines, marks = masks[low:high:gap], ends[low:high:gap]
            if lines.count(0) + lines.count(across) != len(lines):
                return False  # a line that ends or turns in the stretch, or one partly across
            if marks.count(0) != len(marks) and any(line and mark for line, mark in zip(lines, marks, strict=True)):
                return False  # across a line at its end
        back = back_to
    return True


_STEPS = ((NORTH, 0, -1), (EAST, 1, 0), (SOUTH, 0, 1), (WEST, -1, 0))
_DIRECTION_SLOT = {NORTH: 0, EAST: 1, SOUTH: 2, WEST: 3}


def _open_beside(box: Placed, width: int, height: int, masks: bytearray) -> dict[int, int]:
    """The cells next to a name that no line takes (left, right, then the row above and the row below it),
    by index, each with the direction that points from it to the name."""
    x, y, end = box.x, box.y, box.end
    cells: dict[int, int] = {}
    if 0 <= y < height:
        for column, into in ((x - 1, EAST), (end + 1, WEST)):
            if 0 <= column < width and not masks[y * width + column]:
                cells[y * width + column] = into
    for row, into in ((y - 1, SOUTH), (y + 1, NORTH)):
        if 0 <= row < height:
            base = row * width
            for index in range(base + max(0, x), base + min(width, end + 1)):
                if not masks[index]:
                    cells[index] = into
    return cells


_Move = tuple[int, int, int, int, int, float]
"""A search's step: the heading it takes, its step in x and y and along the cells, the one line it may
cross (the straight line across it) and what it costs."""


@lru_cache(maxsize=64)
def _moves(width: int) -> tuple[list[list[_Move]], list[list[_Move]]]:
    """Per heading, the moves a path may make from a free cell (any but back; a turn costs more) and from
    a crossing (straight on only): worked out once per canvas width rather than per search or per move."""
    moves = [(slot, dx, dy, dy * width + dx, (HORIZONTAL | VERTICAL) ^ (HORIZONTAL if dx else VERTICAL))
             for slot, (_d, dx, dy) in enumerate(_STEPS)]
    onward = [[(*move, 1.0 if move[0] == slot else 1.0 + TURN_COST) for move in moves if move[0] != (slot + 2) & 3]
              for slot in range(4)]
    straight = [[(*moves[slot], 1.0)] for slot in range(4)]
    return onward, straight


def _distances(size: int, target: int) -> list[float]:
    """``GREED`` times each column's (or row's) distance from ``target``: a slice of one list per size."""
    if 0 <= target < size:
        ramp = _ramp(size)
        return ramp[size - target:2 * size - target]
    return [GREED * abs(x - target) for x in range(size)]


@lru_cache(maxsize=64)
def _ramp(size: int) -> list[float]:
    """``GREED * abs(i - size)`` for i from 0 to twice ``size``: every distance estimate along an axis."""
    return [GREED * abs(i - size) for i in range(2 * size)]


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
    goals = _open_beside(b, width, height, masks)
    starts = _open_beside(a, width, height, masks)
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
    onward, straight = _moves(width)
    expansions = 0
    limit = min(SEARCH_LIMIT, canvas.search_left)
    pop, push, seen = heapq.heappop, heapq.heappush, best.get
    # The distance estimate by column and by row (GREED is 2, so the sum of the halves is exact).
    toward_x = _distances(width, tx)
    toward_y = _distances(height, ty)
    while heap and expansions < limit:
        estimate, guess, state = pop(heap)
        so_far = estimate - guess
        if so_far > best[state] + 1e-9:
            continue
        index = state >> 2
        if index in goals:
            canvas.search_left -= expansions
            return _rebuild(state, came, starts, goals[index], width, height)
        slot = state & 3
        expansions += 1
        y, x = divmod(index, width)
        for turn_slot, dx, dy, delta, crossable, step in (straight[slot] if masks[index] else onward[slot]):
            nx = x + dx
            ny = y + dy
            if nx < 0 or ny < 0 or nx >= width or ny >= height:
                continue
            step_index = index + delta
            if kind[step_index] == NODE_LABEL:
                continue
            existing = masks[step_index]
            if existing:
                # Only one straight line crossed at right angles, away from its end (``may_cross``).
                if existing != crossable or step_index in goals or ends[step_index]:
                    continue
                total = so_far + step + CROSSING_COST
            else:
                total = so_far + step
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
    """The path a search found, from its states (cell and heading) back to a start, as a route: a corner
    wherever the heading into a cell differs from the heading out of it, read off the states rather than
    off every cell's coordinates."""
    states: list[int] = []
    state = end
    while state != -1:
        states.append(state)
        state = came[state]
    states.reverse()
    corners = [states[0] >> 2]
    corners += [here >> 2 for here, after in pairwise(states[1:]) if here & 3 != after & 3]
    corners.append(states[-1] >> 2)
    return build([(index % width, index // width) for index in corners], starts[states[0] >> 2], into_b, width,
                 height)
