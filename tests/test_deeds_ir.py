"""A model narrator's World IR states deeds as typed facts, held to what the turn can vouch for: both people
known and with the player, no deed done to oneself, a few a turn (issue 23)."""

from __future__ import annotations

import asyncio

from helpers.graph import make_node, rows

from game.features.deeds.record import turn_deeds
from game.features.feature import TurnFacts
from game.graph.index import GraphIndex
from game.graph.ports import GraphWrites
from game.world.ir import IRDeed, WorldIR

HOB, TIBBY, LISE = (make_node(n) for n in ("Hob", "Tibby", "Lise"))
PLAYER = make_node("Wren", node_id="player")
PLAYER.attributes["player"] = True


def facts(ir: WorldIR, present: set[str]) -> TurnFacts:
    index = GraphIndex()
    index.apply(rows([HOB, TIBBY, LISE, PLAYER]))
    return TurnFacts(5, index, GraphWrites(), ir, {}, frozenset(present), 0)


def test_a_models_deeds_are_recorded_when_both_people_are_here_and_known() -> None:
    ir = WorldIR(characters_present=["Hob", "Tibby"], deeds=[
        IRDeed(actor="Hob", act="Threaten", target="Tibby", evidence="Hob raises his fist at Tibby."),
        IRDeed(actor="Wren", act="help", target="Hob", evidence="You steady the boat for Hob."),
        IRDeed(actor="Lise", act="accuse", target="Hob", evidence="Lise, up on the quay, accuses Hob."),
        IRDeed(actor="Nobody Known", act="help", target="Hob", evidence="A stranger helps."),
        IRDeed(actor="Hob", act="help", target="Hob", evidence="Hob helps himself."),
    ])
    deeds, seen = asyncio.run(turn_deeds(facts(ir, {"player", HOB.id, TIBBY.id})))
    assert [(d.actor, d.act, d.target, d.valence) for d in deeds] == [
        (HOB.id, "threaten", TIBBY.id, "harmful"), ("player", "help", HOB.id, "kind")]
    assert deeds[0].witnesses == ("player",)  # the player saw Hob threaten Tibby
    assert {(k.deed_id, k.knower, k.how) for k in seen} == {
        ("deed-5-1", HOB.id, "seen"), ("deed-5-1", TIBBY.id, "seen"), ("deed-5-1", "player", "seen"),
        ("deed-5-2", "player", "seen"), ("deed-5-2", HOB.id, "seen"), ("deed-5-2", TIBBY.id, "seen")}


def test_a_deed_stated_twice_is_one_and_an_unknown_verb_is_kept_as_no_news() -> None:
    ir = WorldIR(characters_present=["Hob", "Tibby"],
                 deeds=[IRDeed(actor="Hob", act="help", target="Tibby")] * 3 + [
                     IRDeed(actor="Tibby", act=f"verb{n}", target="Hob") for n in range(9)])
    deeds, _ = asyncio.run(turn_deeds(facts(ir, {"player", HOB.id, TIBBY.id})))
    assert len(deeds) == 10 and [d.act for d in deeds].count("help") == 1
    assert {d.valence for d in deeds if d.act.startswith("verb")} == {"neutral"}  # unknown acts are no news
