"""The map's reading rules, checked from its ``--json`` geometry over random graphs at the pane's sizes.

Every drawing, in every view: a name is drawn whole and never overlaps another; no line runs under a
name; two lines share a cell only where one crosses the other straight at right angles (never at an
end, a corner or a junction); no label overlaps a name or another label; every line shows its sign as
a glyph (on its label or its line) or is listed (unless the list is full and says how many more). In the person view every
relation of the person at the centre is labelled, on its line or in the list (or the list says how many
more it could not show).
"""

from __future__ import annotations

from helpers.map_rules import check_reading_rules
from helpers.maps import random_graph
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from game.graph.map import render_map
from game.graph.map.geometry import geometry

SIZES = [(46, 30), (32, 18), (100, 40), (24, 10), (40, 8), (12, 6)]
"""The pane at 120x40 and 80x24, a wide one, and tiny ones: 80x24 with the details open, a 40-column
terminal, and a pane squeezed to almost nothing (the map still draws or lists, never crashes)."""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(size=11, seed=1035, pane=(46, 30), view="scene", focus=1)  # a label cut short of its sign, listed
@given(size=st.integers(min_value=2, max_value=45), seed=st.integers(min_value=0, max_value=10_000),
       pane=st.sampled_from(SIZES), view=st.sampled_from(["scene", "person", "everyone"]),
       focus=st.integers(min_value=0, max_value=44))
def test_every_drawing_keeps_the_reading_rules(size: int, seed: int, pane: tuple[int, int], view: str,
                                               focus: int) -> None:
    nodes, edges = random_graph(size, seed)
    chosen = f"npc-{focus % size}"
    drawing = render_map(nodes, edges, *pane, focus=chosen, view=view)
    shape = geometry(drawing)
    assert shape["view"] == view and (shape["width"], shape["height"]) == pane
    check_reading_rules(shape, drawing.plain())
    if view == "person":
        centre = drawing.names[chosen]
        mine = [e for e in shape["edges"] if centre in (e["source"], e["target"])]
        assert len(mine) == len(shape["edges"]), "the person view draws the centre's relations only"
        unlabelled = [e for e in mine if not e["labelled"]]
        assert not unlabelled or "more" in drawing.plain(), unlabelled
