"""Centring a map smaller than its pane: the pure offset, and what ``render_map`` draws with it.

The stored positions come from a layout of everyone in the save, so the few people known early on sit in
some corner of it; the player should still see them in the middle of the pane, a cell clear of the border,
and placed relative to each other exactly as the positions say.
"""

from __future__ import annotations

import pytest
from helpers.maps import harbour, person, random_graph, relation
from hypothesis import given
from hypothesis import strategies as st

from game.graph.map import compute_layout, render_map
from game.graph.map.centre import Box, bounds, centring_offset
from game.graph.models import Edge, Node

# ------------------------------------------------------------------------------ the pure offset


def test_a_small_drawing_against_the_left_border_moves_to_the_middle() -> None:
    # Three names down the left edge of a 46x30 pane, as the turn-0 map was drawn.
    boxes = [(10, 18, 22, 18), (0, 22, 12, 22), (0, 26, 12, 26)]
    dx, dy = centring_offset(boxes, 46, 30)
    assert (dx, dy) == (11, -8)
    left, top, right, bottom = bounds(boxes) or (0, 0, 0, 0)
    assert (left + dx, 46 - 1 - (right + dx)) == (11, 12), "margins equal but for the odd spare column"
    assert (top + dy, 30 - 1 - (bottom + dy)) == (10, 11)


def test_a_drawing_that_fills_the_pane_is_not_moved() -> None:
    assert centring_offset([(0, 0, 45, 3), (5, 20, 9, 29)], 46, 30) == (0, 0)


def test_each_axis_is_centred_on_its_own() -> None:
    # Full width but only three rows tall: only the vertical offset is non-zero.
    assert centring_offset([(0, 0, 39, 0), (3, 2, 8, 2)], 40, 13) == (0, 5)


def test_no_boxes_no_offset() -> None:
    assert centring_offset([], 40, 20) == (0, 0)
    assert bounds([]) is None


def test_a_drawing_one_cell_smaller_than_the_pane_is_still_balanced() -> None:
    assert centring_offset([(1, 0, 9, 0)], 10, 1) == (-1, 0)


@given(st.lists(st.tuples(st.integers(0, 59), st.integers(0, 29), st.integers(0, 20), st.integers(0, 3)),
                min_size=1, max_size=8))
def test_the_offset_keeps_every_box_inside_and_a_margin_where_there_is_room(
        spots: list[tuple[int, int, int, int]]) -> None:
    width, height = 60, 30
    boxes: list[Box] = [(x, y, min(width - 1, x + w), min(height - 1, y + h)) for x, y, w, h in spots]
    dx, dy = centring_offset(boxes, width, height)
    left, top, right, bottom = bounds(boxes) or (0, 0, 0, 0)
    assert 0 <= left + dx <= right + dx < width
    assert 0 <= top + dy <= bottom + dy < height
    for low, high, size in ((left + dx, right + dx, width), (top + dy, bottom + dy, height)):
        before, after = low, size - 1 - high
        assert after - before in (0, 1), "centred, an odd spare cell after the drawing"
        if high - low + 1 <= size - 2:
            assert before >= 1 and after >= 1


# ------------------------------------------------------------------------------ in the drawing


def trio() -> tuple[list[Node], list[Edge]]:
    nodes = [person("npc-hob", "Hob Tarrant"), person("npc-wren", "Wren Tallis"), person("npc-ness", "Ness Tallis")]
    edges = [relation("e1", "npc-hob", "npc-wren", "TRUSTS", 0.3), relation("e2", "npc-ness", "npc-wren", "KIN_OF", 0.6)]
    return nodes, edges


CORNER = {"npc-hob": (0.1, 0.55), "npc-wren": (0.0, 0.65), "npc-ness": (0.0, 0.75)}


def margins(plain: str, rows: int, width: int) -> tuple[int, int, int, int]:
    """Blank columns left and right of the drawing, blank rows above and below it (in the top ``rows``)."""
    lines = (plain.split("\n") + [""] * rows)[:rows]
    used = [y for y, line in enumerate(lines) if line.strip()]
    left = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    right = width - max(len(line.rstrip()) for line in lines)
    return left, right, used[0], rows - 1 - used[-1]


