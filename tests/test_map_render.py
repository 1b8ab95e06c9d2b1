"""The relationship map renderer: golden text, and the promises every drawing keeps."""

from __future__ import annotations

import itertools

import pytest
from helpers.maps import HARBOUR_POSITIONS, cell, harbour, person, random_graph, relation, style_at

from game.errors import InputError
from game.graph.map import EMPTY_TEXT, LEGEND, compute_layout, render_map
from game.graph.map.canvas import Run
from game.graph.map.style import NEGATIVE_COLOUR, POSITIVE_COLOUR, TYPE_COLOURS, CellStyle

HARBOUR_MAP = """
    (Mira)──────+TRUSTS─────→(Tomas)
     │   │                      │
     │   │                      │
     ·   │                 +MEMBER_OF
  KIN_OF │                      │
     │   │ -FEARS               │
     │   │                      ↓
     ↓   │                 {Lantern Guild}
 (Oren)  │
         └──→[Harbour Watch]


+ positive  - negative  · neutral"""


def test_golden_harbour_map() -> None:
    nodes, edges = harbour()
    drawing = render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS)
    assert drawing.plain() == HARBOUR_MAP


def test_names_are_bracketed_by_type_and_coloured() -> None:
    nodes, edges = harbour()
    drawing = render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS)
    watch = drawing.boxes["npc-harbour-watch"]
    guild = drawing.boxes["npc-lantern-guild"]
    mira = drawing.boxes["npc-mira"]
    assert (watch.text, guild.text, mira.text) == ("[Harbour Watch]", "{Lantern Guild}", "(Mira)")
    assert style_at(drawing, watch.x, watch.y).fg == TYPE_COLOURS["faction"]  # type: ignore[attr-defined]
    assert style_at(drawing, guild.x, guild.y).fg == TYPE_COLOURS["group"]  # type: ignore[attr-defined]
    assert style_at(drawing, mira.x, mira.y).fg == TYPE_COLOURS["individual"]  # type: ignore[attr-defined]


def test_edges_are_coloured_by_sign_and_point_at_their_target() -> None:
    nodes, edges = harbour()
    drawing = render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS)
    trusts = drawing.lines[("npc-mira", "npc-tomas")]
    x, y = trusts[-1]
    assert cell(drawing, x, y) == "→"
    assert style_at(drawing, x, y).fg == POSITIVE_COLOUR  # type: ignore[attr-defined]
    fears = drawing.lines[("npc-harbour-watch", "npc-mira")]
    # Lines run from the lower ID; the arrow sits at the Watch end because Mira fears the Watch.
    x, y = fears[0]
    assert cell(drawing, x, y) == "→"
    assert style_at(drawing, x, y).fg == NEGATIVE_COLOUR  # type: ignore[attr-defined]


def test_ansi_output_carries_the_palette() -> None:
    nodes, edges = harbour()
    ansi = render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS).ansi()
    assert "\x1b[1;38;2;96;165;250m(Mira)" in ansi  # individual #60a5fa
    assert "38;2;245;158;11m[Harbour Watch]" in ansi  # faction #f59e0b
    assert "38;2;34;197;94m" in ansi and "38;2;239;68;68m" in ansi  # positive and negative lines
    assert "\x1b" not in render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS).plain()


@pytest.mark.parametrize("cast", [[], [person("npc-sam", "Sam", player=True)],
                                  [person("npc-a", "Ada"), person("npc-b", "Bo")]])
def test_a_graph_without_relations_shows_the_empty_state(cast: list[object]) -> None:
    drawing = render_map(cast, [], 40, 10)  # type: ignore[arg-type]
    text = " ".join(drawing.plain().split())
    assert text == EMPTY_TEXT
    assert drawing.boxes == {}


def test_relations_that_ended_leave_the_empty_state_unless_shown() -> None:
    nodes, _ = harbour()
    ended = [relation("edge-old", "npc-mira", "npc-oren", "OWES", -0.5, valid_at=1, invalid_at=2)]
    assert " ".join(render_map(nodes, ended, 44, 14, positions=HARBOUR_POSITIONS).plain().split()) == EMPTY_TEXT
    shown = render_map(nodes, ended, 44, 14, positions=HARBOUR_POSITIONS, show_closed=True)
    assert ("npc-mira", "npc-oren") in shown.lines


