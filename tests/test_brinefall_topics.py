"""Brinefall's most-asked topics, asked of everyone (issue 16, "Topics").

A newcomer asks every person in town about the bell, the flood, the Moot, Ness and each faction. Each
must answer in their own voice, or turn the question aside in character, never with their shared "I don't
know" line; and no answer may give a secret away before the player has earned it. Every question here is
asked in a fresh in-memory game, with the player put where the character stands.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playthrough import Playthrough

from game.story.prose import tidy
from game.world import CharacterDef, World, load_world

CONTENT = Path(__file__).resolve().parent.parent / "content"

# The most-asked topics, each as players most often put it, then the other ways they put it.
TOPICS = ["the bell", "the flood", "the Moot", "Ness", "the Guild", "the Watch", "the Stilt Folk", "the Eel Run",
          "the Bellkeepers"]
OTHER_WORDS = ["the flood bell", "the Lantern Tide", "the Tide Moot", "Ness Tallis", "the Harbour Watch",
               "Lowtown", "the smugglers"]

# What a question in a fresh game must not let slip: the Eel Run's password, the ledger's lines, the
# captain's purse, what Tibby saw at the wheel, why the bell stayed silent, and who wound the gates open.
SECRETS = ["the eel is hungry", "per O.V.", "harbour lamps", "forty crowns", "lopsided", "begged me",
           "wound the gates", "winding the wheel"]
# Relations that only a secret told can open.
SECRET_RELATIONS = {"BRIBED", "COVERS_FOR", "WITNESSED", "KNOWS_SECRET_OF", "LOVES", "HATES", "OWES"}


@pytest.fixture(scope="module")
def world() -> World:
    return load_world(CONTENT, "brinefall")


def people(world: World) -> list[CharacterDef]:
    """Everyone the player can stand beside and question (Ness is dead and has no place)."""
    found = [c for c in world.characters if c.type == "individual" and c.location is not None]
    absent = {c.name for c in world.characters if c.type == "individual"} - {c.name for c in found}
    assert absent == {"Ness Tallis"}, "a new character without a place: say here why it cannot be asked"
    return found


def unknown_lines(world: World, character: CharacterDef) -> list[str]:
    """The lines said when a question matches no topic: the character's own, else the world's."""
    lines = [tidy(line) for line in character.unknown or []]
    lines += [tidy(line).replace("{name}", character.short_name) for line in world.replies.no_topic or []]
    return lines


async def ask(world: World, character: CharacterDef, topic: str) -> tuple[str, Playthrough]:
    game = await Playthrough.start(world)
    assert character.location is not None
    game.scene = game.scene.model_copy(update={"location": character.location})
    reply = await game.play(f"ask {character.short_name} about {topic}")
    assert character.name in game.scene.cast, f"{character.name} should be beside the player"
    return reply, game


@pytest.mark.parametrize("topic", TOPICS + OTHER_WORDS)
async def test_everyone_answers_the_common_questions_in_their_own_words(world: World, topic: str) -> None:
    replies: dict[str, str] = {}
    for character in people(world):
        reply, _ = await ask(world, character, topic)
        for line in unknown_lines(world, character):
            assert line not in reply, f"{character.name} has no answer about {topic!r}: {reply}"
        others = [name for name, said in replies.items() if said == reply]
        assert not others, f"{character.name} answers {topic!r} in the same words as {others}: {reply}"
        replies[character.name] = reply


@pytest.mark.parametrize("topic", TOPICS + OTHER_WORDS)
async def test_no_common_question_gives_a_secret_away_in_a_fresh_game(world: World, topic: str) -> None:
    for character in people(world):
        before = await Playthrough.start(world)
        reply, game = await ask(world, character, topic)
        for secret in SECRETS:
            assert secret.lower() not in reply.lower(), f"{character.name} on {topic!r} lets slip {secret!r}"
        # Hob's answer about the bell sets his goal for the player; no clue's flag is set by asking.
        assert set(game.scene.flags) - set(before.scene.flags) <= {"heard_bell"}, (character.name, topic)
        opened = {e.relation for e in game.graph.open_edges.values()} - {
            e.relation for e in before.graph.open_edges.values()}
        assert not opened & SECRET_RELATIONS, (character.name, topic, opened)


# Fenn's help, the ledger taken while Crane counts the captain's purse, and Lise shown it: within a few
# turns the Watch splits behind her, and the Guild casts Crane out.
LEDGER_TO_LISE = ["n", "n", "help fenn", "ask fenn about the ledger", "z", "u", "take ledger", "d", "s",
                  "show ledger to lise"]

# An answer first, then the same question once the player has earned more or the town has moved on:
# (the way there, the question, what the first answer says, the steps between, what the later one says).
EARNED = [
    pytest.param(["w"], "ask tibby about the bell", "Ask Sister Ambry",
                 ["e", "n", "e", "take bread", "w", "s", "w", "give bread to tibby"], "Ask me about the flood",
                 id="tibby-trusts-you-with-the-night"),
    pytest.param(["n", "e"], "ask maud about the flood", "The true ones cost more.",
                 ["bribe maud"], "Ask me about Pell.", id="maud-paid"),
    pytest.param(["w", "take note", "e", "show note to hob", "e", "say the eel is hungry", "d"],
                 "ask kestrel about the flood", "you're still one",
                 ["show note to kestrel"], "Rotten Guild gates", id="kestrel-shown-the-note"),
    pytest.param(["w", "take note", "e", "show note to hob", "e", "x wheel", "take tally", "w", "n", "e",
                  "show tally to pell", "w", "s", "e", "say the eel is hungry", "d", "show note to kestrel"],
                 "ask kestrel about the flood", "Rotten Guild gates",
                 ["tell kestrel about pell"], "Pell, with Crane's forty crowns", id="kestrel-told-the-truth"),
    pytest.param(["e", "x wheel", "take tally", "w", "n", "e"], "ask pell about the moot", "no place for the likes",
                 ["show tally to pell"], "Stand where I can see you", id="pell-confessed"),
    pytest.param(["e", "x wheel", "take tally", "w", "n", "e", "show tally to pell", "w", "w"],
                 "ask ambry about the bellkeepers", "it is all we are for",
                 ["ask ambry about the bell"], "a frightened woman", id="ambry-confessed"),
    pytest.param(["n", "n"], "ask fenn about the watch", "not my place to say what for",
                 ["help fenn"], "Ask me about the captain", id="fenn-trusts-you"),
    pytest.param(LEDGER_TO_LISE[:-1], "ask lise about the moot", "bring something written down",
                 LEDGER_TO_LISE[-1:], "I read that page aloud", id="lise-shown-the-ledger"),
    pytest.param(LEDGER_TO_LISE, "ask merrow about the watch", "seven lanterns on the post",
                 ["z", "z"], "You'd think that bought a man something", id="merrow-after-the-watch-splits"),
    pytest.param(LEDGER_TO_LISE, "ask crane about the guild", "Twenty years as steward",
                 ["z", "z"], "she struck me out of them", id="crane-after-the-guild-casts-him-out"),
    pytest.param(["n", "e", "bribe maud", "ask maud about pell", "w", "n"], "ask orla about the moot",
                 "I expect a sensible result", ["talk to orla", "accept the offer"], "you have already sold it",
                 id="orla-bought-your-silence"),
]


@pytest.mark.parametrize(("way", "question", "guarded", "earning", "earned"), EARNED)
async def test_an_answer_changes_only_once_it_is_earned(
        world: World, way: list[str], question: str, guarded: str, earning: list[str], earned: str) -> None:
    game = await Playthrough.start(world)
    for command in way:
        await game.play(command)
    first = await game.play(question)
    assert guarded in first
    assert earned not in first
    for command in earning:
        await game.play(command)
    assert earned in await game.play(question)


async def test_the_specific_answers_still_come_first(world: World) -> None:
    # Summoned to the Hall, "the Guild" still reaches the Guildmistress's offer (its purse is a Guild
    # purse), not her general word on the Guild; once the offer is made, the general word answers.
    game = await Playthrough.start(world)
    for command in ["n", "e", "bribe maud", "ask maud about pell", "w", "n"]:
        await game.play(command)
    assert "Forty crowns, and the Guild's deed" in await game.play("ask orla about the guild")
    assert "three hundred years" in await game.play("ask orla about the guild")
    # Trusted, Fenn still answers "the Guild" with the captain's Guild purse, as he did before.
    game = await Playthrough.start(world)
    for command in ["n", "n", "help fenn"]:
        await game.play(command)
    assert "from the Guild strongbox to the captain's coat" in await game.play("ask fenn about the guild")
    # Tibby still points at the Guild's white sticks in the mud when asked about the Guild.
    game = await Playthrough.start(world)
    await game.play("w")
    assert "Guild stick" in await game.play("ask tibby about the guild")
