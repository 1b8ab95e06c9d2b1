"""Brinefall, played: a full game to every ending, the relations that decide each, and what the graph gains."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.play import play
from playthrough import Playthrough

from game.config import Settings
from game.engine.events import GameEnded, NarrationDone
from game.graph.retrieve import retrieve
from game.story.prose import sentences, tidy
from game.world import World, load_world

CONTENT = Path(__file__).resolve().parent.parent / "content"

# The investigation: the stake and the note in Lowtown, Tibby's trust won with bread, Maud's with coin,
# the tally at the sluice wheel, Pell's confession, Ambry's, Fenn's help with the ledger, Lise turned,
# Hob told, and the bell.
JUSTICE = [
    "talk to hob", "ask hob about ness", "ask hob about the flood", "help hob", "w", "talk to tibby",
    "ask tibby about the flood", "take stake", "take note", "x note", "e", "n", "talk to lise", "help lise",
    "ask lise about the flood", "ask captain about the flood", "e", "take bread", "talk to maud",
    "ask maud about pell", "bribe maud", "ask maud about pell", "talk to pell", "ask pell about the flood",
    "w", "s", "w", "give bread to tibby", "ask tibby about the flood", "e", "e", "x wheel", "take tally", "w",
    "n", "e", "show tally to pell", "help pell", "w", "w", "talk to ambry", "ask ambry about the bell", "e",
    "n", "talk to fenn", "help fenn", "ask fenn about the ledger", "z", "u", "take ledger", "d", "s",
    "show ledger to lise", "s", "tell hob about the ledger", "n", "w", "ring bell", "ring bell",
]
# Vengeance: Ness's note opens the Eel Steps and Kestrel's trust; Pell's confession, told to Kestrel.
RECKONING = [
    "w", "take note", "e", "show note to hob", "e", "x wheel", "take tally", "w", "n", "e",
    "show tally to pell", "w", "s", "e", "say the eel is hungry", "d", "talk to kestrel",
    "ask kestrel about ness", "show note to kestrel", "ask kestrel about ness", "tell kestrel about pell",
    "u", "w", "n", "w", "z", "ring bell", "ring bell",
]
# Bought: Maud's gossip brings the Guild's summons, and Orla's purse is accepted.
SALT = [
    "n", "e", "bribe maud", "ask maud about pell", "w", "n", "talk to orla", "accept the offer", "i", "s", "s",
    "talk to hob", "n", "w", "ring the bell", "ring the bell",
]
# Nobody won over: the Moot is called with nothing to say.
FERRY_AT_MOOT = ["n", "w", "talk to ambry", "ring bell", "ring bell"]


@pytest.fixture(scope="module")
def world() -> World:
    return load_world(CONTENT, "brinefall")


def assert_open(game: Playthrough, source: str, target: str, relation: str, sign: str | None = None) -> None:
    edge = game.open_relation(source, target, relation)
    assert edge is not None, f"expected an open {source} -> {target}: {relation}"
    if sign == "+":
        assert edge.strength > 0.33, edge
    elif sign == "-":
        assert edge.strength < -0.33, edge


def assert_not_open(game: Playthrough, source: str, target: str, relation: str) -> None:
    assert game.open_relation(source, target, relation) is None, f"{source} -> {target}: {relation} is open"


# ------------------------------------------------------------------------------------------ the world


def test_brinefall_has_the_shape_the_issue_asks_for(world: World) -> None:
    people = [c for c in world.characters if c.type == "individual"]
    groups = [c for c in world.characters if c.type != "individual"]
    assert len(people) >= 12
    assert len(groups) >= 3
    assert 6 <= len(world.places) <= 10
    assert len(world.endings) >= 3
    assert world.player_name == "Wren Tallis"
    for person in people:
        assert person.aliases, f"{person.name} needs an alias people use"
        if person.location is not None:
            assert person.topics and person.reactions, f"{person.name} must answer talk and acts"
            # Crane's two ledger lies were dead content (kith explore: nobody reaches him before Fenn has told
            # of the ledger, so they could only deny what the player knew); he evades rather than lies now.
            assert any(t.lie for t in person.topics) or person.name in {
                "Hob Tarrant", "Lise Brack", "Dace Merrow", "Maud Quaile", "Isolde Kett", "Orla Vance",
                "Fenn Orrick", "Aldous Crane"}, person.name
    assert sum(1 for p in people for t in p.topics if t.lie) >= 4, "some people lie"
    assert sum(1 for p in people for t in p.topics if not t.when.is_empty()) >= 8, "some say more once trusted"
    for place in world.places.values():
        assert place.features, f"{place.id} needs something to notice"
    assert world.premise and world.style


def test_every_reply_is_short(world: World) -> None:
    texts: list[tuple[str, list[str]]] = []
    for character in world.characters:
        for i, topic in enumerate(character.topics):
            texts.append((f"{character.name} topic {i}", topic.reply))
        for i, reaction in enumerate(character.reactions):
            texts.append((f"{character.name} reaction {i}", reaction.reply))
        if character.greeting:
            texts.append((f"{character.name} greeting", character.greeting))
    texts += [(f"beat {b.id}", b.text) for b in world.beats if b.text]
    texts += [(f"command {c.id}", c.reply) for c in world.commands]
    for where, variants in texts:
        for variant in variants:
            count = len(sentences(tidy(variant)))
            assert 1 <= count <= 6, f"{where}: {count} sentences"  # a quoted fragment counts as one


async def test_turn_zero_seeds_everyone_and_the_known_relationships(world: World) -> None:
    game = await Playthrough.start(world)
    names = {n.name for n in game.graph.nodes.values()}
    assert {c.name for c in world.characters} | {"Wren Tallis"} == names
    assert len(game.graph.open_edges) == len(world.relationships) >= 20
    assert_open(game, "Lise Brack", "Dace Merrow", "TRUSTS", "+")
    assert_open(game, "Ambry Garrow", "Pell Garrow", "KIN_OF", "+")
    assert_not_open(game, "Pell Garrow", "Aldous Crane", "OWES")  # a secret until someone tells it


# ------------------------------------------------------------------------------------------ endings


async def test_justice_is_decided_by_lise_and_hob(world: World) -> None:
    game = await play(world, JUSTICE)
    assert game.scene.ending == "justice"
    assert "**The Bell Rings for Ness**" in game.turns[-1].narration
    assert_open(game, "Lise Brack", "player", "ALLY_OF", "+")
    assert_open(game, "Hob Tarrant", "player", "TRUSTS", "+")
    assert_not_open(game, "player", "Orla Vance", "SERVES")
    assert_not_open(game, "Lise Brack", "Dace Merrow", "TRUSTS")
    assert_open(game, "Lise Brack", "Dace Merrow", "DISTRUSTS", "-")
    assert_open(game, "Lise Brack", "Harbour Watch", "LEADS", "+")
    assert_not_open(game, "Dace Merrow", "Harbour Watch", "LEADS")
    assert_not_open(game, "Aldous Crane", "Orla Vance", "SERVES")
    assert_open(game, "Orla Vance", "Aldous Crane", "BLAMES", "-")


async def test_a_full_playthrough_gains_25_relations_some_superseded_some_closed(world: World) -> None:
    game = await play(world, JUSTICE)
    at_start = {(e.source, e.target, e.relation) for e in game.all_edges.values() if e.valid_at == 0}
    gained = game.relation_keys(since_turn=1) - at_start
    assert len(gained) >= 25, len(gained)
    superseded = game.superseded()
    closed = game.closed()
    assert len(superseded) >= 3 and len(closed) >= 3
    assert {e.relation for e in closed} >= {"TRUSTS", "SERVES", "LEADS"}
    assert all(t.rejected == 0 for t in game.turns), "every extraction call was accepted"
    assert 55 <= len(game.turns) <= 70


async def test_reckoning_is_decided_by_kestrel(world: World) -> None:
    game = await play(world, RECKONING)
    assert game.scene.ending == "reckoning"
    assert "**The Eel Run's Reckoning**" in game.turns[-1].narration
    assert_open(game, "Kestrel", "player", "ALLY_OF", "+")
    assert_open(game, "Kestrel", "Pell Garrow", "HATES", "-")
    assert_open(game, "Kestrel", "Ness Tallis", "LOVES", "+")
    assert_not_open(game, "Kestrel", "player", "DISTRUSTS")
    assert_not_open(game, "Lise Brack", "player", "ALLY_OF")
    assert game.scene.story.positions.get("Pell Garrow") is None, "the Eel Run took Pell"
    assert_open(game, "Ambry Garrow", "player", "BLAMES", "-")


async def test_salt_is_decided_by_the_purse(world: World) -> None:
    game = await play(world, SALT)
    assert game.scene.ending == "salt"
    assert "**Salt and Silence**" in game.turns[-1].narration
    assert_open(game, "player", "Orla Vance", "SERVES", "+")
    assert_open(game, "Orla Vance", "player", "TRUSTS", "+")
    assert_open(game, "Hob Tarrant", "player", "DISTRUSTS", "-")
    hob_versions = sorted(((e.relation, e.strength, e.invalid_at) for e in game.all_edges.values()
                           if e.relation in {"TRUSTS", "DISTRUSTS"}
                           and e.source == game.node_id("Hob") and e.target == game.node_id("player")),
                          key=lambda v: v[2] is None)
    assert [v[:2] for v in hob_versions] == [("TRUSTS", 0.3), ("DISTRUSTS", -0.5)], "distrust closes trust"
    assert hob_versions[0][2] is not None


async def test_the_moot_with_nobody_won_over_ends_on_the_last_ferry(world: World) -> None:
    game = await play(world, FERRY_AT_MOOT)
    assert game.scene.ending == "ferry"
    assert "nobody on the quay owes you a hearing" in game.turns[-1].narration
    assert_not_open(game, "Lise Brack", "player", "ALLY_OF")
    assert_not_open(game, "Kestrel", "player", "ALLY_OF")
    assert_not_open(game, "player", "Orla Vance", "SERVES")


async def test_leaving_early_is_warned_then_ends(world: World) -> None:
    game = await play(world, ["leave"])
    assert game.scene.ending is None and "If you mean it, say so again." in game.turns[-1].narration
    await game.play("board the ferry")
    assert game.scene.ending == "ferry"


async def test_dusk_calls_the_moot_by_itself(world: World) -> None:
    game = await play(world, ["z"] * 149)
    assert any("The light has gone yellow" in t.narration for t in game.turns)
    assert any("If you mean to call the Moot yourself, it must be soon." in t.narration for t in game.turns)
    await game.play("z")
    assert game.scene.ending == "ferry"
    assert "the flood bell begins to ring for the Tide Moot" in game.turns[-1].narration


# ------------------------------------------------------------------------------------------ behaviour


async def test_trust_gates_what_people_say(world: World) -> None:
    game = await play(world, ["w", "talk to tibby"])
    assert "Didn't see nothing" in await game.play("ask tibby about the flood")
    await game.play("help tibby")
    told = await game.play("ask tibby about the flood")
    assert "He walked all lopsided, like Pell does." in told
    assert_open(game, "Tibby Tarrant", "Pell Garrow", "WITNESSED", "-")


async def test_greetings_follow_the_graph(world: World) -> None:
    game = await play(world, ["w", "threaten tibby"])
    assert "under the stilts before you reach the walk" in await game.play("talk to tibby")
    game = await play(world, ["n", "threaten captain"])
    assert "The tide's still coming in, too." in await game.play("talk to merrow")


async def test_the_second_hop_reaches_the_steward_from_the_bellkeeper(world: World) -> None:
    game = await play(world, JUSTICE[:37])
    assert game.scene.flags.get("pell_confessed")
    found = await retrieve(game.graph, "ask Sister Ambry about the bell")
    assert [n.name for n in found.seed_nodes] == ["Ambry Garrow"]
    assert "**Aldous Crane** → **Pell Garrow** (BRIBED)" in found.npc_context, "two hops: Ambry, Pell, Crane"
    assert "**Ambry Garrow** → **Pell Garrow** (KIN_OF)" in found.npc_context


async def test_same_seed_same_story(world: World) -> None:
    first = await play(world, RECKONING, seed=5)
    second = await play(world, RECKONING, seed=5)
    assert [t.narration for t in first.turns] == [t.narration for t in second.turns]
    assert [t.result.world_ir.to_json_dict() for t in first.turns] == [
        t.result.world_ir.to_json_dict() for t in second.turns]


async def test_a_game_session_plays_brinefall_to_an_ending(tmp_path: Path, world: World) -> None:
    from game.engine.session import GameSession

    settings = Settings(saves_dir=tmp_path / "saves", content_dir=CONTENT, narrator="offline", seed=0)
    session = await GameSession.open(settings, "salt", new=True, world="brinefall")
    try:
        assert "Three weeks ago, on the night of the Lantern Tide" in session.opening_text()
        ended: list[GameEnded] = []
        last = ""
        for command in SALT:
            async for event in session.play_turn(command):
                if isinstance(event, GameEnded):
                    ended.append(event)
                elif isinstance(event, NarrationDone):
                    last = event.text
        assert [(e.ending, e.title) for e in ended] == [("salt", "Salt and Silence")]
        assert "**Salt and Silence**" in last
        assert session.scene.ending == "salt"
    finally:
        await session.close()


async def test_any_verb_on_any_name_anywhere_gets_a_reply(world: World) -> None:
    import random

    names = [n for c in world.characters for n in c.names] + [n for i in world.items.values() for n in i.names]
    names += ["", "xyzzy", "me", "him"]
    verbs = ["talk to {}", "ask {} about {}", "tell {} about {}", "give {} to {}", "show {} {}", "help {}",
             "threaten {}", "bribe {} with {}", "accuse {} of {}", "lie to {} about {}", "follow {}",
             "warn {} about {}", "x {}", "take {}", "drop {}", "go {}", "\"{}", "{}"]
    rng = random.Random(7)
    for place in world.places:
        game = await Playthrough.start(world)
        for _ in range(25):
            game.scene = game.scene.model_copy(update={"location": place, "inventory": list(world.items)})
            verb = rng.choice(verbs)
            line = verb.format(*(rng.choice(names) for _ in range(verb.count("{}"))))
            reply = await game.play(line)
            assert reply.strip(), line
            assert all(t.rejected == 0 for t in game.turns), line
            if game.scene.ending:
                break


async def test_handing_over_money_is_a_bribe(world: World) -> None:
    game = await play(world, ["n", "e"])
    assert "Now we're friends." in await game.play("give coins to maud")
    assert_open(game, "Maud Quaile", "player", "TRUSTS", "+")
    assert game.scene.story.held["coins"] == "Maud Quaile"
