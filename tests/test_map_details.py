"""The details panel of a selected node: summary, labels, aliases, current relations, history by turn."""

from __future__ import annotations

from helpers.maps import harbour, person, relation

from game.graph.map import describe_node


def test_details_name_everything_a_player_asks_about_a_character() -> None:
    nodes, edges = harbour()
    mira = nodes[0].model_copy(update={"labels": ["smuggler", "informant"], "aliases": ["the Widow"],
                                       "last_seen_turn": 6})
    edges += [
        relation("edge-5", "npc-oren", "npc-mira", "OWES", -0.4, valid_at=2, invalid_at=5,
                 fact="Oren owes Mira for the boat repairs."),
        relation("edge-6", "npc-oren", "npc-mira", "OWES", -0.8, valid_at=5,
                 fact="Oren owes Mira twice over since the storm."),
    ]
    text = describe_node(mira, nodes, edges)
    assert text.startswith("### Mira")
    assert "*individual* · seen turns 0–6" in text
    assert "**Labels:** smuggler, informant" in text
    assert "**Also known as:** the Widow" in text
    assert "Mira, who lives by the harbour." in text
    relations_now = text.split("**Relations now**")[1].split("**History**")[0]
    assert "\\[+\\] **Mira** → **Tomas** (TRUSTS, +0.70): Mira has trusted Tomas since the flood. *(since turn 0)*" in relations_now
    assert "**Oren** → **Mira** (OWES, -0.80): Oren owes Mira twice over since the storm." in relations_now
    assert "boat repairs" not in relations_now, "a superseded version is history, not a current relation"
    history = text.split("**History**")[1]
    assert "- Turn 2, began: \\[-\\] **Oren** → **Mira** (OWES, -0.40): Oren owes Mira for the boat repairs." in history
    assert "- Turn 5, changed: \\[-\\] **Oren** → **Mira** (OWES, -0.80)" in history
    assert history.index("Turn 2") < history.index("Turn 5")


def test_details_at_an_earlier_turn_show_what_held_then() -> None:
    nodes, edges = harbour()
    edges.append(relation("edge-5", "npc-mira", "npc-oren", "DISTRUSTS", -0.5, valid_at=1, invalid_at=4,
                          fact="Mira distrusted Oren after the missing crates."))
    at2 = describe_node(nodes[0], nodes, edges, at_turn=2)
    assert "**Relations at turn 2**" in at2
    assert "**Mira** → **Oren** (DISTRUSTS, -0.50)" in at2.split("**History**")[0]
    assert "ended" not in at2
    now = describe_node(nodes[0], nodes, edges)
    assert "DISTRUSTS" not in now.split("**History**")[0]
    assert "- Turn 4, ended: \\[-\\] **Mira** → **Oren** (DISTRUSTS)" in now


def test_a_node_without_relations_says_so() -> None:
    nodes, _ = harbour()
    assert "None yet." in describe_node(nodes[0], nodes, [])


def test_details_drop_terminal_escapes_from_every_untrusted_field() -> None:
    evil = person("npc-evil", "Ev\x1b[2Jil").model_copy(update={
        "aliases": ["al\x1b]0;t\x07ias"], "labels": ["la\x9b31mbel"], "summary": "Sum\x1b]52;c;eA==\x07mary."})
    mira = person("npc-mira", "Mira")
    text = describe_node(evil, [evil, mira], [relation("e1", "npc-evil", "npc-mira", "TRUSTS", 0.5)])
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "### Evil" in text and "alias" in text and "label" in text and "Summary." in text


def test_someone_seen_at_one_turn_reads_as_that_turn_not_a_range() -> None:
    """Brinefall's map said Sister Ambry was "seen turns 4–4"."""
    nodes, edges = harbour()
    once = nodes[0].model_copy(update={"first_seen_turn": 4, "last_seen_turn": 4})
    assert "*individual* · seen at turn 4" in describe_node(once, nodes, edges)
    assert "4–4" not in describe_node(once, nodes, edges)
