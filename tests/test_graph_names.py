"""Names: how they compare, slug into IDs, and are found in a player's message (spaced scripts and CJK)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.graph import index_of, make_node, rows
from hypothesis import given, settings
from hypothesis import strategies as st
from store_helpers import seeded

from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.names import (
    LONG_TEXT,
    NameTrie,
    candidate_spans,
    is_cjk,
    normalize_name,
    resolve_name,
    slugify,
)
from game.graph.retrieve import find_mentions


@pytest.mark.parametrize(("raw", "normal"), [
    ("  Lin   YAO ", "lin yao"), ("ＭＩＲＡ", "mira"), ("O\u2019Brien", "o'brien"), ("Straße", "strasse"),
    ("Mira\tVell", "mira vell"), ("林瑶", "林瑶"),
])
def test_normalize_name_folds_case_width_quotes_and_spaces(raw: str, normal: str) -> None:
    assert normalize_name(raw) == normal


def test_normalize_name_keeps_different_people_apart() -> None:
    assert normalize_name("Anna Lee") != normalize_name("Anna Leigh")
    assert normalize_name("Arttu Antikainen") != normalize_name("Anna Antikainen")


@pytest.mark.parametrize(("name", "slug"), [
    ("Lin Yao", "lin-yao"), ("Zoë Ångström", "zoe-angstrom"), ("Old  Tom's Boat", "old-tom-s-boat"),
    ("林瑶", "林瑶"), ("___", ""), ("Captain " + "x" * 60, "captain-" + "x" * 32),
])
def test_slugify_makes_readable_id_fragments(name: str, slug: str) -> None:
    assert slugify(name) == slug


@pytest.mark.parametrize(("char", "cjk"), [("林", True), ("ミ", True), ("あ", True), ("한", True), ("a", False),
                                           ("é", False), ("1", False)])
def test_is_cjk(char: str, cjk: bool) -> None:
    assert is_cjk(char) is cjk


def test_candidate_spans_follow_the_message_not_the_graph() -> None:
    spans = [text for _, _, text in candidate_spans("Old Tom waved.", 20)]
    assert "old tom" in spans and "tom" in spans and "waved" in spans
    assert "om" not in spans and "old t" not in spans
    assert all(len(text) <= 5 for _, _, text in candidate_spans("Old Tom waved at everyone", 5))


def graph_of(*names: str | tuple[str, list[str]]) -> GraphIndex:
    nodes = []
    for index, item in enumerate(names):
        name, aliases = (item, []) if isinstance(item, str) else item
        nodes.append(make_node(name, aliases=aliases, node_id=f"npc-{index}"))
    return index_of(rows(nodes))


async def mentioned(graph: GraphIndex, message: str) -> list[str]:
    return [node.name for node in await find_mentions(graph, message)]


@pytest.mark.parametrize(("message", "found"), [
    ("Tom is here.", ["Tom"]),
    ("I ask TOM about it", ["Tom"]),
    ("tom's boat", ["Tom"]),
    ("Where is Tom?", ["Tom"]),
    ("(Tom) waits", ["Tom"]),
    ("Tomas is here.", []),
    ("an atom bomb", []),
    ("tom_cat", []),
    ("Tom2 waits", []),
])
async def test_a_spaced_script_name_must_stand_as_a_word(message: str, found: list[str]) -> None:
    assert await mentioned(graph_of("Tom"), message) == found


async def test_names_with_inner_and_trailing_punctuation_are_found() -> None:
    graph = graph_of("Voss Jr.", "Dr. Hale", "O'Brien")
    assert await mentioned(graph, "Voss Jr. said hello") == ["Voss Jr."]
    assert await mentioned(graph, "Ask Voss Jr., the smith.") == ["Voss Jr."]
    assert await mentioned(graph, "Dr. Hale and o\u2019brien argue") == ["Dr. Hale", "O'Brien"]


async def test_aliases_are_mentions_too() -> None:
    graph = graph_of(("Mira Vell", ["the Fox"]))
    assert await mentioned(graph, "I follow the fox into the alley") == ["Mira Vell"]


async def test_a_longer_name_of_another_node_wins_at_the_same_place() -> None:
    graph = graph_of("Tom", "Old Tom")
    assert await mentioned(graph, "Old Tom waves.") == ["Old Tom"]
    assert await mentioned(graph, "Old Tom waves at Tom.") == ["Old Tom", "Tom"]


async def test_a_node_whose_alias_sits_inside_its_name_is_found_once() -> None:
    graph = graph_of(("Tom Reed", ["Tom"]))
    assert await mentioned(graph, "Tom Reed, or Tom, waves") == ["Tom Reed"]


async def test_mentions_come_in_order_of_first_mention() -> None:
    graph = graph_of("Mira", "Tomas", "Oren")
    assert await mentioned(graph, "Oren told Mira that Oren saw Tomas") == ["Oren", "Mira", "Tomas"]


async def test_one_name_shared_by_two_nodes_names_both() -> None:
    graph = graph_of("Tom", "tom")
    assert sorted(n.id for n in await find_mentions(graph, "tom waves")) == ["npc-0", "npc-1"]


@pytest.mark.parametrize(("message", "found"), [
    ("我昨天见到林瑶了", ["林瑶"]),
    ("林瑶和王小明在茶馆", ["林瑶", "王小明"]),
    ("王小明来了", ["王小明"]),  # "王" is inside the longer "王小明" at the same place
    ("王和王小明", ["王", "王小明"]),
    ("ミラさんが来た", ["ミラ"]),
    ("민수가 왔다", ["민수"]),
    ("昨天Mira来了", ["Mira"]),
    ("林瑶says hello", ["林瑶"]),
])
async def test_a_cjk_name_may_stand_anywhere_in_cjk_text(message: str, found: list[str]) -> None:
    graph = graph_of("林瑶", "王小明", "王", "ミラ", "민수", "Mira")
    assert await mentioned(graph, message) == found


# Pieces that meet at every kind of edge: words, punctuation inside and after names, CJK, combining marks,
# width and case folding, runs of spaces and tabs.
_PIECES = ["tom", "Tom", "o'brien", "O\u2019Brien", "voss", "jr.", "jr", ".", ",", " ", "  ", "\t", "林", "瑶", "a",
           "_", "tom_cat", "x2", "*", "-", "é", "e\u0301", "ß", "ss", "Old", "ﾐ", "ミ", "(", "민수"]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(names=st.lists(_TEXTS, min_size=1, max_size=6), text=_TEXTS)
def test_the_name_trie_finds_exactly_the_candidate_spans_that_are_names(names: list[str], text: str) -> None:
    """The trie reads a long text in one pass; it must find what looking every candidate span up finds."""
    keys = {key for key in map(normalize_name, names) if key}
    longest = max((len(key) for key in keys), default=0)
    expected = [span for span in candidate_spans(text, longest) if span[2] in keys] if longest else []
    trie = NameTrie(keys)
    assert trie.find(text) == expected
    trie.BLOCK = 3  # a long text is read in blocks: a name across the edge of one is found once
    assert trie.find(text) == expected


async def test_a_long_text_finds_the_same_people_through_the_graph_and_a_save(tmp_path: Path) -> None:
    """Past ``LONG_TEXT`` mentions are found by the trie, from the index's names or the save's rows."""
    graph = graph_of("林瑶", "王小明", "王", "Mira", "Tom", "Old Tom", ("Voss Jr.", ["the Fox"]))
    filler = " and the tide turned" * (LONG_TEXT // 20)
    text = "我昨天见到林瑶了, 王和王小明" + filler + " Old Tom met the FOX, then Voss Jr. met tom."
    found = ["林瑶", "王", "王小明", "Old Tom", "Voss Jr.", "Tom"]
    assert await mentioned(graph, text) == found
    assert await mentioned(graph, text[:30]) == found[:3]  # short: candidate spans looked up, as before
    db = await seeded(tmp_path / "s.sqlite")
    try:
        assert [n.name for n in await find_mentions(db.graph, "Mira met Oren." + filler + " Tomas")] == [
            "Mira", "Oren", "Tomas"]
    finally:
        await db.close()


async def test_an_empty_graph_or_message_mentions_nobody() -> None:
    assert await mentioned(GraphIndex(), "Tom is here") == []
    assert await mentioned(graph_of("Tom"), "   ") == []


# ------------------------------------------------------------------------------------- resolve_name


def _node(node_id: str, name: str, *aliases: str, first_seen: int = 1) -> Node:
    return Node(id=node_id, name=name, aliases=list(aliases), type="individual", summary="Someone here.",
                first_seen_turn=first_seen, last_seen_turn=first_seen)


def test_resolve_name_prefers_an_exact_name_to_an_alias() -> None:
    fox = _node("npc-fox", "The Fox")
    mira = _node("npc-mira", "Mira", "the fox", first_seen=0)
    match = resolve_name("THE  FOX", [mira, fox])
    assert match.node == fox and not match.ambiguous


def test_resolve_name_reports_a_tie_instead_of_guessing() -> None:
    reed = _node("npc-tom-reed", "Tom Reed", "Tom", first_seen=0)
    hale = _node("npc-tom-hale", "Tom Hale", "Tom", first_seen=5)
    match = resolve_name("tom", [hale, reed])
    assert match.node is None and match.ambiguous
    assert match.choices() == "Tom Hale (npc-tom-hale), Tom Reed (npc-tom-reed)"


def test_resolve_name_takes_ids_only_when_asked_and_before_names() -> None:
    odd = _node("npc-odd", "npc-mira")
    mira = _node("npc-mira", "Mira")
    assert resolve_name("npc-mira", [odd, mira]).node == odd
    assert resolve_name("npc-mira", [odd, mira], by_id=True).node == mira
    nobody = resolve_name("Nobody", [odd, mira], by_id=True)
    assert nobody.node is None and not nobody.ambiguous


def test_resolve_name_compares_straightened_quotes() -> None:
    oreilly = _node("npc-o-reilly", "O\u2019Reilly")
    assert resolve_name("o'reilly", [oreilly]).node == oreilly
    assert resolve_name("O\u02bcReilly", [oreilly]).node == oreilly
