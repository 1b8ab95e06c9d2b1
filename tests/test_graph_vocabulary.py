"""The relation vocabulary: synonyms, inverses and symmetry applied on write; unknown relations kept."""

from __future__ import annotations

import pytest
from helpers.graph import Harness, edge_call, make_edge, node_call

from game.graph.vocabulary import DEFAULT_RELATIONS, RelationSpec, Vocabulary, to_upper_snake


def test_the_default_vocabulary_is_a_small_closed_list() -> None:
    vocabulary = Vocabulary.default()
    assert 12 <= len(vocabulary.relations) <= 20
    assert {"TRUSTS", "FEARS", "KIN_OF", "MEMBER_OF", "LEADS", "ALLY_OF", "ENEMY_OF"} <= set(vocabulary.relations)
    assert any(spec.symmetric for spec in DEFAULT_RELATIONS)
    assert any(spec.inverse for spec in DEFAULT_RELATIONS)
    described = vocabulary.describe()
    for name in vocabulary.relations:
        assert f"{name}:" in described


@pytest.mark.parametrize("name", [spec.name for spec in DEFAULT_RELATIONS])
def test_every_canonical_relation_normalizes_to_itself(name: str) -> None:
    normalized = Vocabulary.default().normalize(name)
    assert (normalized.name, normalized.flipped, normalized.known) == (name, False, True)


@pytest.mark.parametrize(("written", "stored"), [
    ("works for", "SERVES"), ("Works_For", "SERVES"), ("allied with", "ALLY_OF"), ("afraid of", "FEARS"),
    ("relies-on", "TRUSTS"), ("trusts", "TRUSTS"), ("Member of", "MEMBER_OF"), ("ENEMIES", "ENEMY_OF"),
])
def test_synonyms_and_spellings_map_to_the_canonical_relation(written: str, stored: str) -> None:
    normalized = Vocabulary.default().normalize(written)
    assert (normalized.name, normalized.flipped, normalized.known) == (stored, False, True)


@pytest.mark.parametrize(("written", "stored"), [
    ("LED_BY", "LEADS"), ("led by", "LEADS"), ("HAS_MEMBER", "MEMBER_OF"), ("feared by", "FEARS"),
    ("EMPLOYS", "SERVES"), ("OWED_BY", "OWES"),
])
def test_inverses_flip_to_the_canonical_direction(written: str, stored: str) -> None:
    normalized = Vocabulary.default().normalize(written)
    assert (normalized.name, normalized.flipped) == (stored, True)


@pytest.mark.parametrize("written", ["OWES_A_FAVOUR_TO", "X", "A__B", "LIKES_2", "SWORE_VENGEANCE_ON"])
def test_unknown_relations_in_canonical_form_are_kept_unchanged(written: str) -> None:
    normalized = Vocabulary.default().normalize(written)
    assert (normalized.name, normalized.known, normalized.flipped) == (written, False, False)


@pytest.mark.parametrize(("written", "stored"), [
    ("swore vengeance on", "SWORE_VENGEANCE_ON"), ("Owes-a-favour to", "OWES_A_FAVOUR_TO"),
    ("sings  with", "SINGS_WITH"),
])
def test_unknown_relations_are_written_in_upper_snake_case(written: str, stored: str) -> None:
    assert to_upper_snake(written) == stored
    assert Vocabulary.default().normalize(written).name == stored


def test_a_world_extends_the_vocabulary_without_changing_the_default() -> None:
    default = Vocabulary.default()
    world = default.extended([
        RelationSpec(name="SWORN_TO", description="bound by oath", inverse="HOLDS_OATH_OF", synonyms=["OATHBOUND_TO"]),
        RelationSpec(name="TRUSTS", synonyms=["COUNTS_ON"]),
        RelationSpec(name="RIVAL_HOUSE_OF", symmetric=True),
    ])
    assert world.normalize("oathbound to").name == "SWORN_TO"
    assert (world.normalize("HOLDS_OATH_OF").name, world.normalize("HOLDS_OATH_OF").flipped) == ("SWORN_TO", True)
    assert world.normalize("counts on").name == "TRUSTS"
    assert world.normalize("RELIES_ON").name == "TRUSTS"  # the default synonyms stay
    assert world.normalize("RIVAL_HOUSE_OF").symmetric
    assert not default.normalize("COUNTS_ON").known
    assert "RIVAL_HOUSE_OF" not in default.relations


