"""The deed step's first half: the deeds a turn states, and who saw each.

The offline story states what the player did to whom as the World IR's ``acts`` (every act the parser
resolved, whether or not the world authored a reaction to it); a model narrator states ``deeds``. Each
becomes one deed, seen by its actor, its target and everyone with the player this turn (confidence 1).
A deed of someone the save does not know, or of two people who were not both here, is not recorded: a
deed is a fact, held to what the turn can vouch for.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.features.deeds.model import Deed, DeedKnowing
from game.features.deeds.rules import canonical, sentence, valence_of
from game.features.feature import TurnFacts
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.names import normalize_name

MAX_DEEDS_PER_TURN = 12
"""A turn states a few acts; a runaway list (a model's) is cut here."""


async def person(graph: GraphIndex, name: str, extra: Iterable[Node] = ()) -> Node | None:
    """The one individual ``name`` means (its exact name first), among the graph and ``extra`` nodes."""
    key = normalize_name(name)
    found = [n for n in (await graph.nodes_named([key])).get(key, []) if n.type == "individual"]
    found += [n for n in extra if n.type == "individual" and key in {normalize_name(a) for a in (n.name, *n.aliases)}]
    exact = [n for n in found if normalize_name(n.name) == key]
    chosen = exact or found
    ids = {n.id for n in chosen}
    return chosen[0] if len(ids) == 1 else None


async def turn_deeds(facts: TurnFacts) -> tuple[list[Deed], list[DeedKnowing]]:
    """The deeds this turn states and their ``seen`` knower rows."""
    ir = facts.world_ir
    if ir is None or not facts.graph.player_ids:
        return [], []
    player_id = sorted(facts.graph.player_ids)[0]
    player = facts.graph.nodes.get(player_id)
    if player is None:
        return [], []
    new_nodes = list(facts.writes.nodes.values())
    stated: list[tuple[str, str, str, str]] = []  # (actor name, act, target name, thing)
    for said in ir.acts or ():
        if said.kind == "act" and said.verb:
            stated.append((player.name, said.verb, said.character, said.detail))
    for told in ir.deeds or ():
        stated.append((told.actor, told.act, told.target, told.thing))
    deeds: list[Deed] = []
    rows: list[DeedKnowing] = []
    seen_keys: set[tuple[str, str, str]] = set()
    place = ir.location or ""
    for actor_name, verb, target_name, thing in stated:
        if len(deeds) >= MAX_DEEDS_PER_TURN:
            break
        actor = player if normalize_name(actor_name) in (normalize_name(player.name), "player") \
            else await person(facts.graph, actor_name, new_nodes)
        target = await person(facts.graph, target_name, new_nodes)
        if actor is None or target is None or actor.id == target.id:
            continue
        if actor.id not in facts.present or target.id not in facts.present:
            continue  # a deed needs both its people where the player is: the turn cannot vouch for others
        act = canonical(verb)
        key = (actor.id, act, target.id)
        if key in seen_keys:
            continue
        seen_keys.add(key)
        witnesses = tuple(sorted(p for p in facts.present if p not in (actor.id, target.id)))
        deed = Deed(f"deed-{facts.turn}-{len(deeds) + 1}", facts.turn, actor.id, act, target.id, place,
                    valence_of(act), witnesses,
                    sentence(actor.name, act, target.name, thing),
                    thing=thing[:200])
        deeds.append(deed)
        for knower in dict.fromkeys((actor.id, target.id, *witnesses)):
            rows.append(DeedKnowing(deed.deed_id, knower, "seen", None, 1.0, facts.turn))
    return deeds, rows
