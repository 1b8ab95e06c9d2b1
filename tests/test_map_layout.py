"""Map layout: force-directed, deterministic, and incremental (old nodes never move)."""

from __future__ import annotations

import math

from helpers.maps import person, random_graph, relation

from game.graph.map import compute_layout


def test_layout_is_deterministic_and_inside_the_unit_square() -> None:
    nodes, edges = random_graph(25, seed=2)
    first = compute_layout(nodes, edges)
    assert compute_layout(list(reversed(nodes)), edges) == first
    assert set(first) == {n.id for n in nodes}
    assert all(0.0 <= x <= 1.0 and 0.0 <= y <= 1.0 for x, y in first.values())
    xs = [x for x, _ in first.values()]
    ys = [y for _, y in first.values()]
    assert (min(xs), max(xs), min(ys), max(ys)) == (0.0, 1.0, 0.0, 1.0), "a fresh layout fills the pane"


def test_a_new_node_moves_and_nobody_else_does() -> None:
    nodes, edges = random_graph(20, seed=3)
    before = compute_layout(nodes, edges)
    newcomer = person("npc-newcomer", "Newcomer", turn=50)
    after = compute_layout([*nodes, newcomer], [*edges, relation("edge-n", "npc-newcomer", "npc-7", "OWES", -0.6)],
                           before)
    assert {i: after[i] for i in before} == before
    x, y = after["npc-newcomer"]
    distance_to_friend = math.dist((x, y), before["npc-7"])
    others = sorted(math.dist((x, y), p) for i, p in before.items() if i != "npc-7")
    assert distance_to_friend < others[len(others) // 2], "a newcomer settles near whom it relates to"


def test_removed_nodes_drop_out_of_the_layout() -> None:
    nodes, edges = random_graph(8, seed=4)
    before = compute_layout(nodes, edges)
    after = compute_layout(nodes[:-1], [e for e in edges if "npc-7" not in (e.source, e.target)], before)
    assert after == {i: p for i, p in before.items() if i != "npc-7"}


def test_positions_outside_the_square_are_pulled_back_in() -> None:
    nodes = [person("npc-a", "A"), person("npc-b", "B")]
    assert compute_layout(nodes, [], {"npc-a": (1.7, -0.2), "npc-b": (0.5, 0.5)}) == {
        "npc-a": (1.0, 0.0), "npc-b": (0.5, 0.5)}


def test_single_node_sits_in_the_middle() -> None:
    assert compute_layout([person("npc-a", "A")], []) == {"npc-a": (0.5, 0.5)}


def test_a_large_graph_is_laid_out_over_the_grid_and_stays_incremental() -> None:
    """Past the all-pairs size (1,000 nodes is a million pairs) the grid layout keeps the same promises:
    deterministic, filling the square, nobody moving when a newcomer joins beside their relation."""
    from game.graph.map.layout import DENSE_PAIRS

    nodes, edges = random_graph(1000, seed=5)
    assert len(nodes) ** 2 > DENSE_PAIRS
    first = compute_layout(nodes, edges)
    assert compute_layout(list(reversed(nodes)), edges) == first
    xs = [x for x, _ in first.values()]
    ys = [y for _, y in first.values()]
    assert (min(xs), max(xs), min(ys), max(ys)) == (0.0, 1.0, 0.0, 1.0)
    cells = {(round(x * 40), round(y * 40)) for x, y in first.values()}
    assert len(cells) > 500, "nodes spread out rather than collapse onto a few points"
    newcomer = person("npc-newcomer", "Newcomer", turn=900)
    after = compute_layout([*nodes, newcomer], [*edges, relation("edge-n", "npc-newcomer", "npc-7", "OWES", 0.6)],
                           first)
    assert {i: after[i] for i in first} == first
    distance_to_friend = math.dist(after["npc-newcomer"], first["npc-7"])
    others = sorted(math.dist(after["npc-newcomer"], p) for i, p in first.items() if i != "npc-7")
    assert distance_to_friend < others[len(others) // 2]
