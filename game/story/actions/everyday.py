"""The everyday verbs a player tries in any story: buy, drink, eat, hug, pray, sing, sleep, swim, jump, dance.

None of them is a puzzle. A place may answer one in its own words (``answers`` in the world format:
praying in the chapel, a drink at the tavern); otherwise each gets a plain answer that still reads the
scene (a thing carried is not eaten away from the person who needs it, someone cold to the player steps
back from a hug). What a place answers and a hug take a moment of the story's time; a plain answer none.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.story.actions.base import Action
from game.story.actions.things import room_text
from game.story.context import Refusal, Turn
from game.story.parser import Intent
from game.story.prose import capital, fill
from game.story.resolve import item_named, scenery_named
from game.story.tiers import COLD_TIERS, WARM_TIERS
from game.world import CharacterDef
from game.world.schema import Everyday as EverydayVerb
from game.world.words import key_words, strip_articles

PLAIN: dict[EverydayVerb, str] = {
    "pray": "You bow your head and say what words you remember. Nothing answers, but you feel a little steadier.",
    "sing": "You sing a few lines under your breath. Nobody joins in.",
    "dance": "You shuffle a step or two. Nobody here is in the mood to join you.",
}
"""Plain answers: said as done, but nothing in the story comes of them, so no time passes."""
REFUSED: dict[EverydayVerb, str] = {
    "sleep": "There's no time for sleep, not today. Later, when this is done.",
    "swim": "You'd rather keep your feet dry here.",
    "jump": "You jump on the spot. Nothing comes of it.",
    "buy": "Nobody here has {thing} to sell you.",
    "drink": "There's nothing here for you to drink.",
    "eat": "There's nothing here for you to eat.",
}
"""Plain answers that change nothing, so no time passes."""
OBJECT_PRONOUN = {"he": "him", "she": "her", "they": "them"}


@dataclass(frozen=True)
class Done:
    """What the verb comes to: a sentence to say, and whether the story's clock moves for it."""

    text: str
    takes_time: bool = True


class Everyday(Action[Done]):
    def __init__(self, verb: EverydayVerb) -> None:
        self.verb: EverydayVerb = verb

    async def check(self, turn: Turn, intent: Intent) -> Done | Refusal:
        if self.verb == "hug":
            return _hug(turn, intent)
        thing = strip_articles(intent.obj)
        carried = item_named(turn.world, thing, turn.visible_items()) if thing else None
        if carried is not None and self.verb in {"drink", "eat"}:
            return Refusal(f"You think better of it. {capital(carried.name)} may matter more to someone else.")
        if carried is not None and self.verb == "buy":
            return Refusal(f"{capital(carried.name)} is not for sale. You could take it, or ask about it.")
        answer = turn.world.places[turn.play.location].answers.get(self.verb)
        if answer is not None:
            return Done(capital(fill(turn.pick(answer), {"thing": key_words(thing) or "it"})))
        if self.verb in PLAIN:
            return Done(PLAIN[self.verb], takes_time=False)
        if self.verb == "buy" and not turn.play.present(turn.world):
            return Refusal("There's nobody here to buy anything from.")
        if self.verb in {"drink", "eat"} and thing and scenery_named(await room_text(turn), thing):
            return Refusal(f"The {key_words(thing)} is not yours to {self.verb}.")
        return Refusal(fill(REFUSED[self.verb], {"thing": key_words(thing) or "anything"}))

    async def report(self, turn: Turn, plan: Done) -> None:
        turn.log.say(plan.text)

    def takes_time(self, plan: Done) -> bool:
        return plan.takes_time


def _hug(turn: Turn, intent: Intent) -> Done | Refusal:
    """A hug, a kiss, a hand held out: how it is taken shows how the person stands with the player."""
    character = turn.present_character(intent.target)
    if isinstance(character, Refusal):
        return character
    name, them = character.short_name, _them(character)
    tier = turn.rules.tier(character.name)
    if tier in COLD_TIERS:
        return Done(f"{name} steps back before you can reach {them}, and the look on {_their(character)} face "
                    "says not to try again.")
    if tier in WARM_TIERS:
        return Done(f"{name} lets you, and for a moment holds on. Neither of you says anything.")
    return Done(f"{name} stiffens at your touch, and you let go again. You are not that close, not yet.")


def _them(character: CharacterDef) -> str:
    return OBJECT_PRONOUN.get(character.pronoun or "they", "them")


def _their(character: CharacterDef) -> str:
    return {"he": "his", "she": "her"}.get(character.pronoun or "they", "their")
