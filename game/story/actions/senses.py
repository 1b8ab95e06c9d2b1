"""The verbs a careful player tries on what the text names: smelling, listening, opening, closing,
breaking, and asking who someone is.

None of them is a puzzle of its own: each answers from what the world already says (a sentence of the
room that smells or sounds, a feature, an item, a person) or, failing that, in the world's voice with
what would work. Only listening to or asking about a person is more than looking: it is talking, and is
handed to the conversation actions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from game.story.actions.base import Action
from game.story.actions.people import Converse, Talk
from game.story.actions.places import exits_line
from game.story.actions.things import Examine, Sight, place_text, room_text
from game.story.context import SELF_WORDS, Refusal, Turn
from game.story.parser import Intent
from game.story.prose import agreement, capital, fill, join_words, sentences
from game.story.resolve import character_named, feature_named, item_named, scenery_named
from game.world.words import key_words, strip_articles

Sense = Literal["smell", "listen"]
Handling = Literal["open", "close", "break"]

SENSE_WORDS: dict[Sense, re.Pattern[str]] = {
    "smell": re.compile(r"\b(?:smell|smells|smelled|reek|reeks|stink|stinks|scent|odour|stench|whiff)\b", re.I),
    "listen": re.compile(r"\b(?:hear|heard|noise|noises|rang|ringing|silence|silent|drip|dripping|slap|slapping|"
                         r"creak|creaks|knocks|clock|shout|shouts|whisper|whispers|echo|echoes)\b", re.I),
}
"""The words that make a sentence of the room one to smell or to listen to."""

NOTHING_MORE: dict[Sense, str] = {
    "smell": "You breathe in. Nothing here smells of anything you hadn't already noticed.",
    "listen": "You listen. Nothing but the ordinary sounds of the place.",
}
THING_SENSED: dict[Sense, str] = {
    "smell": "You smell the {thing}. Nothing you didn't expect.",
    "listen": "You listen to the {thing}. {It} {has} nothing to tell you.",
}
HANDLED: dict[Handling, str] = {
    "open": "The {thing} won't open for you, and forcing {it} would only bring people to look.",
    "close": "The {thing} {is} as shut as {it} will go.",
    "break": "Breaking the {thing} would bring half the town to look, and tell you nothing new.",
}
DOOR_WORDS = frozenset({"door", "doors", "gate", "hatch", "way out"})


@dataclass(frozen=True)
class Handed:
    """A plan another action carries out: listening to someone is talking to them."""

    action: Action[Any]
    plan: Any


async def hand_to(action: Action[Any], turn: Turn, intent: Intent) -> Handed | Refusal:
    plan = await action.check(turn, intent)
    return plan if isinstance(plan, Refusal) else Handed(action, plan)


class Delegating(Action[Handed | Sight]):
    """Carries out and reports either its own ``Sight`` or the plan of the action it handed over to."""

    async def carry_out(self, turn: Turn, plan: Handed | Sight) -> None:
        if isinstance(plan, Handed):
            await plan.action.carry_out(turn, plan.plan)

    async def report(self, turn: Turn, plan: Handed | Sight) -> None:
        if isinstance(plan, Handed):
            await plan.action.report(turn, plan.plan)
        else:
            turn.log.say(plan.text)

    def takes_time(self, plan: Handed | Sight) -> bool:
        return plan.action.takes_time(plan.plan) if isinstance(plan, Handed) else False


def _filled(text: str, thing: str) -> str:
    plural = agreement(thing)["is"] == "are"
    values = {"thing": thing, **agreement(thing), "it": "them" if plural else "it", "It": "They" if plural else "It",
              "has": "have" if plural else "has"}
    return capital(fill(text, values))


class SenseAction(Delegating):
    """``smell``, ``smell the brandy``, ``listen``, ``listen to hob``: what the text already says of it."""

    def __init__(self, sense: Sense) -> None:
        self.sense: Sense = sense

    async def check(self, turn: Turn, intent: Intent) -> Handed | Sight | Refusal:
        world, play = turn.world, turn.play
        phrase = strip_articles(intent.obj)
        if phrase in {"", "air", "around", "here", "room", "wind"}:
            found = _sensed(self.sense, await place_text(turn))
            return Sight(" ".join(found[:2]) if found else NOTHING_MORE[self.sense])
        character = character_named(world, phrase)
        if character is not None and character.name in play.present(world):
            if self.sense == "listen":
                return await hand_to(Talk(), turn, Intent("talk", target=intent.obj))
            return Sight(f"{character.short_name} smells of Brinefall, like everyone: salt, smoke and the flats.")
        feature = feature_named(world, play.location, phrase)
        if feature is not None:
            found = _sensed(self.sense, " ".join(feature.text))
            return Sight(found[0] if found else _filled(THING_SENSED[self.sense], key_words(phrase)))
        item = item_named(world, phrase, turn.visible_items())
        if item is not None or scenery_named(await room_text(turn), phrase):
            return Sight(_filled(THING_SENSED[self.sense], key_words(phrase)))
        return Refusal(turn.reply("no_such", thing=key_words(phrase) or phrase))


def _sensed(sense: Sense, text: str) -> list[str]:
    """The sentences of ``text`` that smell or sound of something, in order."""
    return [s for s in sentences(text) if SENSE_WORDS[sense].search(s)]


class Handle(Delegating):
    """``open the shutter``, ``close the door``, ``break the window``: what the place allows (little)."""

    def __init__(self, handling: Handling) -> None:
        self.handling: Handling = handling

    async def check(self, turn: Turn, intent: Intent) -> Handed | Sight | Refusal:
        world, play = turn.world, turn.play
        phrase = intent.obj
        wanted = key_words(phrase)
        character = character_named(world, phrase)
        if character is not None and character.name in play.present(world):
            return Refusal(f"{character.short_name} is not yours to {self.handling}. You could talk to them instead.")
        item = item_named(world, phrase, turn.visible_items())
        if item is not None:
            if self.handling == "open":  # opening a book or a note is reading it
                return await hand_to(Examine(), turn, Intent("examine", obj=phrase))
            if self.handling == "break":
                return Refusal(f"You'd rather keep {item.name} whole. It may matter to someone.")
            return Refusal(f"{capital(item.name)} is as closed as it gets.")
        feature = feature_named(world, play.location, phrase)
        if feature is None and wanted in DOOR_WORDS and world.places[play.location].exits:
            return Refusal(f"No need: the ways on are open. {exits_line(world, play.location)}")
        if feature is not None or scenery_named(await room_text(turn), phrase):
            return Refusal(_filled(HANDLED[self.handling], wanted))
        return Refusal(turn.reply("no_such", thing=wanted or phrase))


class Who(Delegating):
    """``who is Tibby?``: a look at someone here, a question about someone elsewhere, "you" for yourself."""

    async def check(self, turn: Turn, intent: Intent) -> Handed | Sight | Refusal:
        world, play = turn.world, turn.play
        phrase = intent.obj
        if key_words(phrase) in SELF_WORDS | {"i"} or world.is_player(phrase):
            return await hand_to(Examine(), turn, Intent("examine", obj="me"))
        present = play.present(world)
        if strip_articles(phrase) in {"you", "yourself", "u"}:  # "who are you?": they say who they are
            return await hand_to(Talk(), turn, Intent("talk"))
        if strip_articles(phrase) in {"here", "there", "around", "that", "about"}:
            if not present:
                return Refusal(turn.reply("nobody"))
            return Sight(f"{join_words([turn.short(n) for n in present])} {'is' if len(present) == 1 else 'are'} "
                         "here.")
        character = character_named(world, phrase)
        if character is not None and not play.knows(character.name):
            return turn.stranger()
        if character is not None and character.name in present:
            return await hand_to(Examine(), turn, Intent("examine", obj=phrase))
        return await hand_to(Converse("ask"), turn, Intent("ask", topic=phrase))