def test_legend_is_on_the_map_when_wide_enough() -> None:
    nodes, edges = harbour()
    drawing = render_map(nodes, edges, 60, 14, positions=HARBOUR_POSITIONS)
    assert drawing.plain().splitlines()[-1] == LEGEND


@pytest.mark.parametrize(("size", "width", "height"), [(6, 50, 30), (25, 50, 30), (60, 120, 40), (40, 30, 12)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_names_never_overlap_and_every_edge_reaches_both_names(size: int, width: int, height: int, seed: int) -> None:
    nodes, edges = random_graph(size, seed)
    drawing = render_map(nodes, edges, width, height)
    boxes = list(drawing.boxes.values())
    assert boxes, "something is drawn"
    for a, b in itertools.combinations(boxes, 2):
        overlap = a.y == b.y and a.x <= b.end + 1 and b.x <= a.end + 1
        assert not overlap, f"{a.text} and {b.text} collide"
    lines = drawing.plain().splitlines()
    for box in boxes:
        assert lines[box.y][box.x:box.end + 1] == box.text
    drawn = {(min(e.source, e.target), max(e.source, e.target)) for e in edges
             if e.source in drawing.boxes and e.target in drawing.boxes}
    # A membership the group's frame round the person says needs no line.
    boxed = {(min(e.source, e.target), max(e.source, e.target)) for e in drawing.edges if e.boxed}
    unlined = drawn - set(drawing.lines) - boxed
    listed = {(min(e.source, e.target), max(e.source, e.target)) for e in drawing.edges if e.listed}
    assert unlined <= listed or "more" in drawing.plain(), "a relation with no line is listed under the drawing"
    assert len(unlined) <= len(drawn) * 2 // 5, "most relations get a line"
    for (a, b), path in drawing.lines.items():
        assert _touches(path[0], drawing.boxes[a]) and _touches(path[-1], drawing.boxes[b])
        for x, y in path:
            assert (x, y) not in _label_cells(drawing), "a line runs under a name"


def _touches(point: tuple[int, int], box: object) -> bool:
    x, y = point
    bx, by, end = box.x, box.y, box.end  # type: ignore[attr-defined]
    return (y == by and x in (bx - 1, end + 1)) or (y in (by - 1, by + 1) and bx <= x <= end)


def _label_cells(drawing: object) -> set[tuple[int, int]]:
    return {(x, box.y) for box in drawing.boxes.values() for x in range(box.x, box.end + 1)}  # type: ignore[attr-defined]


def test_old_names_stay_put_when_a_node_is_added() -> None:
    nodes, edges = random_graph(12, seed=4)
    positions = compute_layout(nodes, edges)
    before = render_map(nodes, edges, 60, 24, positions=positions)
    newcomer = person("npc-newcomer", "Newcomer", turn=99)
    grown_nodes = [*nodes, newcomer]
    grown_edges = [*edges, relation("edge-new", "npc-newcomer", "npc-3", "SERVES", 0.4, valid_at=99)]
    after = render_map(grown_nodes, grown_edges, 60, 24, positions=positions)
    assert {i: after.positions[i] for i in positions} == positions
    assert "npc-newcomer" in after.positions
    assert {i: after.boxes[i] for i in before.boxes} == before.boxes
    assert "npc-newcomer" in after.boxes


def test_closed_versions_are_hidden_unless_asked_then_dashed_and_dim() -> None:
    nodes, edges = harbour()
    edges.append(relation("edge-old", "npc-oren", "npc-tomas", "OWES", -0.5, valid_at=1, invalid_at=3))
    hidden = render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS)
    assert ("npc-oren", "npc-tomas") not in hidden.lines
    shown = render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS, show_closed=True)
    path = shown.lines[("npc-oren", "npc-tomas")]
    chars = {cell(shown, x, y) for x, y in path}
    assert chars & {"╌", "╎"}, chars
    middle = path[len(path) // 2]
    assert style_at(shown, *middle).dim  # type: ignore[attr-defined]
    assert "ended relations dashed" in shown.plain()


def test_time_travel_shows_the_graph_as_it_stood() -> None:
    nodes, edges = harbour()
    nodes.append(person("npc-ash", "Ash", turn=5))
    edges += [
        relation("edge-ash", "npc-ash", "npc-mira", "DISTRUSTS", -0.5, valid_at=5),
        relation("edge-owes", "npc-oren", "npc-tomas", "OWES", -0.5, valid_at=2, invalid_at=4),
    ]
    positions = {**HARBOUR_POSITIONS, "npc-ash": (0.5, 0.5)}
    at3 = render_map(nodes, edges, 44, 14, positions=positions, at_turn=3)
    assert "npc-ash" not in at3.boxes
    assert ("npc-oren", "npc-tomas") in at3.lines
    assert "As of turn 3" in at3.plain()
    at4 = render_map(nodes, edges, 44, 14, positions=positions, at_turn=4)
    assert ("npc-oren", "npc-tomas") not in at4.lines
    now = render_map(nodes, edges, 44, 14, positions=positions)
    assert "npc-ash" in now.boxes and ("npc-ash", "npc-mira") in now.lines


def test_focus_highlights_the_node_and_dims_what_is_beyond_two_hops() -> None:
    nodes = [person(f"npc-{c}", c.upper()) for c in "abcde"]
    edges = [relation(f"e{i}", f"npc-{a}", f"npc-{b}", "KNOWS", 0.5) for i, (a, b) in enumerate(["ab", "bc", "cd", "de"])]
    positions = {f"npc-{c}": (i / 4, (i % 2) * 0.8) for i, c in enumerate("abcde")}
    drawing = render_map(nodes, edges, 50, 16, positions=positions, focus="A")
    a, c, d = (drawing.boxes[f"npc-{n}"] for n in "acd")
    focus_style = style_at(drawing, a.x, a.y)
    assert isinstance(focus_style, CellStyle) and focus_style.bg == TYPE_COLOURS["individual"]
    assert not style_at(drawing, c.x, c.y).dim  # type: ignore[attr-defined]
    assert style_at(drawing, d.x, d.y).dim  # type: ignore[attr-defined]


def test_a_large_graph_shows_only_the_focused_neighbourhood() -> None:
    nodes, edges = random_graph(60, seed=5)
    drawing = render_map(nodes, edges, 50, 30, focus="npc-10")
    near = {"npc-10"}
    for _ in range(2):
        near |= {e.other_end(n) for e in edges for n in list(near) if n in (e.source, e.target)}
    assert "npc-10" in drawing.boxes
    assert set(drawing.boxes) <= near
    assert len(drawing.boxes) <= 25
    assert "of 60 shown" in drawing.plain()


def test_unknown_focus_is_a_clear_error() -> None:
    nodes, edges = harbour()
    with pytest.raises(InputError, match="No character, group or faction called 'Nobody'"):
        render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS, focus="Nobody")


