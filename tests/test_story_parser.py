"""The parser as a newcomer meets it in Brinefall: pronouns, ways of talking, typos, scenery, names with
emoji, agreement. Each test states the general rule and plays it through the real story engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.play import play

from game.story.parser import Intent, parse
from game.world import World, load_world

CONTENT = Path(__file__).parent.parent / "content"


@pytest.fixture(scope="module")
def brinefall() -> World:
    return load_world(CONTENT, "brinefall")


async def test_it_follows_the_last_thing_named_or_examined(brinefall: World) -> None:
    game = await play(brinefall, ["w", "x stake", "take it", "x note", "take it"])
    told = game.told
    assert told[2] == "You take a white surveyor's stake."
    assert told[4].startswith("You work the paper out of the shutter.")
    assert {"stake", "note"} <= set(game.scene.inventory)


async def test_him_and_her_follow_the_last_person_of_that_pronoun(brinefall: World) -> None:
    told = (await play(brinefall, ["x hob", "talk to him"])).told
    assert "Hob says" in told[1]
    told = (await play(brinefall, ["n", "talk to lise", "ask him about ness", "ask her about ness"])).told
    assert "Lise" not in told[2] and "Merrow" in told[2], "'him' is never Lise: the one man here answers"
    assert "Lise says" in told[3]
    told = (await play(brinefall, ["talk to hob", "n", "talk to lise", "ask him about ness"])).told
    assert told[3] == "Hob isn't here.", "'him' is still Hob, who stayed at the landing"


async def test_scenery_the_room_names_is_never_missing(brinefall: World) -> None:
    told = (await play(brinefall, ["x steps", "n", "x bollard", "x whelks", "x the gulls", "take bollard",
                                   "take whelks", "take lise", "n", "x banner", "x zebra"])).told
    assert "steps go down" in told[0]
    for reply in told[2:4]:
        assert "There's no" not in reply and "nothing" in reply.casefold()
    assert "flat yellow eyes" in told[4]
    assert told[5] == "The bollard is part of the Salt Quay; you can't carry it off."
    assert told[6] == "The whelks are Captain Merrow's, not yours to carry off.", "he is eating them"
    assert told[7] == "Lise is nobody's to carry off. You could talk to her instead."
    assert "scales are taller" in told[9]
    assert told[10].startswith("There's no zebra here")


async def test_not_found_agrees_in_number(brinefall: World) -> None:
    told = (await play(brinefall, ["x piles", "x zebra", "take gloves"])).told
    assert told[0].startswith("There are no piles here")
    assert told[1].startswith("There's no zebra here")
    assert told[2].startswith("There are no gloves here")


async def test_indoor_exits_are_worded_for_indoors(brinefall: World) -> None:
    told = (await play(brinefall, ["n", "e", "s", "w"])).told
    assert "The way out is west, to the Salt Quay." in told[1]
    assert "water and mud" not in told[2] and "The way out is west" in told[2]
    told = (await play(brinefall, ["e", "n"])).told
    assert "only water and mud" in told[1], "outdoors keeps the world's outdoor words"


async def test_the_ways_people_talk_to_someone(brinefall: World) -> None:
    """Every way of putting a question reaches the same answer as ``ask hob about ness``."""
    [expected] = (await play(brinefall, ["ask hob about ness"])).told
    assert "Eel Run" in expected
    for line in ("talk to hob about ness", "hob, tell me about ness", "tell me about ness",
                 "what happened to ness?", "talk to hob 🙂 about ness!!", "Hob: ask about ness"):
        told = (await play(brinefall, ["talk to hob", line])).told
        assert told[1] == expected, line
    # A greeting said aloud greets (Say mode makes every line speech): '"Hello' was "Hob hears you out".
    for line in ("say hello to hob", "hello hob", "greet hob", "hob, hello", "talk to hob 🙂", "wave to hob",
                 '"Hello', '"hello, Hob', '"Good morning"'):
        told = (await play(brinefall, [line])).told
        assert "Hob says" in told[0], line


async def test_a_question_to_someone_is_asked_of_them(brinefall: World) -> None:
    assert parse("ask tibby who the sweetheart was") == Intent("ask", target="tibby", topic="who the sweetheart was")
    told = (await play(brinefall, ["w", "ask tibby who her grandad is"])).told
    assert "Grandad's cross" in told[1]


async def test_typos_one_edit_from_a_verb_or_a_name_are_read_and_said_so(brinefall: World) -> None:
    told = (await play(brinefall, ["tlak to hob", "talk to hbo", "exmaine steps", "go nrth", "rign the bell"])).told
    assert told[0].startswith("(taking that as 'talk to hob')") and "Hob says" in told[0]
    assert told[1].startswith("(taking that as 'talk to hob')")
    assert told[2].startswith("(taking that as 'examine steps')")
    assert told[3].startswith("(taking that as 'go north')") and "The Salt Quay" in told[3]
    assert told[4].startswith("(taking that as 'ring the bell')")


async def test_a_typo_never_names_someone_the_player_has_not_met(brinefall: World) -> None:
    """Pell is not at the landing and not met: "pel" stays "pel", and no reply names him."""
    told = (await play(brinefall, ["ask hob about pel", "talk to pel", "talk to tibb"])).told
    assert all("taking that as" not in t for t in told)
    assert "Pell" not in told[1] and "Tibby" not in told[2]


async def test_enter_is_board_for_the_worlds_own_verbs(brinefall: World) -> None:
    told = (await play(brinefall, ["enter ferry", "get in the ferry"])).told
    assert "Ferry goes when I say" in told[0]
    assert "casts off" in told[1]


async def test_a_person_named_in_a_question_becomes_him_or_her(brinefall: World) -> None:
    """After "ask hob about tibby", "her" is Tibby (met before); "him" is the Hob who is here."""
    game = await play(brinefall, ["w", "talk to tibby", "e", "ask hob about tibby"])
    assert game.scene.story is not None and game.scene.story.people[:2] == ["Tibby Tarrant", "Hob Tarrant"]
    assert "Eel Run" in await game.play("ask him about ness")
    told = [await game.play(c) for c in ("ask her about ness", "w", "ask her about ness")]
    assert told[0] == "Tibby isn't here." and "sweetheart" in told[2]


async def test_them_follows_scenery_too(brinefall: World) -> None:
    told = (await play(brinefall, ["n", "x whelks", "take them"])).told
    assert told[2] == "The whelks are Captain Merrow's, not yours to carry off."


async def test_a_place_in_view_and_a_pronoun_before_the_thing(brinefall: World) -> None:
    told = (await play(brinefall, ["x lowtown", "x the quay", "x hob", "give him coins", "hob, help me"])).told
    assert told[0] == "That is Lowtown Stilts, west from here. You'd see more of it if you went west."
    assert told[1].startswith("That is the Salt Quay, north from here.")
    assert "I ferried your mother for nothing" in told[3], "'give him coins' gives them to Hob"
    assert "Hob says" in told[4] and "your own mind" not in told[4], "'hob, help me' is put to Hob"


@pytest.mark.parametrize(("line", "intent"), [
    ("talk to hob about ness", Intent("ask", target="hob", topic="ness")),
    ("speak with the sergeant regarding the flood", Intent("ask", target="the sergeant", topic="the flood")),
    ("Hob, tell me about Ness", Intent("ask", target="hob", topic="ness")),
    ("hob: the sluice was opened", Intent("say", target="hob", topic="the sluice was opened")),
    ("tell me about the bell", Intent("ask", topic="the bell")),
    ("what happened to ness?", Intent("ask", topic="what happened to ness")),
    ("do you know pell?", Intent("ask", topic="do you know pell")),
    ("say hello to hob", Intent("talk", target="hob")),
    ("hello hob", Intent("talk", target="hob")),
    ("hi there", Intent("talk")),
    ("greet hob", Intent("talk", target="hob")),
    ("talk to hob 🙂", Intent("talk", target="hob")),
    ("talk to hob 👍🏽!!", Intent("talk", target="hob")),
    ("x ferry…", Intent("examine", obj="ferry")),
    ("do nothing", Intent("unknown", obj="do nothing")),
    ("take coin, bread", Intent("take", obj="coin bread")),
    ("what now", Intent("think")),
])
def test_the_shapes_of_a_line(line: str, intent: Intent) -> None:
    assert parse(line) == intent


def test_one_edit_is_one_letter_added_dropped_changed_or_two_swapped() -> None:
    from game.story.typos import one_edit_apart

    for typed, meant in [("tlak", "talk"), ("hbo", "hob"), ("lok", "look"), ("talkk", "talk"), ("tslk", "talk")]:
        assert one_edit_apart(typed, meant), typed
    for typed, meant in [("nroht", "north"), ("talk", "talk"), ("tk", "talk"), ("klat", "talk")]:
        assert not one_edit_apart(typed, meant), typed
