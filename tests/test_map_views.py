"""The map's three views: what each draws, what it lists, and that a newcomer moves nobody far."""

from __future__ import annotations

import pytest
from helpers.maps import person, random_graph, relation

from game.graph.map import compute_layout, render_map


@pytest.mark.parametrize("size", [8, 12, 20, 30])
def test_a_newcomer_moves_nobody_in_the_scene_more_than_a_few_cells(size: int) -> None:
    for seed in range(4):
        nodes, edges = random_graph(size, seed)
        positions = compute_layout(nodes, edges)
        newcomer = person("npc-new", "Newcomer", turn=99)
        grown = [*edges, relation("edge-new", "npc-new", "npc-1", "OWES", 0.5, valid_at=99)]
        after = compute_layout([*nodes, newcomer], grown, positions)
        before = render_map(nodes, edges, 46, 30, positions, view="scene", stage=["npc-0"])
        now = render_map([*nodes, newcomer], grown, 46, 30, after, view="scene", stage=["npc-0"])
        moved = {i: abs(b.x - now.boxes[i].x) + abs(b.y - now.boxes[i].y)
                 for i, b in before.boxes.items() if i in now.boxes}
        assert max(moved.values(), default=0) <= 4, (seed, moved)


def test_the_scene_draws_the_stage_and_its_ties_and_lists_the_rest_by_group() -> None:
    nodes = [person("npc-hob", "Hob"), person("npc-ness", "Ness"), person("npc-wren", "Wren"),
             person("npc-guild", "Guild", "faction")]
    nodes += [person(f"npc-m{i}", f"Member {i}") for i in range(20)]
    edges = [relation("e-1", "npc-hob", "npc-ness", "TRUSTS", 0.6), relation("e-2", "npc-ness", "npc-wren", "KIN_OF", 0.8)]
    edges += [relation(f"e-m{i}", f"npc-m{i}", "npc-guild", "MEMBER_OF", 0.5) for i in range(20)]
    drawing = render_map(nodes, edges, 46, 30, view="scene", stage=["npc-hob"])
    assert set(drawing.boxes) == {"npc-hob", "npc-ness"}, "the stage and its close ties"
    text = drawing.plain()
    assert "Guild: Member 0, Member 1" in text and "ties hidden" in text, text
    assert "Wren" in text, "nobody in the cast is dropped silently"


def test_the_person_view_lists_the_neighbours_that_do_not_fit_with_their_relation() -> None:
    nodes = [person("npc-hub", "Hub")] + [person(f"npc-{i}", f"Friend {i}") for i in range(20)]
    edges = [relation(f"e-{i}", f"npc-{i}", "npc-hub", "OWES" if i % 2 else "FEARS", 0.5 if i % 2 else -0.5)
             for i in range(20)]
    drawing = render_map(nodes, edges, 46, 30, view="person", focus="Hub")
    assert "npc-hub" in drawing.boxes and 4 <= len(drawing.boxes) <= 13
    text = drawing.plain()
    for node_id in drawing.listed:
        assert drawing.names[node_id] in text
    assert any(f"{drawing.names[i]} -FEARS→ Hub" in text or f"{drawing.names[i]} +OWES→ Hub" in text
               for i in drawing.listed)
    assert len(drawing.boxes) - 1 + len(drawing.listed) == 20 or "more" in text
    assert all(e.labelled for e in drawing.edges if e.source in drawing.boxes and e.target in drawing.boxes)


def test_a_name_with_no_known_tie_is_said_in_the_roster_not_drawn_adrift() -> None:
    nodes = [person("npc-hob", "Hob"), person("npc-ness", "Ness"), person("npc-guild", "Saltwrights' Guild", "faction")]
    edges = [relation("e-1", "npc-hob", "npc-ness", "TRUSTS", 0.6)]
    drawing = render_map(nodes, edges, 46, 30, view="scene", stage=["npc-hob"])
    assert set(drawing.boxes) == {"npc-hob", "npc-ness"}
    assert "Saltwrights' Guild" in drawing.plain() and "npc-guild" in drawing.listed


def test_the_everyone_view_says_who_has_no_known_tie_instead_of_drawing_them_adrift() -> None:
    nodes = [person("npc-hob", "Hob"), person("npc-ness", "Ness"), person("npc-maud", "Maud Quaile")]
    edges = [relation("e-1", "npc-hob", "npc-ness", "TRUSTS", 0.6)]
    drawing = render_map(nodes, edges, 46, 30, view="everyone")
    assert set(drawing.boxes) == {"npc-hob", "npc-ness"} and drawing.listed == ["npc-maud"]
    text = drawing.plain()
    assert "no known ties: Maud Quaile" in text and "shown" not in text, "nobody is hidden"