def test_focus_accepts_names_aliases_and_ids_case_insensitively() -> None:
    nodes, edges = harbour()
    nodes[1] = nodes[1].model_copy(update={"aliases": ["the Bookkeeper"]})
    for wanted in ("npc-tomas", "tomas", "THE BOOKKEEPER"):
        assert render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS, focus=wanted).focus == "npc-tomas"


def test_focus_resolves_by_the_one_rule_and_reports_a_shared_alias() -> None:
    nodes, edges = harbour()
    # "Tomas" becomes another node's alias: the node it is the name of still wins.
    nodes[0] = nodes[0].model_copy(update={"aliases": ["Tomas", "the Clerk"]})
    assert render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS, focus="tomas").focus == "npc-tomas"
    # An alias two nodes share is reported with both, not resolved to either.
    nodes[1] = nodes[1].model_copy(update={"aliases": ["the clerk"]})
    with pytest.raises(InputError, match=r"'The Clerk' names more than one character: .*npc-.*npc-tomas"):
        render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS, focus="The Clerk")


def test_zoom_follows_the_focus_and_leaves_others_off_screen() -> None:
    nodes, edges = random_graph(20, seed=6)
    whole = render_map(nodes, edges, 60, 24)
    zoomed = render_map(nodes, edges, 60, 24, positions=whole.positions, focus="npc-0", zoom=3)
    assert "npc-0" in zoomed.boxes
    assert len(zoomed.boxes) < len(whole.boxes)
    assert "off-screen" in zoomed.plain() and "zoom x3" in zoomed.plain()


