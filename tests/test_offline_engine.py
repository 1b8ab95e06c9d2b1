"""The offline narrator on the tiny fixture world: verbs, replies, determinism, World IR, beats, endings."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.play import play
from playthrough import Playthrough

from game.graph.index import GraphIndex
from game.graph.upsert import UpsertExecution
from game.narrator.base import NarrationRequest
from game.narrator.offline import OfflineNarrator
from game.story.parser import Intent, parse
from game.world import World, load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


@pytest.fixture(scope="module")
def world() -> World:
    return load_world(FIXTURES, "tiny")


async def test_opening_is_second_person_and_describes_the_start(world: World) -> None:
    game = await Playthrough.start(world)
    opening = game.opening
    assert opening.startswith("Wind hums in the iron stair.")
    assert "**The Iron Stair**" in opening
    assert "Edda is here" in opening
    assert "You notice a tin of matches here." in opening
    assert "From here you can go up to the Lamp Room." in opening
    assert game.narrator.label == "offline narrator"


async def test_look_examine_inventory_and_their_abbreviations(world: World) -> None:
    game = await Playthrough.start(world)
    look, l_ = await game.play("look"), await game.play("l")
    assert look == l_ and "**The Iron Stair**" in look and "Salt has eaten the rail" in look
    assert await game.play("x rail") == "Flakes of rust come away on your fingers."
    assert await game.play("examine the iron rail") == "Flakes of rust come away on your fingers."
    assert await game.play("look at edda") == "The old keeper of the light, who does not want to retire."
    assert await game.play("x matches") == "Six matches, dry."
    assert await game.play("i") == "You are carrying a silver coin."
    assert await game.play("inventory") == "You are carrying a silver coin."
    assert "You are Sam Reed." in await game.play("x me")


async def test_take_drop_and_carrying(world: World) -> None:
    game = await Playthrough.start(world)
    assert await game.play("take matches") == "You take a tin of matches."
    assert "matches" in game.scene.inventory and "matches" not in game.scene.story.item_places
    assert await game.play("take the tin") == "You already have a tin of matches."
    assert await game.play("drop tin") == "You put down a tin of matches."
    assert game.scene.story.item_places["matches"] == "stair"
    assert await game.play("pick up the matches") == "You take a tin of matches."
    assert await game.play("get lantern") == "You see no lantern here."


async def test_movement_directions_barriers_and_brief_revisits(world: World) -> None:
    game = await Playthrough.start(world)
    blocked = await game.play("u")
    assert "Edda stretches a boot across the stair" in blocked and game.scene.location == "stair"
    await game.play("talk to edda")
    arrived = await game.play("up")
    assert game.scene.location == "lamp" and "**The Lamp Room**" in arrived
    assert "Glass on every side" in arrived and "Tobin is polishing the lamp glass." in arrived
    assert "can't go that way" in await game.play("n")
    await game.play("d")
    assert game.scene.location == "stair"
    assert "**The Lamp Room**" in await game.play("go to the lamp room")
    back = await game.play("go down")
    assert game.scene.location == "stair" and "The iron stair." in back and "winds up the inside" not in back
    assert game.scene.visited == ["stair", "lamp"]


async def test_verbose_mode_prints_full_descriptions_on_revisits(world: World) -> None:
    game = await Playthrough.start(world)
    for command in ("talk to edda", "u", "d"):
        await game.play(command)
    game.scene = game.scene.model_copy(update={"verbose": True})
    await game.play("u")
    assert "winds up the inside" in await game.play("d")


async def test_conversation_topics_lies_and_trust_gated_answers(world: World) -> None:
    game = await Playthrough.start(world)
    assert await game.play("talk to the keeper") == "\"Mind the rail,\" Edda says. \"It's older than me.\""
    assert game.scene.met == ["Edda Marsh"]
    assert await game.play("ask edda about the lamp") == (
        "\"It wants lighting before dark. The matches are on the stair.\"")
    assert game.scene.flags["asked_lamp"] is True
    lie = await game.play("ask her about tobin")
    assert lie == "\"Tobin is a good lad,\" Edda says, too quickly."
    await game.play("help edda")
    truth = await game.play("ask about Tobin Hale")
    assert truth.startswith("\"Tobin wants my post. Let him wait.\"")
    ir = game.turns[-1].result.world_ir
    assert [(r.source, r.relation, r.target) for r in ir.relations] == [("Sam Reed", "KNOWS_SECRET_OF", "Tobin Hale")]
    # Something of the story that is not hers to talk about: her own words for it.
    unknown = await game.play("ask edda about the post")
    assert unknown.startswith("Edda shrugs. \"Ask me about the lamp, if you must ask.\"")
    assert unknown.endswith("Edda might talk about the lamp or Tobin.")
    # Something the story never names: she doesn't know about it, and hides nothing by saying so.
    nothing = await game.play("ask edda about the weather")
    assert nothing.startswith("Edda doesn't know about the weather.")
    assert "Edda shrugs" not in nothing


async def test_acts_change_relations_and_refuse_in_character(world: World) -> None:
    game = await Playthrough.start(world)
    await game.play("help edda")
    trusts = game.open_relation("Edda Marsh", "player", "TRUSTS")
    assert trusts is not None and trusts.strength == 0.6 and trusts.valid_at == 1
    await game.play("threaten edda")
    after = game.open_relation("Edda Marsh", "player", "DISTRUSTS")
    assert after is not None and after.strength == -0.5 and after.fact.startswith("Edda Marsh stopped trusting")
    assert game.open_relation("Edda Marsh", "player", "TRUSTS") is None  # distrust closed it
    assert await game.play("give coin to edda") == "Edda bites the coin, then pockets it. \"Bribery. I'm touched.\""
    assert game.scene.inventory == [] and game.scene.story.held == {"coin": "Edda Marsh"}
    assert await game.play("warn edda about the storm") == "Edda listens, but doesn't seem worried."
    assert await game.play("lie to edda about the coin") == "Edda hears you out and doesn't believe a word."
    assert await game.play("bribe edda") == "You have nothing Edda would take."
    assert await game.play("show coin to edda") == "You aren't carrying any coin."


async def test_give_with_two_objects_and_show(world: World) -> None:
    game = await Playthrough.start(world)
    await game.play("take matches")
    assert await game.play("show edda the matches") == "Edda glances at a tin of matches, unmoved."
    assert "matches" in game.scene.inventory
    assert await game.play("give edda the coin") == "Edda bites the coin, then pockets it. \"Bribery. I'm touched.\""


async def test_again_repeats_the_last_command(world: World) -> None:
    game = await Playthrough.start(world)
    first = await game.play("x rail")
    assert await game.play("g") == first
    assert await game.play("again") == first


@pytest.mark.parametrize("line", ["again.", "Again please", "g!", "  G  ", "again\u2026", "now again"])
async def test_again_written_any_way_the_parser_reads_repeats_the_last_command(world: World, line: str) -> None:
    game = await Playthrough.start(world)
    first = await game.play("x rail")
    assert await game.play(line) == first
    assert [t.player_input for t in game.turns] == ["x rail", "x rail"], "the repeated line is what is kept"


@pytest.mark.parametrize("line", ["again.", "g?"])
async def test_again_before_any_turn_says_there_is_nothing_and_takes_no_turn(world: World, line: str) -> None:
    game = await Playthrough.start(world)
    assert await game.play(line) == "There is nothing to do again yet."
    assert game.turns == [] and game.turn == 0


@pytest.mark.parametrize("line", ["", "   ", ".", "...", "?!", "\u201c\u201d"])
async def test_input_that_cleans_to_nothing_takes_no_turn(world: World, line: str) -> None:
    game = await Playthrough.start(world)
    assert (await game.play(line)).startswith("You wait for yourself to decide.")
    assert game.turns == [] and game.turn == 0


async def test_talking_to_someone_absent_or_unknown(world: World) -> None:
    game = await Playthrough.start(world)
    # Nobody has named Tobin yet: the parser must not say he exists, let alone that he is elsewhere.
    assert await game.play("talk to tobin") == "You don't know anyone by that name."
    assert await game.play("examine tobin") == "You don't know anyone by that name."
    assert "Tobin" in await game.play("ask edda about tobin")
    assert await game.play("talk to tobin") == "Tobin isn't here."
    assert await game.play("talk to the board") == "You don't know anyone by that name."
    game.scene = game.scene.model_copy(update={"known": None})  # as in a save from before awareness was kept
    assert await game.play("talk to the board") == (
        "Lighthouse Board is more than one person; find someone who speaks for them.")
    assert await game.play("ask gerald about boats") == "No one here answers to \"gerald\". Edda is here."


@pytest.mark.parametrize("line", [
    "dance", "xyzzy", "kill edda", "edda", "give", "take", "go", "ask", "!!!", "   ", "日本語で話す",
    "ask edda about", "show matches to", "tell", "follow", "a" * 500,
])
async def test_unusable_input_gets_an_in_world_reply_and_time_stands_still(world: World, line: str) -> None:
    game = await play(world, ["talk to edda", "u"])
    reply = await game.play(line)
    assert reply.strip(), "never silence"
    assert "Traceback" not in reply
    assert "climbing" not in reply, "a command that did nothing must not let the world's beats run"
    assert game.turns[-1].result.world_ir.next_cast == ["Tobin Hale"]
    assert "climbing" in await game.play("z")


async def test_unknown_verb_reply_is_the_worlds_and_hints(world: World) -> None:
    game = await Playthrough.start(world)
    assert await game.play("juggle the lamps") == "The wind takes your words. You could look around, talk to Edda or go up."
    assert "Threaten, if you must." in await game.play("kill edda")


async def test_beats_fire_on_turns_and_on_graph_relationships(world: World) -> None:
    game = await play(world, ["talk to edda", "u"])
    climbing = await game.play("z")
    assert "the keeper is climbing" in climbing
    assert game.scene.cast == ["Edda Marsh", "Tobin Hale"]
    assert "edda_confided" not in game.scene.flags
    await game.play("help edda")
    assert "You'll do. Better than some." in game.turns[-1].narration, "the trust won this turn lets the beat fire"
    assert game.scene.flags["edda_confided"] is True


async def test_a_beat_fires_when_a_relation_is_closed_and_the_departure_can_be_followed(world: World) -> None:
    game = await play(world, ["talk to edda", "u"])
    accused = await game.play("accuse tobin about his post")
    assert "Tobin reddens." in accused and "goes down the stair without a word" in accused
    ir = game.turns[-1].result.world_ir
    assert [(e.source, e.relation, e.target) for e in ir.ended_relations] == [("Tobin Hale", "SERVES", "Edda Marsh")]
    assert game.open_relation("Tobin Hale", "Edda Marsh", "SERVES") is None
    assert [e.relation for e in game.closed()] == ["SERVES"]
    assert "Tobin Hale" not in game.scene.cast
    followed = await game.play("follow tobin")
    assert followed.startswith("You follow Tobin to the Iron Stair.") and game.scene.location == "stair"


async def test_world_ir_lists_present_entities_relations_and_next_cast(world: World) -> None:
    game = await play(world, ["take matches"])
    await game.play("help edda")
    ir = game.turns[-1].result.world_ir
    assert ir.characters_present == ["Edda Marsh"]
    kinds = {e.name: e.kind for e in ir.entities}
    assert kinds == {"Edda Marsh": "character", "Sam Reed": "character", "The Iron Stair": "place"}
    relation = ir.relations[0]
    assert (relation.source, relation.target, relation.relation, relation.strength) == (
        "Edda Marsh", "Sam Reed", "TRUSTS", 0.6)
    assert relation.fact == "Edda Marsh trusts Sam Reed since Sam steadied her wick."
    assert relation.evidence == "You steady the wick while Edda ties it."
    assert relation.evidence in game.turns[-1].narration
    assert ir.location == "stair"
    ir_take = game.turns[0].result.world_ir
    assert {"name": "a tin of matches", "kind": "item"}.items() <= ir_take.entities[-1].to_json_dict().items()
    next_turn_cast = game.turns[0].result.world_ir.next_cast
    assert next_turn_cast == ["Edda Marsh"]


async def test_the_same_seed_and_input_tell_the_same_story(world: World) -> None:
    commands = ["z", "z", "talk to edda", "help edda", "z", "u", "z", "z", "ask tobin about the lamp", "z"]
    first = await play(world, commands, seed=7)
    second = await play(world, commands, seed=7)
    assert [t.narration for t in first.turns] == [t.narration for t in second.turns]
    assert [t.result.world_ir.to_json_dict() for t in first.turns] == [
        t.result.world_ir.to_json_dict() for t in second.turns]
    assert first.scene == second.scene
    others = [await play(world, commands, seed=s) for s in (1, 2, 3)]
    assert any([t.narration for t in o.turns] != [t.narration for t in first.turns] for o in others), (
        "the seed chooses among a text's variants")


async def test_narrate_and_finish_agree_and_the_scene_is_never_mutated(world: World) -> None:
    narrator = OfflineNarrator(world, seed=3)
    graph = GraphIndex()
    execution = UpsertExecution(graph, world.vocabulary, 0)
    for call in world.initial_graph_calls():
        await execution.run(call)
    graph.apply(execution.writes)
    scene = world.initial_scene()
    before = scene.model_dump_json()
    request = NarrationRequest(turn=1, player_input="help edda", npc_context="", scene=scene, graph=graph, seed=4)
    chunks = [chunk async for chunk in narrator.narrate(request)]
    assert len(chunks) >= 2, "streamed in pieces"
    narration = "".join(chunks)
    result = await narrator.finish(request, narration)
    assert scene.model_dump_json() == before
    assert result.world_ir.relations[0].evidence in narration
    assert result.scene.rng_state != scene.rng_state
    again = [chunk async for chunk in narrator.narrate(request)]
    assert "".join(again) == narration
    turn_execution = UpsertExecution(graph, world.vocabulary, 1)
    report = await narrator.extract(request, result, turn_execution)
    assert report.extracted and report.rejected == 0
    created = [e for e in turn_execution.writes.edges.values() if e.relation == "TRUSTS"]
    assert len(created) == 1 and created[0].evidence_turn_ids == ["turn-1"]
    assert scene.model_dump_json() == before


async def test_finish_without_narrate_computes_the_same_turn(world: World) -> None:
    graph = (await Playthrough.start(world)).graph
    scene = world.initial_scene()
    request = NarrationRequest(turn=1, player_input="x rail", npc_context="", scene=scene, graph=graph)
    narrator = OfflineNarrator(world)
    result = await narrator.finish(request, "")
    text = "".join([c async for c in OfflineNarrator(world).narrate(request)])
    assert text == "Flakes of rust come away on your fingers."
    assert result.scene.location == "stair"


async def test_custom_command_and_ending(world: World) -> None:
    game = await Playthrough.start(world)
    assert await game.play("light the lamp") == "You need a flame, and the lamp."
    for command in ("take matches", "talk to edda", "u"):
        await game.play(command)
    ending = await game.play("light lamp")
    assert ending.startswith("The wick catches. Light pours out over the sea.")
    assert "Far off, a horn answers." in ending
    assert "**The Lamp Burns**" in ending and "a ship turns towards the light" in ending
    assert game.scene.ending == "lit"
    assert world.ending_titles[game.scene.ending] == "The Lamp Burns"


async def test_think_recalls_the_goal(world: World) -> None:
    game = await Playthrough.start(world)
    assert await game.play("think") == (
        "You stop and think. Someone has to light the lamp before the ships come in.")


async def test_speaking_aloud_reaches_the_person_you_are_talking_to(world: World) -> None:
    game = await play(world, ["talk to edda"])
    assert await game.play('"Tell me about the lamp') == (
        "\"It wants lighting before dark. The matches are on the stair.\"")
    assert await game.play("say nice weather") == "Edda hears you out, and waits for something Edda can use."
    await game.play("u")
    game.scene = game.scene.model_copy(update={"location": "stair", "cast": [],
                                               "story": game.scene.story.model_copy(update={"positions": {}})})
    assert await game.play('"Hello?') == "Your words go out over the water. No one is near enough to answer."


async def test_exits_go_back_and_take_all(world: World) -> None:
    game = await play(world, ["talk to edda"])
    assert await game.play("exits") == "From here you can go up to the Lamp Room."
    assert await game.play("take all") == "You take a tin of matches."
    assert await game.play("take everything") == "There is nothing here you can carry off."
    await game.play("u")
    assert "**The Iron Stair**" in await game.play("go back")
    assert game.scene.location == "stair"


async def test_a_scene_naming_things_the_world_no_longer_has_still_plays(world: World) -> None:
    game = await Playthrough.start(world)
    game.scene = game.scene.model_copy(update={
        "location": "attic", "inventory": ["coin", "old-map"],
        "story": game.scene.story.model_copy(update={
            "item_places": {"matches": "stair", "ghost": "stair", "x": "cellar"},
            "positions": {"Edda Marsh": "stair", "Nobody": "stair"}, "held": {"lamp": "Nobody"}}),
    })
    told = await game.play("look")
    assert "**The Iron Stair**" in told and "Edda is here" in told
    assert game.scene.location == "stair" and game.scene.inventory == ["coin"]


async def test_changing_a_finished_scene_does_not_change_the_next_finish(world: World) -> None:
    game = await Playthrough.start(world)
    request = NarrationRequest(turn=1, player_input="take matches", npc_context="", scene=game.scene,
                               graph=game.graph)
    narration = "".join([c async for c in game.narrator.narrate(request)])
    first = await game.narrator.finish(request, narration)
    first.scene.flags["tampered"] = True
    first.scene.inventory.clear()
    first.world_ir.characters_present.append("Nobody")
    second = await game.narrator.finish(request, narration)
    assert "tampered" not in second.scene.flags
    assert second.scene.inventory == ["coin", "matches"]
    assert "Nobody" not in second.world_ir.characters_present


async def test_a_new_request_reads_the_graph_as_it_is_now(world: World) -> None:
    """Same turn, input, seed, scene and graph object, but the graph has learnt something since: a new
    request is told from the graph as it is, never from an answer cached for an earlier request."""
    narrator = OfflineNarrator(world)
    game = await Playthrough.start(world)
    scene = game.scene
    lie = await narrator.finish(NarrationRequest(1, "ask edda about tobin", "", scene, game.graph), "")
    assert lie.world_ir.relations == []
    await game.play("help edda")
    assert game.open_relation("Edda Marsh", "player", "TRUSTS") is not None
    truth = await narrator.finish(NarrationRequest(1, "ask edda about tobin", "", scene, game.graph), "")
    assert [r.relation for r in truth.world_ir.relations] == ["KNOWS_SECRET_OF"]


@pytest.mark.parametrize(("line", "intent"), [
    ("give the coin to edda", Intent("give", obj="the coin", target="edda")),
    ("give edda the coin", Intent("give", obj="edda the coin")),
    ("show matches to edda", Intent("show", obj="matches", target="edda")),
    ("show edda the matches", Intent("show", obj="edda the matches")),
    ("\u201cTell me about the lamp", Intent("say", topic="tell me about the lamp")),
    ("\u00abHello", Intent("say", topic="hello")),
])
def test_the_parser_gives_one_verb_per_action_and_the_words_carry_the_difference(line: str, intent: Intent) -> None:
    assert parse(line) == intent