def test_a_few_people_in_a_corner_of_the_layout_are_drawn_centred_with_a_margin() -> None:
    nodes, edges = trio()
    drawing = render_map(nodes, edges, 46, 30, positions=CORNER)
    left, right, above, below = margins(drawing.plain(), 29, 46)  # the last row is the legend
    assert left >= 1 and right >= 1
    assert abs(left - right) <= 1 and abs(above - below) <= 1
    assert drawing.positions == CORNER, "the stored positions are kept as they were"


def test_where_the_group_sits_in_the_layout_does_not_move_it_on_screen() -> None:
    # The same three people moved as a group (by whole cells) draw the same picture: only their places
    # relative to each other count, so the drawing never jumps when the layout's corner changes.
    nodes, edges = trio()
    moved = {node_id: (x + 20 / 45, y - 7 / 28) for node_id, (x, y) in CORNER.items()}
    assert render_map(nodes, edges, 46, 30, positions=moved).plain() == \
        render_map(nodes, edges, 46, 30, positions=CORNER).plain()


def test_names_and_lines_are_recorded_where_they_are_drawn() -> None:
    # Mouse selection and every test read ``boxes`` and ``lines``: they move with the drawing.
    nodes, edges = trio()
    drawing = render_map(nodes, edges, 46, 30, positions=CORNER)
    rows = drawing.plain().split("\n")
    for node_id, box in drawing.boxes.items():
        assert rows[box.y][box.x:box.end + 1] == box.text
        assert drawing.node_at(box.x, box.y) == node_id
    for cells in drawing.lines.values():
        assert all(rows[y][x] != " " for x, y in cells)


@pytest.mark.parametrize("size", [(44, 14), (64, 20), (100, 30)])
def test_the_relative_placement_of_names_is_kept(size: tuple[int, int]) -> None:
    nodes, edges = harbour()
    spread = {"npc-mira": (0.1, 0.1), "npc-tomas": (0.5, 0.1), "npc-oren": (0.1, 0.5),
              "npc-lantern-guild": (0.5, 0.4), "npc-harbour-watch": (0.3, 0.6)}
    drawing = render_map(nodes, edges, *size, positions=spread)
    mira = drawing.boxes["npc-mira"]
    tomas, oren = drawing.boxes["npc-tomas"], drawing.boxes["npc-oren"]
    assert mira.y == tomas.y and mira.x < tomas.x and oren.y > mira.y
    left, right, _above, _below = margins(drawing.plain(), size[1] - 1, size[0])
    assert left >= 1 and abs(left - right) <= 1


def test_a_crowded_map_still_uses_the_pane_edge_to_edge() -> None:
    # A crowded map already reaches the pane's edges: centring neither pads nor squeezes it.
    nodes, edges = random_graph(40)
    positions = compute_layout(nodes, edges)
    drawing = render_map(nodes, edges, 60, 24, positions=positions)
    xs = [box.x for box in drawing.boxes.values()] + [box.end for box in drawing.boxes.values()]
    assert min(xs) == 0 or max(xs) == 59


def test_a_few_names_laid_out_close_together_are_spread_over_the_pane() -> None:
    # The first people a player meets sit close together in the layout of the whole save; drawn as laid
    # out they filled only the middle of a 46x30 pane, their lines too short to label.
    nodes, edges = trio()
    close = {"npc-hob": (0.50, 0.50), "npc-wren": (0.46, 0.53), "npc-ness": (0.47, 0.56)}
    drawing = render_map(nodes, edges, 46, 30, positions=close)
    boxes = drawing.boxes
    assert max(b.end for b in boxes.values()) - min(b.x for b in boxes.values()) >= 30
    assert max(b.y for b in boxes.values()) - min(b.y for b in boxes.values()) >= 14
    assert boxes["npc-wren"].x < boxes["npc-hob"].x and boxes["npc-hob"].y < boxes["npc-wren"].y < boxes["npc-ness"].y
    left, right, _above, _below = margins(drawing.plain(), 29, 46)
    assert left >= 1 and right >= 1, "a cell clear of the border"
    assert all(e.label is not None for e in drawing.edges), "every line long enough for its label"