def test_a_name_too_long_for_the_pane_is_listed_whole_never_cut() -> None:
    long = "Archivist-Magister Philippa Wentworth-Hargreaves"
    nodes = [person("npc-long", long), person("npc-b", "Bo")]
    drawing = render_map(nodes, [relation("e1", "npc-b", "npc-long", "SERVES", 0.5)], 60, 8)
    assert drawing.boxes["npc-long"].text == f"({long})", "a name that fits is drawn whole"
    narrow = render_map(nodes, [relation("e1", "npc-b", "npc-long", "SERVES", 0.5)], 30, 12)
    assert "npc-long" not in narrow.boxes and "…" not in narrow.plain()
    assert narrow.listed == ["npc-long"]
    assert "Bo +SERVES→" in narrow.plain(), "the list says who it is to the drawn name"


@pytest.mark.parametrize(("width", "height"), [(1, 1), (3, 2), (8, 3), (12, 4), (20, 2), (200, 3)])
def test_tiny_panes_never_crash(width: int, height: int) -> None:
    nodes, edges = random_graph(15, seed=7)
    drawing = render_map(nodes, edges, width, height)
    lines = drawing.rows
    assert len(lines) == height
    assert all(sum(len(run.text) for run in row) == width for row in lines)
    assert all(isinstance(run, Run) for row in lines for run in row)


def test_click_lookup_finds_the_name_under_the_pointer() -> None:
    nodes, edges = harbour()
    drawing = render_map(nodes, edges, 44, 14, positions=HARBOUR_POSITIONS)
    box = drawing.boxes["npc-oren"]
    assert drawing.node_at(box.x, box.y) == "npc-oren"
    assert drawing.node_at(box.end, box.y) == "npc-oren"
    assert drawing.node_at(box.end + 1, box.y) is None


def test_every_line_carries_its_sign_as_a_glyph_and_the_legend_never_wraps() -> None:
    """For colour-blind players and plain output: the sign is readable without colour."""
    nodes, edges = harbour()
    for width, height in [(44, 14), (30, 12), (36, 12)]:
        drawing = render_map(nodes, edges, width, height, positions=HARBOUR_POSITIONS)
        text = drawing.plain()
        body = text.splitlines()[:-1]
        glyphs = sum(row.count("+") + row.count("-") + row.count("·") for row in body)
        assert glyphs == len(drawing.lines) == 4, text
        assert "-FEARS" in text and "+TRUSTS" in text
        legend = text.splitlines()[-1]
        assert legend in (LEGEND, "+pos -neg ·neutral") and len(legend) <= width
    assert render_map(nodes, edges, 14, 12, positions=HARBOUR_POSITIONS).plain().count("neutral") == 0


def test_a_short_one_way_line_still_carries_its_sign() -> None:
    """Brinefall's opening map drew Ness → Wren (KIN_OF) as a bare `↑ │`: two rows apart, the line had no
    middle cell, so it showed neither its name nor its sign. The end without an arrow carries the sign."""
    nodes = [person("npc-ness", "Ness"), person("npc-wren", "Wren")]
    edges = [relation("edge-1", "npc-ness", "npc-wren", "KIN_OF", 0.8)]
    for height in range(5, 9):  # from two cells of line between them
        drawing = render_map(nodes, edges, 30, height, positions={"npc-wren": (0.1, 0.0), "npc-ness": (0.1, 1.0)})
        body = drawing.plain().splitlines()[:-1]
        assert sum(row.count("+") for row in body) == 1, "\n".join(body)
        assert sum(row.count("↑") for row in body) == 1, "\n".join(body)
