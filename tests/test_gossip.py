"""Gossip, pure: who can talk, what is told first, decay and floor, budget, cooldown, seeded replay."""

from __future__ import annotations

from helpers.graph import make_edge, make_node, rows

from game.features.gossip import GossipSettings, gossip_turn, pair_key
from game.features.gossip.confession import confessions
from game.graph.index import GraphIndex
from game.graph.knowledge import Knowing
from game.graph.ports import GraphWrites

HOB, TIBBY, LISE, FENN, ODO = (make_node(n) for n in ("Hob", "Tibby", "Lise", "Fenn", "Odo"))
PLAYER = make_node("Wren", node_id="player")
PLAYER.attributes["player"] = True


def knowing(edge_id: str, knower: str, confidence: float = 1.0, how: str = "authored", turn: int = 0) -> Knowing:
    return Knowing.model_validate({"edgeId": edge_id, "knower": knower, "how": how, "confidence": confidence,
                                   "sinceTurn": turn})


def town() -> tuple[GraphIndex, dict[str, str]]:
    """Hob is Tibby's grandfather (a strong tie); Tibby fears the player (she alone knows it); Lise and
    Fenn are cousins; Odo is no one's kin."""
    kin = make_edge(HOB, TIBBY, "KIN_OF", 0.8, edge_id="e-kin")
    cousins = make_edge(LISE, FENN, "KIN_OF", 0.7, edge_id="e-cousins")
    fears = make_edge(TIBBY, PLAYER, "FEARS", -0.6, valid_at=3, edge_id="e-fears")
    writes = rows([HOB, TIBBY, LISE, FENN, ODO, PLAYER], [kin, cousins, fears])
    for edge_id, knower in (("e-kin", HOB.id), ("e-kin", TIBBY.id), ("e-cousins", LISE.id),
                            ("e-cousins", FENN.id), ("e-fears", TIBBY.id), ("e-fears", "player")):
        k = knowing(edge_id, knower, turn=3 if edge_id == "e-fears" else 0)
        writes.knowings[k.key] = k
    index = GraphIndex()
    index.apply(writes)
    return index, {}


def test_kin_hear_first_and_the_retelling_fades() -> None:
    index, _ = town()
    result = gossip_turn(index, GraphWrites(), 4, {TIBBY.id: "flats"}, GossipSettings(), seed=1, last_talked={})
    learned = result.knowings[("e-fears", HOB.id)]
    assert (learned.how, learned.source, learned.confidence, learned.since_turn) == ("told", TIBBY.id, 0.7, 4)
    assert [(t.teller, t.listener, t.edge_id) for t in result.told] == [(TIBBY.id, HOB.id, "e-fears")]


def test_the_player_never_gossips_and_strangers_apart_do_not_talk() -> None:
    index, _ = town()
    result = gossip_turn(index, GraphWrites(), 4, {ODO.id: "quay", "player": "quay"}, GossipSettings(), 1, {})
    assert result.told == [] and result.knowings == {}


def test_a_rumour_stops_below_the_floor() -> None:
    index, _ = town()
    settings = GossipSettings()
    first = gossip_turn(index, GraphWrites(), 4, {TIBBY.id: "flats"}, settings, 1, {})
    index.apply(GraphWrites(knowings=first.knowings))
    # Hob knows at 0.7 (told): retold to Odo at 0.49 (rumour), by Odo to Lise at 0.343, and Lise, below
    # 0.3 / 0.7, tells no one.
    second = gossip_turn(index, GraphWrites(), 5, {HOB.id: "quay", ODO.id: "quay"}, settings, 1, {})
    assert second.knowings[("e-fears", ODO.id)].how == "rumour"
    assert second.knowings[("e-fears", ODO.id)].confidence == 0.49
    index.apply(GraphWrites(knowings=second.knowings))
    third = gossip_turn(index, GraphWrites(), 9, {ODO.id: "quay", LISE.id: "quay"}, settings, 1, {})
    assert third.knowings[("e-fears", LISE.id)].confidence == 0.343
    index.apply(GraphWrites(knowings=third.knowings))
    fourth = gossip_turn(index, GraphWrites(), 12, {LISE.id: "quay", FENN.id: "quay"}, settings, 1, {})
    assert fourth.told == []


def test_news_of_this_turn_travels_from_the_next_turn_and_pending_writes_count() -> None:
    index, _ = town()
    pending = GraphWrites()
    threat = make_edge(FENN, PLAYER, "FEARS", -0.5, valid_at=4, edge_id="e-fenn")
    pending.edges[threat.id] = threat
    pending.created_edges.add(threat.id)
    k = knowing("e-fenn", FENN.id, turn=4)
    pending.knowings[k.key] = k
    assert gossip_turn(index, pending, 4, {FENN.id: "hall"}, GossipSettings(), 1, {}).told == []
    index.apply(pending)
    result = gossip_turn(index, GraphWrites(), 5, {FENN.id: "hall"}, GossipSettings(), 1, {})
    assert result.knowings[("e-fenn", LISE.id)].source == FENN.id
    # What the turn itself wrote is seen: a listener who learned it this turn is not told it again.
    heard = knowing("e-fenn", LISE.id, turn=5, how="witnessed")
    again = gossip_turn(index, GraphWrites(knowings={heard.key: heard}), 5, {FENN.id: "hall"}, GossipSettings(), 1, {})
    assert ("e-fenn", LISE.id) not in again.knowings


