"""The player's own lines in the scene view give way to the others' (issue 24's "who is this to whom"):
drawn only where they meet no other line, else said in the list, first. On stage or selected, the
player is the scene, and their lines are drawn like anyone's."""

from __future__ import annotations

from collections import Counter

from helpers.map_rules import check_reading_rules
from helpers.maps import person, random_graph, relation
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_map_rules import SIZES

from game.graph.map import compute_layout, render_map
from game.graph.map.draw import MapDrawing
from game.graph.map.geometry import geometry

NODES = [person("npc-wren", "Wren", player=True), person("npc-ada", "Ada"), person("npc-bo", "Bo"),
         person("npc-cy", "Cy")]
EDGES = [relation("e1", "npc-ada", "npc-bo", "TRUSTS", 0.6), relation("e2", "npc-wren", "npc-cy", "FEARS", -0.5)]
# Wren above Cy, Ada left of Bo: a line from Wren to Cy can only cross the one from Ada to Bo.
POSITIONS = {"npc-wren": (0.5, 0.0), "npc-cy": (0.5, 1.0), "npc-ada": (0.0, 0.5), "npc-bo": (1.0, 0.5)}


def _draw(stage: list[str], focus: str | None = None) -> MapDrawing:
    return render_map(NODES, EDGES, 30, 12, POSITIONS, focus=focus, view="scene", stage=stage)


def _shared(drawing: MapDrawing) -> list[tuple[int, int]]:
    use = Counter(cell for edge in drawing.edges for cell in edge.cells)
    return [cell for cell, count in use.items() if count > 1]


def test_a_line_of_the_players_that_would_cross_is_listed_first() -> None:
    drawing = _draw(["npc-ada", "npc-bo"])
    lines = {(e.source, e.target): e for e in drawing.edges}
    assert lines[("npc-ada", "npc-bo")].cells and lines[("npc-ada", "npc-bo")].label is not None
    mine = lines[("npc-wren", "npc-cy")]
    assert mine.cells == [] and mine.listed and mine.labelled
    assert _shared(drawing) == []
    text = drawing.plain().splitlines()
    assert text[drawing.area:][0].strip() == "Wren -FEARS→ Cy", drawing.plain()


def test_the_player_on_stage_or_selected_is_drawn_as_anyone() -> None:
    for drawing in (_draw(["npc-wren"]), _draw(["npc-ada", "npc-bo"], focus="Wren")):
        mine = next(e for e in drawing.edges if e.source == "npc-wren")
        assert mine.cells and not mine.listed, drawing.plain()
        assert len(_shared(drawing)) == 1  # the one straight crossing: ┼
        assert "┼" in drawing.plain()


def test_the_everyone_view_draws_the_players_lines() -> None:
    drawing = render_map(NODES, EDGES, 30, 12, POSITIONS, view="everyone")
    assert all(edge.cells for edge in drawing.edges), drawing.plain()


def _unsaid(drawing: MapDrawing) -> int:
    shape = geometry(drawing)
    return (sum(1 for n in shape["nodes"] if not n["shown"] and n["name"] not in shape["listed"])
            + sum(1 for e in shape["edges"] if not e["labelled"]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(min_value=4, max_value=30), seed=st.integers(min_value=0, max_value=10_000),
       pane=st.sampled_from(SIZES), stage=st.integers(min_value=0, max_value=29))
@example(size=27, seed=3273, pane=(24, 10), stage=19)  # CI found it: the player's list crowded out a name
def test_the_players_lines_give_way_without_leaving_anything_unsaid(size: int, seed: int, pane: tuple[int, int],
                                                                    stage: int) -> None:
    """Over random graphs where the player knows more people than anyone: the reading rules hold, and the
    scene view leaves no more names or relations unsaid than if the player were anyone."""
    anyone, edges = random_graph(size, seed)
    edges += [relation(f"edge-p{i}", "npc-0", f"npc-{i}", "TRUSTS", 0.5) for i in range(2, size, 3)]
    player = [person("npc-0", anyone[0].name, anyone[0].type, player=True), *anyone[1:]]
    positions = compute_layout(anyone, edges)
    on_stage = [f"npc-{1 + stage % (size - 1)}"]
    drawing = render_map(player, edges, *pane, positions, view="scene", stage=on_stage)
    check_reading_rules(geometry(drawing), drawing.plain())
    assert _unsaid(drawing) <= _unsaid(render_map(anyone, edges, *pane, positions, view="scene", stage=on_stage))


def test_a_long_line_of_the_players_is_listed_in_a_crowded_drawing_even_where_it_meets_no_other() -> None:
    """Wren in one corner, Cy in the other, three pairs of others between: a clear path for Wren's line
    runs the length of the pane and up its side. With only the four of them it is drawn."""
    corners = {"npc-wren": (0.0, 1.0), "npc-cy": (1.0, 0.0), "npc-ada": (0.0, 0.0), "npc-bo": (0.3, 0.0)}
    others = [person(f"npc-{n}", f"Pat {n}") for n in range(6)]
    pairs = [relation(f"e-{n}", f"npc-{n}", f"npc-{n + 1}", "KIN_OF", 0.3) for n in range(0, 6, 2)]
    positions = {**corners, **{f"npc-{n}": (0.2 + 0.25 * (n % 2), 0.3 + 0.1 * n) for n in range(6)}}
    crowded = render_map([*NODES, *others], [*EDGES, *pairs], 60, 30, positions, view="scene", stage=["npc-ada"])
    mine = next(e for e in crowded.edges if e.source == "npc-wren")
    assert mine.cells == [] and mine.gave_way and mine.listed, crowded.plain()
    assert _shared(crowded) == []
    few = render_map(NODES, EDGES, 60, 30, corners, view="scene", stage=["npc-ada"])
    assert len(next(e for e in few.edges if e.source == "npc-wren").cells) * 4 > 60 + 30, few.plain()