async def test_upsert_stores_synonyms_canonically_and_inverses_flipped() -> None:
    graph = Harness()
    await graph.upsert({
        "nodes": [node_call("Mira"), node_call("Lantern Guild", type="group")],
        "edges": [edge_call("Lantern Guild", "Mira", "led by", 0.6), edge_call("Mira", "Lantern Guild", "works for", 0.4)],
    })
    assert len(graph.open_of("Mira", "Lantern Guild", "LEADS")) == 1
    assert len(graph.open_of("Mira", "Lantern Guild", "SERVES")) == 1
    assert {e.relation for e in graph.index.open_edges.values()} == {"LEADS", "SERVES"}


async def test_an_inverse_spelling_of_a_stored_relation_is_the_same_relation() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira"), node_call("Guild", type="group")],
                        "edges": [edge_call("Mira", "Guild", "LEADS", 0.6, "Mira leads the guild since spring.")]})
    again = await graph.upsert({"edges": [edge_call("Guild", "Mira", "LED_BY", 0.6, "Mira leads the guild since spring.")]},
                               turn=2)
    assert again["edges"]["results"][0]["skipped"] == "unchanged relation"
    closed = await graph.upsert({"closeEdges": [{"sourceName": "Guild", "targetName": "Mira", "relation": "led by"}]},
                                turn=3)
    assert closed["closed"][0]["reason"] == "closed"
    assert graph.index.open_edges == {}


async def test_a_symmetric_relation_ignores_direction_and_keeps_its_first() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Bram"), node_call("Elin")],
                        "edges": [edge_call("Bram", "Elin", "KIN_OF", 0.8, "Bram and Elin are siblings.")]})
    same = await graph.upsert({"edges": [edge_call("Elin", "Bram", "sibling of", 0.8, "Bram and Elin are siblings.")]}, turn=2)
    assert same["edges"]["results"][0]["skipped"] == "unchanged relation"
    changed = await graph.upsert({"edges": [edge_call("Elin", "Bram", "KIN_OF", 0.2, "Bram and Elin no longer speak.")]},
                                 turn=3)
    assert changed["edges"]["created"] == 1
    (open_version,) = graph.index.open_edges.values()
    assert (open_version.source, open_version.target) == ("npc-bram", "npc-elin")
    assert open_version.id == changed["edges"]["results"][0]["id"]


async def test_an_unknown_relation_is_kept_not_dropped() -> None:
    graph = Harness()
    outcome = await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")],
                                  "edges": [edge_call("Mira", "Tomas", "owes a favour to", 0.3)]})
    assert outcome["edges"]["created"] == 1
    assert outcome["edges"]["results"][0]["relation"] == "OWES_A_FAVOUR_TO"
    assert len(graph.open_of("Mira", "Tomas", "OWES_A_FAVOUR_TO")) == 1


async def test_a_world_vocabulary_applies_to_upsert() -> None:
    world = Vocabulary.default().extended([RelationSpec(name="SWORN_TO", inverse="HOLDS_OATH_OF")])
    graph = Harness(world)
    await graph.upsert({"nodes": [node_call("Bram"), node_call("Harbour Watch", type="faction")],
                        "edges": [edge_call("Harbour Watch", "Bram", "holds oath of", 0.7)]})
    assert len(graph.open_of("Bram", "Harbour Watch", "SWORN_TO")) == 1


# ------------------------------------------------------------------------------- relation matching


def test_relation_matching_is_written_once_on_the_normalized_relation() -> None:
    vocabulary = Vocabulary.default()
    led_by = vocabulary.normalize("led by")  # an inverse: stored as LEADS with the ends swapped
    assert led_by.orient("Guild", "Mira") == ("Mira", "Guild")
    assert led_by.stored_pairs("Guild", "Mira") == [("Mira", "Guild")]
    assert led_by.key("Guild", "Mira") == ("Mira", "Guild", "LEADS")
    kin = vocabulary.normalize("family of")  # symmetric: either direction is the same relation
    assert kin.stored_pairs("b", "a") == [("b", "a"), ("a", "b")]
    assert kin.key("b", "a") == kin.key("a", "b") == ("a", "b", "KIN_OF")
    leads = make_edge("npc-mira", "npc-guild", "LEADS")
    assert led_by.joins(leads, {"npc-guild"}, {"npc-mira"})
    assert not vocabulary.normalize("LEADS").joins(leads, {"npc-guild"}, {"npc-mira"})
    kin_edge = make_edge("npc-a", "npc-b", "KIN_OF")
    assert kin.joins(kin_edge, {"npc-b"}, {"npc-a"}) and kin.joins(kin_edge, {"npc-a"}, {"npc-b"})
    assert not vocabulary.normalize("TRUSTS").joins(kin_edge, {"npc-a"}, {"npc-b"})
