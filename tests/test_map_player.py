"""The player's own lines in the scene view give way to the others' (issue 24's "who is this to whom"):
drawn only where they meet no other line, else said in the list, first. On stage or selected, the
player is the scene, and their lines are drawn like anyone's."""

from __future__ import annotations

from collections import Counter

from helpers.maps import person, relation

from game.graph.map import render_map
from game.graph.map.draw import MapDrawing

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
