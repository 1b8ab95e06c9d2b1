"""An import (``BulkLoader``) and a game's upserts, one turn at a time, write the same rows for the same facts.

The loader keeps the graph as table rows and takes a lean path for most lines, but it applies the rules
of ``game.graph.upsert`` (unchanged relations, self-healing, ends before beginnings, exclusions, who knows
a new version, version IDs). Both sides here draw from one seeded random source, so even the random
version IDs must agree: every row is compared whole.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers.graph import make_edge, make_node

from game.graph.bulk import BulkLoader
from game.graph.index import GraphIndex
from game.graph.knowing_terms import PUBLIC
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.upsert import UpsertExecution
from game.graph.version_rows import edge_row, knowing_row
from game.graph.vocabulary import Vocabulary

VOCABULARY = Vocabulary.default()
SEED = 11


def _edge(source: str, target: str, relation: str, strength: float, fact: str, **more: Any) -> dict[str, Any]:
    return {"sourceName": source, "targetName": target, "relation": relation, "strength": strength, "fact": fact,
            **more}


# (turn, call): new people (the loader's own path and upsert's), relations written forwards, backwards
# and as inverses, exclusions, a restatement (also made public), a wrong sign and a write back in time
# (both refused whole), knownBy and toldBy (through an execution), closes, and an edge to nobody.
LINES: list[tuple[int, dict[str, Any]]] = [
    (1, {"nodes": [{"name": "Bram", "summary": "A ferryman."},
                   {"name": "The Tide Guild", "type": "faction", "summary": "Owners of the quay."}]}),
    (1, {"nodes": [{"name": "Iska", "summary": "A listener at doors, and at windows."}]}),
    (1, {"nodes": [{"name": "Tomas Reed", "summary": "A net mender.", "aliases": ["Tom"]}]}),
    (2, {"edges": [_edge("Mira Vell", "Tom", "trusts", 0.6, "Mira trusts Tomas with her boat.")]}),
    (3, {"edges": [_edge("Mira Vell", "Tomas Reed", "DISTRUSTS", -0.4, "Mira caught Tomas lying.")]}),
    (4, {"edges": [_edge("Tomas Reed", "Mira Vell", "KIN_OF", 0.5, "They are cousins.")]}),
    (5, {"edges": [_edge("Mira Vell", "Tomas Reed", "kin of", 0.7, "They are cousins, and close.")]}),
    (6, {"edges": [_edge("Mira Vell", "Tomas Reed", "KIN_OF", 0.7, "They are cousins, and close.", public=True)]}),
    (6, {"edges": [_edge("The Tide Guild", "Tomas Reed", "EMPLOYS", 0.3, "Tomas mends the guild's nets.")]}),
    (7, {"edges": [_edge("Mira Vell", "Iska", "LOVES", -0.5, "A wrong sign: the whole line is refused.")]}),
    (2, {"edges": [_edge("Mira Vell", "Tomas Reed", "DISTRUSTS", -0.9, "Written back before turn 3's began.")]}),
    (8, {"edges": [_edge("Iska", "Mira Vell", "FEARS", -0.2, "Iska fears what Mira knows.", knownBy=["Iska"])]}),
    (9, {"edges": [_edge("Iska", "Nobody Known", "OWES", 0.1, "An edge to no one is skipped.")]}),
    (9, {"edges": [_edge("Tomas Reed", "Iska", "TRUSTS", 0.4, "Tomas trusts Iska, on her word.", toldBy="Iska")]}),
    (10, {"closeEdges": [{"sourceName": "Tomas Reed", "targetName": "Mira Vell", "relation": "KIN_OF"}]}),
    # Two versions of Mira's trust in Iska were left open (the stored graph below): the next one heals them.
    (11, {"edges": [_edge("Mira Vell", "Iska", "TRUSTS", 0.8, "Mira trusts Iska with the harbour's secrets.")]}),
]


def _stored() -> tuple[list[Node], list[Edge]]:
    """What the save holds before the facts: two people, and a relation left open twice by an old fault."""
    mira, iska = make_node("Mira Vell"), make_node("Iska", node_id="npc-iska-old")
    return [mira, iska, make_node("Old Bram", node_id="npc-bram")], [make_edge(mira, iska, "TRUSTS", 0.1, valid_at=1, edge_id="edge-trusts-old001"),
                          make_edge(mira, iska, "TRUSTS", 0.2, valid_at=1, edge_id="edge-trusts-old002")]


async def _turn_by_turn() -> tuple[list[str], dict[str, Node], dict[str, list[Any]], dict[tuple[str, str], Any]]:
    nodes, edges = _stored()
    index = GraphIndex(nodes, edges, [e.id for e in edges])
    rng = random.Random(SEED)
    refused: list[str] = []
    written_nodes: dict[str, Node] = {}
    versions: dict[str, Edge] = {}
    knowings: dict[tuple[str, str], Knowing] = {}
    for turn, call in LINES:
        execution = UpsertExecution(index, VOCABULARY, turn, rng=rng)
        outcome = await execution.run(call)
        if outcome.error is not None:
            refused.append(outcome.error)
        index.apply(execution.writes)
        written_nodes.update(execution.writes.nodes)
        versions.update(execution.writes.edges)
        knowings.update(execution.writes.knowings)
    return (refused, written_nodes, {i: edge_row(e) for i, e in versions.items()},
            {key: knowing_row(k) for key, k in knowings.items()})


async def _imported() -> tuple[list[str], dict[str, Node], dict[str, list[Any]], dict[tuple[str, str], Any]]:
    nodes, edges = _stored()
    loader = BulkLoader(VOCABULARY, random.Random(SEED), nodes=nodes, open_edges=[edge_row(e) for e in edges],
                        edge_ids=[e.id for e in edges])
    refused = [done for turn, call in LINES if isinstance(done := await loader.load_line(call, turn), str)]
    return refused, loader.load.nodes, {i: list(row) for i, row in loader.load.edges.items()}, loader.load.knowings


@pytest.fixture
async def both() -> tuple[Any, Any]:
    return await _turn_by_turn(), await _imported()


async def test_an_import_and_turn_by_turn_upserts_write_the_same_rows(both: tuple[Any, Any]) -> None:
    (refused, nodes, versions, knowings), (bulk_refused, bulk_nodes, bulk_versions, bulk_knowings) = both
    assert {i: n.to_json_dict() for i, n in bulk_nodes.items()} == {i: n.to_json_dict() for i, n in nodes.items()}
    assert bulk_versions == versions  # random IDs included: both drew them by the one rule, in the same order
    assert bulk_knowings == knowings
    assert bulk_refused == refused


async def test_the_rules_were_exercised(both: tuple[Any, Any]) -> None:
    (refused, nodes, versions, knowings), _ = both
    assert len(refused) == 2 and "would end it before it began" in refused[1]
    assert nodes["npc-iska-old"].summary == "A listener at doors, and at windows."  # found by name, updated
    assert nodes["npc-bram-2"].name == "Bram"  # a new node's ID avoids every stored one
    healed = {i: row[7] for i, row in versions.items() if i.startswith("edge-trusts-old")}
    assert healed == {"edge-trusts-old001": 11, "edge-trusts-old002": 11}
    kin = sorted((row[1], row[2], row[4], row[7]) for row in versions.values() if row[3] == "KIN_OF")
    # The symmetric relation keeps the direction it was first written in, and was closed at turn 10.
    assert kin == [("npc-tomas-reed", "npc-mira-vell", 0.5, 5), ("npc-tomas-reed", "npc-mira-vell", 0.7, 10)]
    public = {edge_id for edge_id, knower in knowings if knower == PUBLIC}
    assert [versions[i][4] for i in public] == [0.7]  # restated unchanged, but now everyone knows it
    fears = next(i for i, row in versions.items() if row[3] == "FEARS")
    assert [knower for edge_id, knower in knowings if edge_id == fears] == ["npc-iska-old"]  # knownBy only
