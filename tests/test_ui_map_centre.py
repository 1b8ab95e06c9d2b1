"""The map pane of a new game of the shipped world: the few people known at turn 0 are drawn in the middle
of the pane, clear of its border, and stay centred (as a group, nobody moving on their own) as people
are met. Real app, real saves, the real Pilot."""

from __future__ import annotations

from pathlib import Path

from helpers.ui import make_app, play, settle

from game.config import Settings, load_settings
from game.graph.map import MapDrawing, render_map
from game.ui.relationship_map import RelationshipMap

CONTENT = Path(__file__).parent.parent / "content"
TURN_ZERO = {"npc-wren-tallis", "npc-hob-tarrant", "npc-ness-tallis"}


def brinefall(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT, "world": "brinefall"},
                         env={})


def shown(graph: RelationshipMap) -> list[str]:
    """The map's rows as the widget draws them on screen."""
    return ["".join(segment.text for segment in graph.render_line(y)) for y in range(graph.size.height)]


def margins(graph: RelationshipMap, drawing: MapDrawing) -> tuple[int, int, int, int]:
    """Blank columns left and right of the names and lines, blank rows above and below them."""
    rows = shown(graph)
    legend = drawing.area  # the list under the drawing, the legend and the notes are not the drawing
    body = rows[:legend]
    used = [y for y, row in enumerate(body) if row.strip()]
    left = min(len(row) - len(row.lstrip()) for row in body if row.strip())
    right = graph.size.width - max(len(row.rstrip()) for row in body)
    return left, right, used[0], legend - 1 - used[-1]


async def test_the_people_known_at_turn_0_are_drawn_centred_in_the_pane(tmp_path: Path) -> None:
    for size in ((120, 40), (90, 30)):
        app = make_app(tmp_path, brinefall(tmp_path), save=f"centre-{size[0]}")
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            graph = app.map_pane.map
            drawing = graph.drawing
            assert set(drawing.boxes) == TURN_ZERO
            rows = shown(graph)
            for box in drawing.boxes.values():
                assert box.x >= 2, f"{box.text} is drawn against the pane's left border"
                assert rows[box.y][box.x:box.end + 1] == box.text, "the boxes say where the names are drawn"
            left, right, above, below = margins(graph, drawing)
            assert left >= 1 and right >= 1 and above >= 1 and below >= 1
            assert abs(left - right) <= 2, (left, right)
            assert abs(above - below) <= 2, (above, below)


async def test_as_people_are_met_the_map_recentres_without_moving_anyone_alone(tmp_path: Path) -> None:
    app = make_app(tmp_path, brinefall(tmp_path), save="grow")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        graph = app.map_pane.map
        before = dict(graph.positions)
        await play(pilot, "ask hob about ness")
        drawing = graph.drawing
        assert "npc-eel-run" in drawing.boxes
        assert {node_id: graph.positions[node_id] for node_id in before} == before, "stored positions kept"
        left, right, _above, _below = margins(graph, drawing)
        assert left >= 1 and right >= 1 and abs(left - right) <= 2, (left, right)
        # Tab still walks the names, and a click on a drawn name selects it.
        graph.focus()
        await pilot.press("tab")
        assert graph.selected is not None
        await settle(pilot)
        hob = graph.drawing.boxes["npc-hob-tarrant"]
        await pilot.click(RelationshipMap, offset=(hob.x + 1, hob.y))
        assert graph.selected == "npc-hob-tarrant"


async def test_v_switches_the_view_and_selecting_a_name_moves_nobody(tmp_path: Path) -> None:
    app = make_app(tmp_path, brinefall(tmp_path), save="views")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        graph = app.map_pane.map
        await play(pilot, "ask hob about ness")
        assert graph.view == "scene" and graph.drawing.view == "scene"
        graph.focus()
        graph.select("npc-hob-tarrant")
        await settle(pilot)
        selected = graph.drawing
        # The details open under the map and the map gets shorter; at that size, the names sit where
        # they would with nothing selected.
        unselected = render_map(graph.nodes, graph.edges, graph.size.width, graph.size.height, graph.positions,
                                view="scene", stage=graph.stage)
        assert {i: (b.x, b.y) for i, b in selected.boxes.items()} == {
            i: (b.x, b.y) for i, b in unselected.boxes.items()}, "selecting a name does not re-lay the map"
        assert graph.size.height >= 10, "the details leave the map a readable height"
        await pilot.press("v")
        await settle(pilot)
        person = graph.drawing
        assert graph.view == "person" and person.view == "person"
        assert "npc-hob-tarrant" in person.boxes and "person" in str(app.map_pane.border_title)
        assert all("npc-hob-tarrant" in (e.source, e.target) for e in person.edges)
        await pilot.press("v")
        await settle(pilot)
        assert graph.drawing.view == "everyone"
        await pilot.press("v")
        await settle(pilot)
        assert graph.drawing.view == "scene" and str(app.map_pane.border_title) == "Relationships"


async def test_undo_shows_the_map_as_it_was(tmp_path: Path) -> None:
    app = make_app(tmp_path, brinefall(tmp_path), save="undo-map")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        graph = app.map_pane.map
        await play(pilot, "ask hob about ness")
        before = graph.drawing.plain()
        await play(pilot, "go to lowtown")
        await play(pilot, "talk to ness")
        assert graph.drawing.plain() != before, "the later turns changed the map"
        for _ in range(2):
            await play(pilot, "undo")
        assert graph.drawing.plain() == before
