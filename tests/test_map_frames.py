"""The everyone view draws groups and factions as frames round their members (issue 24)."""

from __future__ import annotations

from helpers.map_rules import check_reading_rules as _check
from helpers.maps import person, relation

from game.graph.map import render_map
from game.graph.map.geometry import geometry
from game.graph.models import Edge, Node


def guild_and_watch() -> tuple[list[Node], list[Edge]]:
    nodes = [person("npc-guild", "Saltwrights", "faction"), person("npc-watch", "Watch", "group"),
             person("npc-aldous", "Aldous"), person("npc-fenn", "Fenn"), person("npc-pell", "Pell"),
             person("npc-lise", "Lise"), person("npc-dace", "Dace"), person("npc-hob", "Hob")]
    edges = [relation("e-1", "npc-aldous", "npc-guild", "MEMBER_OF", 0.8),
             relation("e-2", "npc-fenn", "npc-guild", "MEMBER_OF", 0.6),
             relation("e-3", "npc-pell", "npc-guild", "MEMBER_OF", 0.5),
             relation("e-4", "npc-lise", "npc-watch", "MEMBER_OF", 0.7),
             relation("e-5", "npc-dace", "npc-watch", "MEMBER_OF", 0.7),
             relation("e-6", "npc-fenn", "npc-watch", "MEMBER_OF", 0.3),
             relation("e-7", "npc-hob", "npc-fenn", "FEARS", -0.6),
             relation("e-8", "npc-lise", "npc-aldous", "DISTRUSTS", -0.5),
             relation("e-9", "npc-pell", "npc-guild", "OWES", 0.2)]
    return nodes, edges


def test_groups_are_frames_holding_their_members_and_the_rest_are_lines() -> None:
    nodes, edges = guild_and_watch()
    for size in ((60, 24), (100, 40)):
        drawing = render_map(nodes, edges, *size, view="everyone")
        shape = geometry(drawing)
        _check(shape, drawing.plain())
        groups = {g["name"]: set(g["members"]) for g in shape["groups"]}
        # Fenn belongs to both: he is drawn in the one he belongs to most, and keeps a line to the other.
        assert groups == {"Saltwrights": {"Aldous", "Fenn"}, "Watch": {"Lise", "Dace"}} or groups == {
            "Saltwrights": {"Aldous", "Fenn", "Pell"}, "Watch": {"Lise", "Dace"}}, groups
        by_pair = {(e["source"], e["target"]): e for e in shape["edges"]}
        assert by_pair[("Aldous", "Saltwrights")]["boxed"] and not by_pair[("Aldous", "Saltwrights")]["cells"]
        assert by_pair[("Fenn", "Watch")]["cells"] and not by_pair[("Fenn", "Watch")]["boxed"], "a second home"
        pell = by_pair[("Pell", "Saltwrights")]
        assert not pell["boxed"] and pell["labelled"], "a membership with more to say is still a line"
        text = drawing.plain()
        assert "┌─[Saltwrights]" in text and "┌─{Watch}" in text, text
        assert all(e["labelled"] for e in shape["edges"]), shape["edges"]


def test_the_other_views_and_a_pane_too_small_for_a_frame_draw_lines() -> None:
    nodes, edges = guild_and_watch()
    for view in ("scene", "person"):
        assert geometry(render_map(nodes, edges, 60, 24, view=view, focus="Fenn"))["groups"] == []
    drawing = render_map(nodes, edges, 14, 8, view="everyone")
    shape = geometry(drawing)
    _check(shape, drawing.plain())
    assert shape["groups"] == [] and not any(e["boxed"] for e in shape["edges"])
