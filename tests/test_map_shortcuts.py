"""The redraw's shortcuts (issue 24's budget) agree with what they stand for, on canvases as drawings route
and label on them: a shape's carried bound with ``_bound``, the crossing check read off a shape's
stretches with building its route and checking it cell by cell (``allowed``), the label spot found in C
beside a horizontal stretch with trying every spot in turn, and a route's coordinates with its cell
indices. Each pair is two ways of saying one rule: if one changes alone, the drawing changes with it."""

from __future__ import annotations

import copy
import random
from functools import cache

from helpers.maps import random_graph

from game.graph.map import compute_layout, render_map
from game.graph.map import labels as labels_module
from game.graph.map import route as route_module
from game.graph.map.canvas import EMPTY, HORIZONTAL, NODE_LABEL, VERTICAL, Canvas
from game.graph.map.place import Placed
from game.graph.map.route import Route
from game.graph.map.style import PLAIN

PANES = [(160, 50), (46, 30), (32, 18), (100, 40)]


def test_every_shape_carries_the_bound_of_its_corners() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        a = Placed("a", rng.randrange(-3, 60), rng.randrange(-3, 30), "x" * rng.randrange(1, 14))
        b = Placed("b", rng.randrange(-3, 60), rng.randrange(-3, 30), "y" * rng.randrange(1, 14))
        for points, _into_a, _into_b, bound in route_module._shapes(a, b) + route_module._around_shapes(a, b):
            assert bound == route_module._bound(points), points


@cache
def _canvases() -> list[tuple[Placed, Placed, Canvas]]:
    """Canvases as a drawing routes on them: the names of a few random graphs' drawings written, then their
    lines routed one by one (``best_route``) and added, each pair with the canvas as it stood (copied;
    made once for the tests here, which copy one before routing on it)."""
    seen: list[tuple[Placed, Placed, Canvas]] = []
    for size, seed in ((30, 3), (45, 8), (60, 1)):
        nodes, edges = random_graph(size, seed)
        positions = compute_layout(nodes, edges)
        for pane in PANES:
            drawing = render_map(nodes, edges, *pane, positions)
            canvas = Canvas(drawing.width, drawing.area)
            for box in drawing.boxes.values():
                canvas.write(box.x, box.y, box.text, PLAIN, NODE_LABEL)
            for edge in drawing.edges:
                a, b = drawing.boxes.get(edge.source), drawing.boxes.get(edge.target)
                if a is None or b is None:
                    continue
                seen.append((a, b, copy.deepcopy(canvas)))
                route = route_module.best_route(a, b, canvas)
                if route is not None:
                    canvas.add_line(list(route.cells), PLAIN, True)
    return seen


def test_the_crossing_check_agrees_with_building_the_route() -> None:
    agreed = {True: 0, False: 0}
    for a, b, canvas in _canvases()[::2]:
        for shape in route_module._shapes(a, b) + route_module._around_shapes(a, b):
            route = route_module.build(list(shape[0]), shape[1], shape[2], canvas.width, canvas.height)
            if route is None or _over_a_name_or_along_a_line(route, canvas):
                continue  # ruled out before any crossing is weighed
            want = route_module.allowed(route, canvas)
            assert route_module._crossings_allowed(shape, canvas.width, canvas.masks, canvas.ends) == want, shape
            agreed[want] += 1
    assert agreed[True] and agreed[False], agreed


def _over_a_name_or_along_a_line(route: Route, canvas: Canvas) -> bool:
    """Whether a cell of the route is a name's or has a line along an axis the route takes there: what
    ``_cheapest`` rules out before the crossing check, and more (a corner is held to both its axes)."""
    along, down = canvas.across[HORIZONTAL], canvas.across[VERTICAL]
    for index, mask in route.cells:
        if canvas.kind[index] == NODE_LABEL or (mask & HORIZONTAL and along[index]) or (mask & VERTICAL and down[index]):
            return True
    return False


def test_the_spot_beside_a_row_is_the_first_spot_that_fits() -> None:
    found = {True: 0, False: 0}
    for _a, _b, canvas in _canvases()[::7]:
        width, height = canvas.width, canvas.height
        rng = random.Random(width * height)
        for _ in range(40):
            y = rng.randrange(height)
            low, high = sorted((rng.randrange(width), rng.randrange(width)))
            length = rng.randrange(1, 14)
            p, q = (low, y), (max(high, low + 1), y)
            want = next(((x, row) for x, row in labels_module._spots_beside(p, q, length)
                         if _free(canvas, x, row, length)), None)
            assert labels_module._beside_row(canvas, p, q, length) == want, (p, q, length)
            found[want is not None] += 1
    assert found[True] and found[False], found


def _free(canvas: Canvas, x: int, y: int, length: int) -> bool:
    """A label beside a line: on the canvas, and it and a cell either side over nothing at all."""
    if x < 1 or x + length >= canvas.width or not 0 <= y < canvas.height:
        return False
    low = y * canvas.width + x - 1
    return all(canvas.kind[index] == EMPTY and canvas.line_count[index] == 0 for index in range(low, low + length + 2))


def test_a_routes_coordinates_are_its_cells() -> None:
    checked = 0
    for a, b, canvas in _canvases()[::3]:
        route = route_module.best_route(a, b, copy.deepcopy(canvas))
        if route is not None:
            width = canvas.width
            assert route.coordinates() == [(index % width, index // width) for index, _ in route.cells]
            checked += 1
    assert checked
