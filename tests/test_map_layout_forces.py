"""The map's own force simulation (game/graph/map/layout.py) places nodes where networkx's spring layout
did, so maps players have seen keep their shape; and a newcomer moves while 200 placed nodes hold."""

from __future__ import annotations

import networkx as nx
import pytest

from benchmarks.map_bench import story_graph
from game.graph.map import compute_layout
from game.graph.map.layout import normalise
from game.graph.models import Edge, Node


def _networkx_layout(nodes: list[Node], edges: list[Edge]) -> dict[str, tuple[float, float]]:
    graph = nx.Graph()
    graph.add_nodes_from(sorted(node.id for node in nodes))
    for edge in edges:
        weight = 0.5 + abs(edge.strength)
        if graph.has_edge(edge.source, edge.target):
            weight = max(weight, graph[edge.source][edge.target]["weight"])
        graph.add_edge(edge.source, edge.target, weight=weight)
    raw = nx.spring_layout(graph, seed=7, iterations=60, weight="weight", method="force")
    return normalise({str(node): (float(xy[0]), float(xy[1])) for node, xy in raw.items()})


@pytest.mark.parametrize("size", [3, 6, 25, 60])
def test_a_fresh_layout_is_networkx_spring_layout(size: int) -> None:
    nodes, edges = story_graph(size)
    ours = compute_layout(nodes, edges)
    theirs = _networkx_layout(nodes, edges)
    assert ours.keys() == theirs.keys()
    assert all(abs(ours[i][0] - theirs[i][0]) < 1e-6 and abs(ours[i][1] - theirs[i][1]) < 1e-6 for i in ours)


def test_a_newcomer_among_200_settles_beside_its_relation_and_nobody_else_moves() -> None:
    nodes, edges = story_graph(200)
    before = compute_layout(nodes, edges)
    newcomer = Node(id="npc-new", name="Newcomer", type="individual", summary="Someone new.",
                    first_seen_turn=99, last_seen_turn=99)
    tie = Edge(id="edge-new", source="npc-new", target="npc-5", relation="OWES", strength=0.9,
               fact="The newcomer owes the fifth one a favour.", valid_at=99)
    after = compute_layout([*nodes, newcomer], [*edges, tie], before)
    assert {i: after[i] for i in before} == before
    x, y = after["npc-new"]
    assert 0.0 <= x <= 1.0 and 0.0 <= y <= 1.0
    anchor = before["npc-5"]
    assert abs(x - anchor[0]) + abs(y - anchor[1]) < 0.5