def test_the_budget_and_the_pair_cooldown_hold() -> None:
    index, _ = town()
    crowd = {p.id: "quay" for p in (HOB, TIBBY, LISE, FENN, ODO)}
    one = gossip_turn(index, GraphWrites(), 4, crowd, GossipSettings(exchanges_per_turn=1), 1, {})
    assert len(one.told) == 1
    cooling = {pair_key(TIBBY.id, HOB.id): 3}
    held = gossip_turn(index, GraphWrites(), 4, {TIBBY.id: "flats"}, GossipSettings(), 1, cooling)
    assert held.told == []
    later = gossip_turn(index, GraphWrites(), 6, {TIBBY.id: "flats"}, GossipSettings(), 1, cooling)
    assert len(later.told) == 1


def test_relevance_puts_the_listeners_own_people_first() -> None:
    index, _ = town()
    # Odo knows two things: something about Lise's cousin, and a newer, stronger one about strangers.
    about_fenn = make_edge(FENN, PLAYER, "OWES", 0.2, valid_at=1, edge_id="e-owes")
    strangers = make_edge(HOB, PLAYER, "DISTRUSTS", -0.9, valid_at=5, edge_id="e-strangers")
    writes = rows([], [about_fenn, strangers])
    for k in (knowing("e-owes", ODO.id, turn=1, how="witnessed"), knowing("e-strangers", ODO.id, turn=5,
                                                                            how="witnessed")):
        writes.knowings[k.key] = k
    index.apply(writes)
    result = gossip_turn(index, GraphWrites(), 6, {ODO.id: "quay", LISE.id: "quay"}, GossipSettings(), 1, {})
    assert result.knowings[("e-owes", LISE.id)].how == "told"


def test_the_same_seed_replays_and_another_may_not() -> None:
    index, _ = town()
    crowd = {p.id: "quay" for p in (HOB, TIBBY, LISE, FENN, ODO)}
    runs = [gossip_turn(index, GraphWrites(), 4, crowd, GossipSettings(), 7, {}).told for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0]


def test_kin_do_not_spread_what_shames_their_own_people() -> None:
    """Lise knows her cousin Fenn took a bribe from Odo (made in the story, her freshest news); she does not
    tell Hob of it, only what shames no one."""
    index, _ = town()
    bribed = make_edge(ODO, FENN, "BRIBED", 0.6, valid_at=2, edge_id="e-bribe")
    writes = rows([], [bribed])
    for knower in (LISE.id, ODO.id, FENN.id):
        k = knowing("e-bribe", knower, how="witnessed", turn=2)
        writes.knowings[k.key] = k
    index.apply(writes)
    by_lise = gossip_turn(index, GraphWrites(), 5, {LISE.id: "quay", HOB.id: "quay"}, GossipSettings(), 1, {})
    assert ("e-bribe", HOB.id) not in by_lise.knowings
    assert by_lise.knowings  # she still talks: of what is no one's shame (that she and Fenn are cousins)


def test_a_confession_frees_the_teller_toward_the_people_it_concerns_only() -> None:
    """Fenn took Odo's bribe at turn 2 and, at turn 2, owned to the player. He keeps it from Hob, who is
    nobody of Odo's, and may tell it to Odo's cousin Lise; without the confession he tells neither."""
    index, _ = town()
    bribed = make_edge(ODO, FENN, "BRIBED", 0.6, valid_at=2, edge_id="e-bribe")
    odo_kin = make_edge(ODO, LISE, "KIN_OF", 0.7, edge_id="e-odo-kin")
    writes = rows([], [bribed, odo_kin])
    for k in (knowing("e-bribe", FENN.id, turn=2), knowing("e-bribe", ODO.id, turn=2),
              knowing("e-odo-kin", ODO.id), knowing("e-odo-kin", LISE.id)):
        writes.knowings[k.key] = k
    index.apply(writes)
    said = {FENN.id: {"revealed:Fenn:took-the-bribe": 2, "met": 1}}
    owned = confessions(said, index, [FENN.id, HOB.id])
    assert owned == {FENN.id: frozenset({2})}
    settings = GossipSettings(exchanges_per_turn=1)
    to_lise = gossip_turn(index, GraphWrites(), 5, {FENN.id: "hall", LISE.id: "hall"}, settings, 1, {}, owned)
    assert ("e-bribe", LISE.id) in to_lise.knowings
    quiet = gossip_turn(index, GraphWrites(), 5, {FENN.id: "hall", LISE.id: "hall"}, settings, 1, {})
    assert ("e-bribe", LISE.id) not in quiet.knowings
    to_hob = gossip_turn(index, GraphWrites(), 5, {FENN.id: "hall", HOB.id: "hall"}, settings, 1, {}, owned)
    assert ("e-bribe", HOB.id) not in to_hob.knowings
