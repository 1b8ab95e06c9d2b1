"""The upsert call's contract: limits, ranges and shapes, each rejected with a message naming the field.

A rejected call writes nothing; the execution carries on with the next call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_graph_support import Harness, edge_call, node_call

from game.graph.models import Edge, Node, UpsertCall
from game.graph.upsert import parse_call

TWO = [node_call("Mira"), node_call("Tomas")]


def with_edge(**changes: Any) -> dict[str, Any]:
    edge = edge_call("Mira", "Tomas", "TRUSTS")
    edge.update(changes)
    return {"nodes": TWO, "edges": [edge]}


REJECTED: dict[str, tuple[Any, str]] = {
    "empty call": ({}, "at least one node, edge or closeEdges"),
    "empty lists": ({"nodes": [], "edges": [], "closeEdges": []}, "at least one"),
    "nine nodes": ({"nodes": [node_call(f"Person {i}") for i in range(9)]}, "nodes: List should have at most 8"),
    "thirteen edges": (
        {"nodes": TWO, "edges": [edge_call("Mira", "Tomas", f"REL_{chr(65 + i)}") for i in range(13)]},
        "edges: List should have at most 12",
    ),
    "strength above 1": (with_edge(strength=1.5), "edges[0].strength"),
    "strength below -1": (with_edge(strength=-1.01), "edges[0].strength"),
    "strength as text": (with_edge(strength="strong"), "edges[0].strength"),
    "strength not a number": (with_edge(strength=float("nan")), "edges[0].strength"),
    "strength infinite": (with_edge(strength=float("inf")), "edges[0].strength"),
    "fact of 7 chars": (with_edge(fact="Trusts."), "edges[0].fact"),
    "fact of 401 chars": (with_edge(fact="x" * 401), "edges[0].fact"),
    "fact that is only spaces": (with_edge(fact=" " * 12), "edges[0].fact"),
    "fact padded to length with spaces": (with_edge(fact="  a      b  "), "edges[0].fact"),
    "relation starting with a digit": (with_edge(relation="2TRUSTS"), "edges[0].relation"),
    "relation of 49 chars": (with_edge(relation="R" * 49), "edges[0].relation"),
    "relation with punctuation": (with_edge(relation="TRUSTS!"), "edges[0].relation"),
    "empty relation": (with_edge(relation=""), "edges[0].relation"),
    "unknown edge field": (with_edge(weight=0.5), "edges[0].weight: unknown field"),
    "snake_case edge field": (
        {"nodes": TWO, "edges": [{"source_name": "Mira", "target_name": "Tomas", "relation": "TRUSTS",
                                  "strength": 0.5, "fact": "Mira trusts Tomas with her life."}]},
        "unknown field",
    ),
    "missing strength": (
        {"nodes": TWO, "edges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS",
                                  "fact": "Mira trusts Tomas with her life."}]},
        "edges[0].strength: Field required",
    ),
    "unknown top-level field": ({"nodes": TWO, "relations": []}, "relations: unknown field"),
    "place as a node type": ({"nodes": [node_call("The Docks", type="place")]}, "nodes[0].type"),
    "item as a node type": ({"nodes": [node_call("Ledger", type="item")]}, "places, items"),
    "six labels": ({"nodes": [node_call("Mira", labels=["a", "b", "c", "d", "e", "f"])]}, "at most 5 labels"),
    "summary of 3 chars": ({"nodes": [node_call("Mira", summary="abc")]}, "nodes[0].summary"),
    "summary of 401 chars": ({"nodes": [node_call("Mira", summary="y" * 401)]}, "nodes[0].summary"),
    "blank summary": ({"nodes": [node_call("Mira", summary="     ")]}, "nodes[0].summary"),
    "blank name": ({"nodes": [node_call("   ")]}, "nodes[0].name"),
    "name of 101 chars": ({"nodes": [node_call("N" * 101)]}, "nodes[0].name"),
    "unknown node field": ({"nodes": [node_call("Mira", role="thief")]}, "nodes[0].role: unknown field"),
    "nodes not a list": ({"nodes": {"name": "Mira"}}, "nodes"),
    "a list instead of a call": ([node_call("Mira")], "must be a JSON object"),
    "a number instead of a call": (42, "must be a JSON object"),
    "new node without summary": ({"nodes": [node_call("Mira", summary=None)]}, "summary: required for a new node"),
}


@pytest.mark.parametrize("case", sorted(REJECTED))
async def test_a_call_breaking_the_contract_is_rejected_and_writes_nothing(case: str) -> None:
    call, message = REJECTED[case]
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Anchor")]}, turn=0)
    before = (dict(graph.index.nodes), dict(graph.versions))
    outcome = await graph.upsert(call, turn=1)
    assert set(outcome) == {"error"}
    assert message in outcome["error"]
    assert (dict(graph.index.nodes), dict(graph.versions)) == before


def test_json_text_with_bad_values_is_rejected_with_its_path() -> None:
    from game.graph.upsert import CallRejected

    with pytest.raises(CallRejected, match=r"edges\[0\]\.strength"):
        parse_call(json.dumps(with_edge(strength=2)))
    with pytest.raises(CallRejected, match="Invalid JSON"):
        parse_call('{"nodes": [')


@pytest.mark.parametrize("strength", [-1, -1.0, 0, 1, 1.0, 0.33])
async def test_boundary_strengths_are_accepted(strength: float) -> None:
    graph = Harness()
    relation = "DISTRUSTS" if strength < 0 else "TRUSTS"  # each keeps the sign of its valence
    outcome = await graph.upsert(with_edge(strength=strength, relation=relation))
    assert outcome["edges"]["created"] == 1
    assert graph.open_of("Mira", "Tomas", relation)[0].strength == strength


async def test_boundary_lengths_are_accepted() -> None:
    graph = Harness()
    outcome = await graph.upsert({
        "nodes": [node_call("Mira", summary="Thin", labels=["a", "b", "c", "d", "e"]),
                  node_call("Tomas", summary="z" * 400)],
        "edges": [edge_call("Mira", "Tomas", "R" * 48, fact="Eight ch"), edge_call("Mira", "Tomas", "Q", fact="f" * 400)],
    })
    assert "error" not in outcome
    assert outcome["edges"]["created"] == 2
    assert graph.node("Mira").labels == ["a", "b", "c", "d", "e"]


async def test_eight_nodes_and_twelve_edges_fit_in_one_call() -> None:
    names = [f"Person {i}" for i in range(8)]
    call = {
        "nodes": [node_call(n) for n in names],
        "edges": [edge_call(names[i % 8], names[(i + 1) % 8], f"REL_{chr(65 + i)}") for i in range(12)],
    }
    outcome = await Harness().upsert(call)
    assert outcome["nodes"]["created"] == 8
    assert outcome["edges"]["created"] == 12


async def test_node_type_is_case_insensitive_but_closed() -> None:
    graph = Harness()
    outcome = await graph.upsert({"nodes": [node_call("Harbour Watch", type="Faction")]})
    assert "error" not in outcome
    assert graph.node("Harbour Watch").type == "faction"


def test_stored_models_speak_camel_case_json() -> None:
    node = Node(id="npc-mira", name="Mira", type="individual", summary="A thief.", first_seen_turn=1,
                last_seen_turn=2, attributes={"player": True})
    edge = Edge(id="edge-trusts-abc123", source="npc-mira", target="npc-tomas", relation="TRUSTS",
                strength=0.5, fact="Mira trusts Tomas.", valid_at=1, evidence_turn_ids=["turn-1"])
    assert node.to_json_dict() == {
        "id": "npc-mira", "name": "Mira", "aliases": [], "type": "individual", "labels": [],
        "summary": "A thief.", "firstSeenTurn": 1, "lastSeenTurn": 2, "attributes": {"player": True},
    }
    assert edge.to_json_dict() == {
        "id": "edge-trusts-abc123", "source": "npc-mira", "target": "npc-tomas", "relation": "TRUSTS",
        "strength": 0.5, "fact": "Mira trusts Tomas.", "validAt": 1, "evidenceTurnIds": ["turn-1"],
    }
    closed = edge.model_copy(update={"invalid_at": 3}).to_json_dict()
    assert closed["invalidAt"] == 3
    assert Edge.model_validate(closed).invalid_at == 3


def test_python_code_may_build_calls_by_field_name() -> None:
    call = UpsertCall.model_validate({"nodes": [{"name": "Mira", "summary": "A thief."}]})
    assert parse_call(call) is call
