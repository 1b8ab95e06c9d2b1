"""The fast path, family by family: verbs, being, passives, mutual forms, roles and possessives, the
vocabulary's own words, Chinese, the guards, pronouns, the gazetteer, co-occurrence and unknown names.

Every test runs the real extractor over a real in-memory graph (``GraphIndex``, the session's reader).
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.graph.fast_extract.extractor import MAX_CONFIDENCE, FastExtractor
from game.graph.fast_extract.gazetteer import Gazetteer
from game.graph.fast_extract.results import Extraction
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.names import slugify
from game.graph.vocabulary import RelationSpec, Vocabulary

CAST: list[dict[str, Any]] = [
    {"name": "Mira", "attributes": {"pronouns": "she/her"}},
    {"name": "Tomas", "attributes": {"pronouns": "he/him"}},
    {"name": "Oren", "attributes": {"pronouns": "he/him"}},
    {"name": "Elin"}, {"name": "Dov"},
    {"name": "Bram Kettle", "aliases": ["Captain Kettle"]},
    {"name": "Harbour Watch", "type": "faction", "aliases": ["the Watch"]},
    {"name": "Lantern Guild", "type": "group"},
    {"name": "林瑶"}, {"name": "王五"}, {"name": "青龙帮", "type": "faction"},
]


def node(name: str, type: str = "individual", aliases: list[str] | None = None,
         attributes: dict[str, Any] | None = None) -> Node:
    return Node(id=f"npc-{slugify(name)}", name=name, aliases=aliases or [], type=type,  # type: ignore[arg-type]
                summary="Someone in the story.", first_seen_turn=0, last_seen_turn=0, attributes=attributes or {})


def graph(cast: list[dict[str, Any]] = CAST) -> GraphIndex:
    return GraphIndex([node(**c) for c in cast])


def read(text: str, gazetteer: Gazetteer | None = None, vocabulary: Vocabulary | None = None) -> Extraction:
    gazetteer = gazetteer or Gazetteer(graph())
    return FastExtractor(vocabulary).extract(text, asyncio.run(gazetteer.index_for(text)))


def triples(text: str, **kwargs: Any) -> set[tuple[str, str, str]]:
    return {(t.source, t.relation, t.target) for t in read(text, **kwargs).triples}


def closes(text: str) -> set[tuple[str, str, str]]:
    return {(c.source, c.relation, c.target) for c in read(text).closes}


# ------------------------------------------------------------------------------------------ families

@pytest.mark.parametrize(("text", "expected"), [
    ("Mira trusts Tomas.", ("Mira", "TRUSTS", "Tomas")),
    ("Mira relies on Tomas for everything.", ("Mira", "TRUSTS", "Tomas")),
    ("Oren suspects Elin of lying.", ("Oren", "DISTRUSTS", "Elin")),
    ("Oren fears Mira.", ("Oren", "FEARS", "Mira")),
    ("Dov has always feared Captain Kettle.", ("Dov", "FEARS", "Bram Kettle")),
    ("Elin adores Dov.", ("Elin", "LOVES", "Dov")),
    ("Elin despises the Harbour Watch.", ("Elin", "HATES", "Harbour Watch")),
    ("Dov works for Oren.", ("Dov", "SERVES", "Oren")),
    ("Tomas employs Dov.", ("Dov", "SERVES", "Tomas")),
    ("Oren owes Mira forty crowns.", ("Oren", "OWES", "Mira")),
    ("Elin joined the Lantern Guild.", ("Elin", "MEMBER_OF", "Lantern Guild")),
    ("Captain Kettle leads the Harbour Watch.", ("Bram Kettle", "LEADS", "Harbour Watch")),
    ("The Watch declared war on the Lantern Guild.", ("Harbour Watch", "ENEMY_OF", "Lantern Guild")),
    ("Mira met Oren at the market.", ("Mira", "KNOWS", "Oren")),
    ("Dov knows a secret about Tomas.", ("Dov", "KNOWS_SECRET_OF", "Tomas")),
])
def test_verb_patterns_state_their_relation(text: str, expected: tuple[str, str, str]) -> None:
    assert triples(text) == {expected}


@pytest.mark.parametrize(("text", "expected"), [
    ("Oren is afraid of Mira.", ("Oren", "FEARS", "Mira")),
    ("Tomas was deeply in love with Elin.", ("Tomas", "LOVES", "Elin")),
    ("Dov is wary of the Watch.", ("Dov", "DISTRUSTS", "Harbour Watch")),
    ("Elin is a member of the Lantern Guild.", ("Elin", "MEMBER_OF", "Lantern Guild")),
    ("Oren is in debt to Tomas.", ("Oren", "OWES", "Tomas")),
    ("Mira is acquainted with Dov.", ("Mira", "KNOWS", "Dov")),
    ("The Lantern Guild is at war with the Harbour Watch.", ("Lantern Guild", "ENEMY_OF", "Harbour Watch")),
])
def test_being_patterns(text: str, expected: tuple[str, str, str]) -> None:
    assert triples(text) == {expected}


@pytest.mark.parametrize(("text", "expected"), [
    ("Tomas is feared by Oren.", ("Oren", "FEARS", "Tomas")),
    ("The Lantern Guild is led by Elin.", ("Elin", "LEADS", "Lantern Guild")),
    ("Mira is trusted by the Harbour Watch.", ("Harbour Watch", "TRUSTS", "Mira")),
])
def test_passives_put_the_agent_first(text: str, expected: tuple[str, str, str]) -> None:
    assert triples(text) == {expected}


@pytest.mark.parametrize(("text", "relation"), [
    ("Mira and Dov are old allies.", "ALLY_OF"),
    ("Mira and Dov are rivals.", "RIVAL_OF"),
    ("Mira and Dov are sworn enemies.", "ENEMY_OF"),
    ("Mira and Dov are cousins.", "KIN_OF"),
    ("Mira and Dov know each other.", "KNOWS"),
])
def test_mutual_forms_give_one_symmetric_relation(text: str, relation: str) -> None:
    found = read(text).triples
    assert [(t.relation, {t.source, t.target}) for t in found] == [(relation, {"Mira", "Dov"})]


@pytest.mark.parametrize("text", [
    "Tomas's sister Elin keeps the lamps.",
    "Elin, Tomas's sister, keeps the lamps.",
    "Elin is Tomas's younger sister.",
    "Elin, the sister of Tomas, keeps the lamps.",
    "Tomas' sister Elin keeps the lamps.",
])
def test_possessive_kinship_in_every_word_order(text: str) -> None:
    found = read(text).triples
    assert [(t.relation, {t.source, t.target}) for t in found] == [("KIN_OF", {"Elin", "Tomas"})]


@pytest.mark.parametrize(("text", "expected"), [
    ("Bram Kettle, captain of the Harbour Watch, walked the quay.", ("Bram Kettle", "LEADS", "Harbour Watch")),
    ("The Watch's captain, Bram Kettle, walked the quay.", ("Bram Kettle", "LEADS", "Harbour Watch")),
    ("Dov, Oren's servant, carried the lamp.", ("Dov", "SERVES", "Oren")),
    ("Tomas is in Oren's debt.", ("Tomas", "OWES", "Oren")),
    ("Mira knows Tomas's secret.", ("Mira", "KNOWS_SECRET_OF", "Tomas")),
])
def test_roles_and_possessives(text: str, expected: tuple[str, str, str]) -> None:
    assert triples(text) == {expected}


def test_a_possessive_noun_phrase_counts_wherever_it_stands() -> None:
    assert triples("Mira trusts Tomas's sister Elin.") == {("Elin", "KIN_OF", "Tomas"), ("Mira", "TRUSTS", "Elin")}
    assert triples("Dov rowed out with Elin, Tomas's sister.") == {("Elin", "KIN_OF", "Tomas")}


def test_an_appositive_between_subject_and_verb_is_skipped_over() -> None:
    assert triples("Bram Kettle, captain of the Watch, trusts Mira.") == {
        ("Bram Kettle", "LEADS", "Harbour Watch"), ("Bram Kettle", "TRUSTS", "Mira")}


def test_a_world_relation_is_read_from_the_vocabulary() -> None:
    vocabulary = Vocabulary.default().extended([RelationSpec(name="SWORN_TO_PROTECT", synonyms=["GUARDS"])])
    assert triples("Dov is sworn to protect Elin. Oren guards Mira.", vocabulary=vocabulary) == {
        ("Dov", "SWORN_TO_PROTECT", "Elin"), ("Oren", "SWORN_TO_PROTECT", "Mira")}


def test_a_world_relation_is_neutral_and_a_default_one_has_its_sign() -> None:
    vocabulary = Vocabulary.default().extended([RelationSpec(name="SWORN_TO_PROTECT")])
    found = {t.relation: t.strength for t in read("Dov is sworn to protect Elin. Dov fears Oren. Dov trusts Mira.",
                                                  vocabulary=vocabulary).triples}
    assert found == {"SWORN_TO_PROTECT": 0.0, "FEARS": -0.5, "TRUSTS": 0.5}


@pytest.mark.parametrize(("text", "expected"), [
    ("林瑶信任王五。", ("林瑶", "TRUSTS", "王五")),
    ("王五一直害怕青龙帮。", ("王五", "FEARS", "青龙帮")),
    ("王五加入了青龙帮。", ("王五", "MEMBER_OF", "青龙帮")),
    ("林瑶是青龙帮的首领。", ("林瑶", "LEADS", "青龙帮")),
    ("林瑶 owes 王五 a great deal.", ("林瑶", "OWES", "王五")),
])
def test_cjk_names_and_chinese_patterns(text: str, expected: tuple[str, str, str]) -> None:
    assert triples(text) == {expected}


# -------------------------------------------------------------------------------------------- guards

@pytest.mark.parametrize("text", [
    "Mira does not fear Oren.",
    "Mira doesn't trust Tomas.",
    "Tomas never trusted Bram Kettle.",
    "Nobody believes Mira trusts Tomas.",
    "Does Mira trust Tomas?",
    "If Mira feared Tomas, she would run.",
    "Mira will trust Tomas if he pays.",
    "Mira might trust Tomas.",
    "Mira seems to trust Tomas.",
    "The man who hired Tomas fears Oren.",
    "Mira trusts Tomas's dog.",
    "林瑶不信任王五。",
    "Mira owes Tomas nothing.",
    "Everyone but Mira trusts Tomas.",
    "Mira fears the Watch will come.",
    "Mira knows Tomas is lying.",
    "Mira led the Watch to the warehouse.",
    "Mira asked Tomas whether Oren trusts Elin.",
    "林瑶信任王五吗？",
    "如果林瑶害怕王五，她会逃走。",
])
def test_negated_hypothetical_and_questioned_clauses_state_nothing(text: str) -> None:
    found = read(text)
    assert found.triples == [] and found.closes == []


def test_a_negation_after_the_match_does_not_undo_it() -> None:
    assert triples("Mira despises Oren and makes no secret of it.") == {("Mira", "HATES", "Oren")}


def test_each_clause_is_guarded_on_its_own() -> None:
    assert triples("Mira trusts Tomas, but she does not fear Oren.") == {("Mira", "TRUSTS", "Tomas")}


@pytest.mark.parametrize(("text", "expected"), [
    ("Mira no longer trusts Tomas.", ("Mira", "TRUSTS", "Tomas")),
    ("Oren is no longer afraid of Mira.", ("Oren", "FEARS", "Mira")),
    ("王五不再害怕林瑶。", ("王五", "FEARS", "林瑶")),
])
def test_no_longer_closes_the_relation_instead_of_stating_it(text: str, expected: tuple[str, str, str]) -> None:
    assert closes(text) == {expected}
    assert read(text).triples == []


def test_no_longer_beside_an_appositive_closes_only_what_it_governs() -> None:
    text = "Bram Kettle, captain of the Watch, no longer trusts Mira."
    assert triples(text) == {("Bram Kettle", "LEADS", "Harbour Watch")}
    assert closes(text) == {("Bram Kettle", "TRUSTS", "Mira")}


# ------------------------------------------------------------------------------------------ pronouns

def test_a_pronoun_means_the_one_individual_of_the_last_naming_sentence() -> None:
    found = read("Dov came in from the rain. He fears Captain Kettle.").triples
    assert [(t.source, t.relation, t.target) for t in found] == [("Dov", "FEARS", "Bram Kettle")]
    assert found[0].confidence < 0.65  # a pronoun costs a little confidence


def test_an_ambiguous_pronoun_means_nobody() -> None:
    assert triples("Dov found Elin at the door. They trust Tomas.") == set()
    assert triples("Oren found Tomas at the door. He trusts Elin.") == set()


def test_pronouns_declared_on_a_node_pick_among_several() -> None:
    assert triples("Mira argued with Tomas all night. She still distrusts Oren.") == {("Mira", "DISTRUSTS", "Oren")}
    assert triples("Mira argued with Tomas all night. He still distrusts Oren.") == {("Tomas", "DISTRUSTS", "Oren")}


def test_a_pronoun_after_a_name_in_the_same_sentence() -> None:
    assert triples("Dov left before dawn; he works for Oren now.") == {("Dov", "SERVES", "Oren")}


def test_a_repeated_pronoun_keeps_its_referent_and_commas_alone_make_no_list() -> None:
    text = "Oren counted his debts. He owes Dov, he owes the Lantern Guild, and most of all he owes Tomas."
    assert triples(text) == {("Oren", "OWES", "Dov"), ("Oren", "OWES", "Lantern Guild"), ("Oren", "OWES", "Tomas")}


def test_lists_of_subjects_and_objects() -> None:
    assert triples("Elin fears Oren and Bram Kettle.") == {("Elin", "FEARS", "Oren"), ("Elin", "FEARS", "Bram Kettle")}
    assert triples("Mira and Dov work for the Lantern Guild.") == {
        ("Mira", "SERVES", "Lantern Guild"), ("Dov", "SERVES", "Lantern Guild")}
    # A list after a preposition is no subject: only the name next to the verb is.
    assert triples("Dov waited for Mira and Tomas fears Oren.") == {("Tomas", "FEARS", "Oren")}
    # A list that runs on into a verb is not a list of objects.
    assert triples("Tomas trusts Mira and Oren fears Dov.") == {("Tomas", "TRUSTS", "Mira"), ("Oren", "FEARS", "Dov")}


# ----------------------------------------------------------------------------------------- gazetteer

def test_names_in_spaced_scripts_stand_as_words_and_longer_names_win() -> None:
    cast = [{"name": "Tom"}, {"name": "Old Tom"}, {"name": "Mira"}]
    gazetteer = Gazetteer(graph(cast))
    assert triples("Tomasz fears Mira.", gazetteer=gazetteer) == set()
    assert triples("Old Tom fears Mira.", gazetteer=gazetteer) == {("Old Tom", "FEARS", "Mira")}


def test_cjk_names_match_anywhere() -> None:
    found = read("据说林瑶和王五在码头见面。林瑶信任王五")
    assert {(c.a, c.b) for c in found.cooccurrences} == {("林瑶", "王五")}
    assert [(t.source, t.target) for t in found.triples] == [("林瑶", "王五")]


def test_a_name_two_nodes_answer_to_states_nothing() -> None:
    cast = [{"name": "Mira"}, {"name": "Ash", "aliases": ["the Fox"]}, {"name": "Rook", "aliases": ["the Fox"]}]
    assert triples("Mira fears the Fox.", gazetteer=Gazetteer(graph(cast))) == set()


def test_the_gazetteer_grows_as_nodes_are_added() -> None:
    gazetteer = Gazetteer(graph())
    assert triples("Sera fears Mira.", gazetteer=gazetteer) == set()
    gazetteer.add(node("Sera"))
    assert triples("Sera fears Mira.", gazetteer=gazetteer) == {("Sera", "FEARS", "Mira")}


def test_an_empty_save_reads_nothing() -> None:
    found = read("Mira trusts Tomas.", gazetteer=Gazetteer(GraphIndex()))
    assert found.triples == [] and found.cooccurrences == [] and found.unknown_names == ["Tomas"]


# ------------------------------------------------------------------------- co-occurrence and unknown names

def test_cooccurrence_is_counted_but_never_a_relation() -> None:
    found = read("Mira and Tomas shared a bench. Later Mira walked Tomas home. Oren slept.")
    assert found.triples == []
    assert [(c.a, c.b, c.count) for c in found.cooccurrences] == [("Mira", "Tomas", 2)]


def test_unknown_names_are_capitalised_phrases_the_save_does_not_know() -> None:
    found = read("Mira met Sera Vell and Captain Ash at the docks. Suddenly the Watch arrived. Then Mira saw Rook.")
    assert found.unknown_names == ["Sera Vell", "Captain Ash", "Rook"]


def test_contractions_and_opening_verbs_are_not_names() -> None:
    found = read("I'm sure Mira saw it. Ask Sister Ambry about Tomas. His boat sank. Slowly Sera Vell turned.")
    assert found.unknown_names == ["Sister Ambry", "Sera Vell"]


def test_until_makes_a_relation_a_thing_of_the_past() -> None:
    assert triples("Oren owed Mira forty crowns until the night of the tide.") == set()


def test_confidence_stays_below_the_model_extractors() -> None:
    found = read("Mira trusts Tomas. Dov is afraid of Oren. Tomas's sister Elin joined the Lantern Guild.")
    assert found.triples and all(0 < t.confidence <= MAX_CONFIDENCE for t in found.triples)


def test_upsert_calls_keep_within_the_per_call_limits() -> None:
    text = " ".join(f"{a} trusts {b}." for a in ("Mira", "Tomas", "Oren", "Elin") for b in ("Dov", "Bram Kettle", "林瑶", "王五"))
    calls = read(text).upsert_calls()
    assert [len(call["edges"]) for call in calls] == [12, 4]
    assert all(len(edge["fact"]) >= 8 for call in calls for edge in call["edges"])


def test_a_short_cjk_sentence_still_makes_a_valid_fact() -> None:
    (call,) = read("林瑶信任王五。").upsert_calls()
    assert call["edges"][0]["fact"] == "林瑶信任王五。 (林瑶 TRUSTS 王五)"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["Mira", "Tomas", "trusts", "fears", "not", "no longer", "is", "afraid of", "'s",
                                 "sister", ",", ".", "?", "and", "he", "she", "林瑶", "信任", "不", "the Watch",
                                 "captain of", "if", "\n", "⟨0⟩", "\x1b[2J"]), max_size=25))
def test_any_text_reads_without_error_and_names_only_known_nodes(words: list[str]) -> None:
    found = read(" ".join(words))
    known = {"Mira", "Tomas", "林瑶", "Harbour Watch"}
    assert all({t.source, t.target} <= known and t.source != t.target for t in found.triples)
    assert all(t.confidence <= MAX_CONFIDENCE for t in found.triples)


def test_the_package_is_pure() -> None:
    """No I/O and no SQL: only the standard library's pure parts and game.graph, game.text, game.errors."""
    allowed_stdlib = {"__future__", "re", "dataclasses", "enum", "collections", "collections.abc", "itertools",
                      "typing", "functools", "bisect"}
    package = Path(__file__).resolve().parent.parent / "game" / "graph" / "fast_extract"
    for path in package.glob("*.py"):
        for item in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in item.names] if isinstance(item, ast.Import) else (
                [item.module] if isinstance(item, ast.ImportFrom) and item.module else [])
            for name in names:
                ours = name.startswith("game.graph.") or name in {"game.text", "game.errors"}
                assert ours or name in allowed_stdlib, f"{path.name} imports {name}"
