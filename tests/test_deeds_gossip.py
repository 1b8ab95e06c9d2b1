"""Deed gossip and discretion, pure: a threat reaches the target's kin, asking is no news, the guilty do not
spread their own deeds, the dead and the absent tell nothing (relation gossip too)."""

from __future__ import annotations

from helpers.graph import make_edge, make_node, rows

from game.features.deeds.gossip import deed_gossip
from game.features.deeds.model import Deed, DeedBook, DeedKnowing
from game.features.gossip import GossipSettings, gossip_turn
from game.graph.index import GraphIndex
from game.graph.knowledge import Knowing
from game.graph.ports import GraphWrites

HOB, TIBBY, PELL, NESS, KESTREL = (make_node(n) for n in ("Hob", "Tibby", "Pell", "Ness", "Kestrel"))
PLAYER = make_node("Wren", node_id="player")
PLAYER.attributes["player"] = True


def town() -> GraphIndex:
    """Hob is Tibby's grandfather; Pell drinks with Hob; Ness (dead) loved Kestrel."""
    writes = rows([HOB, TIBBY, PELL, NESS, KESTREL, PLAYER],
                  [make_edge(HOB, TIBBY, "KIN_OF", 0.8, edge_id="e-kin"),
                   make_edge(PELL, HOB, "FRIEND_OF", 0.6, edge_id="e-friends"),
                   make_edge(NESS, KESTREL, "LOVES", 0.9, edge_id="e-love")])
    index = GraphIndex()
    index.apply(writes)
    return index


def book_of(*deeds: tuple[str, str, str, str]) -> DeedBook:
    """Deeds at turn 2 (id, actor, act, target), each seen by its two people."""
    book = DeedBook()
    made = [Deed(d, 2, actor, act, target, "stilts", "harmful" if act in ("threaten", "steal") else "neutral",
                 (), f"{actor} {act} {target}.") for d, actor, act, target in deeds]
    book.add(made, [DeedKnowing(d.deed_id, who, "seen", None, 1.0, 2) for d in made for who in (d.actor, d.target)])
    return book


def test_a_threat_with_no_relation_behind_it_reaches_the_targets_kin_as_told() -> None:
    book = book_of(("deed-2-1", "player", "threaten", TIBBY.id))
    told = deed_gossip(book, town(), {TIBBY.id: "stilts", HOB.id: "landing"}, 3, GossipSettings(), 0)
    assert [(k.knower, k.how, k.source, k.confidence) for k in told] == [(HOB.id, "told", TIBBY.id, 0.7)]


def test_a_deed_seen_this_turn_waits_a_turn_and_a_question_never_travels() -> None:
    book = book_of(("deed-2-1", "player", "threaten", TIBBY.id), ("deed-2-2", "player", "ask", HOB.id))
    places = {TIBBY.id: "stilts", HOB.id: "stilts"}
    assert deed_gossip(book, town(), places, 2, GossipSettings(), 0) == []  # learned at turn 2: not yet
    told = deed_gossip(book, town(), places, 3, GossipSettings(), 0)
    assert [k.deed_id for k in told] == ["deed-2-1"]  # Hob hears of the threat, never of being asked


def test_the_guilty_do_not_volunteer_their_own_deed_nor_their_friends() -> None:
    book = book_of(("deed-2-1", PELL.id, "steal", TIBBY.id))
    book.add([], [DeedKnowing("deed-2-1", HOB.id, "seen", None, 1.0, 2)])  # Hob saw his friend do it
    graph = town()
    quiet = deed_gossip(book, graph, {PELL.id: "gull", HOB.id: "gull", KESTREL.id: "gull"}, 3, GossipSettings(), 0)
    assert quiet == []  # Pell keeps his own deed; Hob keeps his friend's
    told = deed_gossip(book, graph, {TIBBY.id: "stilts", KESTREL.id: "stilts"}, 3, GossipSettings(), 0)
    assert [(k.knower, k.source) for k in told] == [(KESTREL.id, TIBBY.id)]  # the wronged tell freely


def test_the_dead_and_the_absent_tell_nothing_of_deeds_or_relations() -> None:
    graph = town()
    book = book_of(("deed-2-1", "player", "threaten", NESS.id))
    assert deed_gossip(book, graph, {KESTREL.id: "chapel"}, 3, GossipSettings(), 0) == []
    knows = Knowing.model_validate({"edgeId": "e-love", "knower": NESS.id, "how": "authored", "confidence": 1.0,
                                    "sinceTurn": 0})
    graph.apply(GraphWrites(knowings={knows.key: knows}))
    # Ness has no place (she is dead): her tie to Kestrel carries nothing from her.
    result = gossip_turn(graph, GraphWrites(), 17, {KESTREL.id: "chapel"}, GossipSettings(), 0, {})
    assert [t.teller for t in result.told] == []


def test_a_harm_owned_up_to_is_no_longer_kept_back() -> None:
    """Pell keeps his theft to himself until he confesses; then his friend Hob may tell it too."""
    book = book_of(("deed-2-1", PELL.id, "steal", TIBBY.id))
    book.add([], [DeedKnowing("deed-2-1", HOB.id, "seen", None, 1.0, 2)])
    places = {PELL.id: "gull", HOB.id: "gull", KESTREL.id: "gull"}
    assert deed_gossip(book, town(), places, 3, GossipSettings(), 0) == []
    confession = Deed("deed-3-1", 3, PELL.id, "confess", KESTREL.id, "gull", "neutral", (), "Pell confessed to Kestrel.")
    book.add([confession], [DeedKnowing("deed-3-1", w, "seen", None, 1.0, 3) for w in (PELL.id, KESTREL.id, HOB.id)])
    told = deed_gossip(book, town(), places, 4, GossipSettings(), 0)
    assert [k.deed_id for k in told] == ["deed-2-1"]  # the theft travels now; a confession is no news itself


def test_an_apology_goes_with_the_harm_and_is_no_news_without_it() -> None:
    book = book_of(("deed-2-1", "player", "threaten", TIBBY.id))
    sorry = Deed("deed-3-1", 3, "player", "apologize", TIBBY.id, "stilts", "kind", (),
                 "Wren apologised to Tibby for threatening her.", thing="threatening her")
    book.add([sorry], [DeedKnowing("deed-3-1", w, "seen", None, 1.0, 3) for w in ("player", TIBBY.id)])
    # At turn 3 the apology is this turn's own, yet it goes with the threat it answers.
    told = deed_gossip(book, town(), {TIBBY.id: "stilts", HOB.id: "landing"}, 3, GossipSettings(), 0)
    assert [(k.deed_id, k.knower, k.source) for k in told] == [("deed-2-1", HOB.id, TIBBY.id),
                                                                ("deed-3-1", HOB.id, TIBBY.id)]
    alone = book_of()
    alone.add([sorry], [DeedKnowing("deed-3-1", w, "seen", None, 1.0, 3) for w in ("player", TIBBY.id)])
    assert deed_gossip(alone, town(), {TIBBY.id: "stilts", HOB.id: "landing"}, 5, GossipSettings(), 0) == []