def test_the_roster_wraps_between_names_never_inside_one() -> None:
    nodes = [person("npc-hob", "Hob"), person("npc-ness", "Ness"), person("npc-guild", "Saltwrights' Guild", "faction")]
    nodes += [person(f"npc-m{i}", f"Fenn Orrick{i}") for i in range(8)]
    edges = [relation("e-1", "npc-hob", "npc-ness", "TRUSTS", 0.6)]
    edges += [relation(f"e-m{i}", f"npc-m{i}", "npc-guild", "MEMBER_OF", 0.5) for i in range(8)]
    # 30 columns: "Saltwrights' Guild: Fenn Orrick0" is wider than a row, and once wrapped inside the name.
    drawing = render_map(nodes, edges, 30, 18, view="scene", stage=["npc-hob"])
    rows = drawing.plain().splitlines()
    listed = [i for i in drawing.listed if i.startswith("npc-m")]
    assert listed, drawing.plain()
    for node_id in listed:
        assert any(f"Fenn Orrick{node_id[5:]}" in row for row in rows), (node_id, drawing.plain())
    assert any(row.startswith("Saltwrights' Guild:") for row in rows)


def test_a_crowded_stage_in_a_small_pane_labels_or_lists_every_relation() -> None:
    """Five on stage at 32x18 (the pane at 80x24) with fifteen relations among them and to six more: the
    list under the drawing writes each name once where the relations share it, so every relation is on
    its line or in the list and every name is drawn or listed, none counted away as "+N more"."""
    import json

    from helpers.map_rules import check_reading_rules

    from game.graph.map.geometry import geometry

    names = {"lise": "Lise Brack", "dace": "Dace Merrow", "aldous": "Aldous Crane", "wren": "Wren Tallis",
             "ness": "Ness Tallis", "pell": "Pell Garrow", "fenn": "Fenn Orrick", "orla": "Orla Vance",
             "watch": "Harbour Watch", "guild": "Saltwrights' Guild"}
    kinds = {"watch": "faction", "guild": "group"}
    nodes = [person(f"npc-{key}", name, kinds.get(key, "individual")) for key, name in names.items()]
    ties = [("lise", "wren", "TRUSTS", 0.7), ("lise", "dace", "DISTRUSTS", -0.6),
            ("wren", "aldous", "KNOWS_SECRET_OF", 0.4), ("aldous", "dace", "ALLY_OF", 0.5),
            ("ness", "wren", "KIN_OF", 0.8), ("dace", "wren", "DISTRUSTS", -0.5), ("pell", "aldous", "FEARS", -0.7),
            ("pell", "ness", "MOURNS", 0.6), ("aldous", "orla", "SERVES", 0.5), ("dace", "orla", "OWES", 0.4),
            ("dace", "watch", "LEADS", 0.8), ("lise", "watch", "MEMBER_OF", 0.5),
            ("aldous", "guild", "MEMBER_OF", 0.5), ("fenn", "lise", "KIN_OF", 0.6),
            ("fenn", "aldous", "DISTRUSTS", -0.4)]
    edges = [relation(f"e-{number}", f"npc-{a}", f"npc-{b}", name, strength)
             for number, (a, b, name, strength) in enumerate(ties)]
    stage = ["npc-lise", "npc-dace", "npc-aldous", "npc-wren", "npc-ness"]
    for seed in (7, 0, 1, 2, 3):
        drawing = render_map(nodes, edges, 32, 18, compute_layout(nodes, edges, seed=seed), view="scene",
                             stage=stage)
        shape, text = json.loads(json.dumps(geometry(drawing))), drawing.plain()
        check_reading_rules(shape, text)
        unseen = [n["name"] for n in shape["nodes"] if not n["shown"] and n["name"] not in shape["listed"]]
        unlabelled = [(e["source"], e["relation"], e["target"]) for e in shape["edges"] if not e["labelled"]]
        assert (unseen, unlabelled) == ([], []), (seed, text)
        assert all(n["w"] == len(n["name"]) + 2 for n in shape["nodes"] if n["shown"]), "names are whole"
        assert len(shape["edges"]) == len(ties) and "more" not in text, text
