"""Merge planning on plain models: which edges re-point, which duplicates heal, what becomes a self-loop."""

from __future__ import annotations

from game.graph.merge_plan import plan_merge
from game.graph.models import Edge, Node
from game.graph.vocabulary import Vocabulary

VOCABULARY = Vocabulary.default()


def node(node_id: str, name: str, **extra: object) -> Node:
    return Node.model_validate({"id": node_id, "name": name, "type": "individual",
                                "summary": f"{name} of the harbour.", "firstSeenTurn": 0, "lastSeenTurn": 0,
                                **extra})


def edge(edge_id: str, source: str, target: str, relation: str, valid_at: int = 0,
         invalid_at: int | None = None) -> Edge:
    return Edge(id=edge_id, source=source, target=target, relation=relation, strength=0.5,
                fact=f"{source} and {target} share a story.", valid_at=valid_at, invalid_at=invalid_at)


TOMAS = node("npc-tomas", "Tomas", labels=["guard"], lastSeenTurn=2)
TOM = node("npc-tom", "Tom", aliases=["Tommy"], labels=["brother"], firstSeenTurn=1, lastSeenTurn=5)


def test_the_kept_node_answers_to_the_merged_names_and_spans_both_histories() -> None:
    plan = plan_merge(TOMAS, TOM, [], [], VOCABULARY, turn=6)
    assert plan.united.id == "npc-tomas" and plan.united.name == "Tomas"
    assert plan.united.aliases == ["Tom", "Tommy"]
    assert plan.united.labels == ["guard", "brother"]
    assert (plan.united.first_seen_turn, plan.united.last_seen_turn) == (0, 5)
    assert plan.edges == {} and plan.closed == []


def test_edges_of_the_merged_node_are_repointed_history_included() -> None:
    touching = [edge("e1", "npc-oren", "npc-tom", "FEARS"), edge("e0", "npc-tom", "npc-mira", "OWES", 0, 2)]
    plan = plan_merge(TOMAS, TOM, touching, [], VOCABULARY, turn=6)
    assert plan.repointed == 2
    assert {(e.id, e.source, e.target, e.invalid_at) for e in plan.edges.values()} == {
        ("e1", "npc-oren", "npc-tomas", None), ("e0", "npc-tomas", "npc-mira", 2)}
    assert plan.closed == []


def test_a_relation_between_the_two_becomes_closed_not_a_self_loop() -> None:
    between = edge("e1", "npc-tom", "npc-tomas", "KIN_OF")
    plan = plan_merge(TOMAS, TOM, [between], [between], VOCABULARY, turn=6)
    assert plan.edges["e1"].invalid_at == 6
    assert plan.closed == ["e1"]


def test_duplicates_made_by_the_merge_heal_to_the_newest_version() -> None:
    older = edge("e-old", "npc-tomas", "npc-mira", "TRUSTS", valid_at=1)
    newer = edge("e-new", "npc-tom", "npc-mira", "TRUSTS", valid_at=4)
    plan = plan_merge(TOMAS, TOM, [newer], [older], VOCABULARY, turn=6)
    assert plan.edges["e-old"].invalid_at == 6
    assert plan.edges["e-new"].invalid_at is None and plan.edges["e-new"].source == "npc-tomas"
    assert plan.closed == ["e-old"]


def test_a_symmetric_relation_heals_across_directions_an_asymmetric_one_does_not() -> None:
    assert VOCABULARY.is_symmetric("KIN_OF") and not VOCABULARY.is_symmetric("TRUSTS")
    kin_old = edge("k-old", "npc-mira", "npc-tomas", "KIN_OF", valid_at=1)
    kin_new = edge("k-new", "npc-tom", "npc-mira", "KIN_OF", valid_at=3)
    trust_out = edge("t-out", "npc-tomas", "npc-mira", "TRUSTS", valid_at=1)
    trust_in = edge("t-in", "npc-mira", "npc-tom", "TRUSTS", valid_at=3)
    plan = plan_merge(TOMAS, TOM, [kin_new, trust_in], [kin_old, trust_out], VOCABULARY, turn=6)
    assert plan.closed == ["k-old"]
    assert plan.edges["t-in"].target == "npc-tomas" and plan.edges["t-in"].invalid_at is None
    assert "t-out" not in plan.edges
