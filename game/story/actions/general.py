"""Actions about nothing in particular: waiting, thinking, and input nobody understood.

An unknown verb always refuses (no time passes), with a hint built from the scene. An empty line never
gets here: the engine's turn pipeline answers it before the story reads it.
"""

from __future__ import annotations

from game.story.actions.base import Action
from game.story.clock import time_of_day
from game.story.context import Refusal, Turn
from game.story.parser import Intent
from game.story.resolve import character_named

VIOLENCE = frozenset({"kill", "attack", "hit", "fight", "punch", "stab"})


class Wait(Action[None]):
    async def check(self, turn: Turn, intent: Intent) -> None:
        return None

    async def report(self, turn: Turn, plan: None) -> None:
        turn.log.say(turn.reply("wait"))


class Think(Action[None]):
    """The current goal, or a hint when the world sets none."""

    async def check(self, turn: Turn, intent: Intent) -> None:
        return None

    async def report(self, turn: Turn, plan: None) -> None:
        goal = turn.play.story.goal
        if goal:
            turn.log.say(f"{turn.reply('think')} {turn.world.text(goal)}")
        else:
            turn.log.say(f"{turn.reply('think')} {turn.hint()}")
        turn.log.say(time_of_day(turn.world, turn.play.story.clock or 0, turn.rng))

    def takes_time(self, plan: None) -> bool:
        return False


class Unknown(Action[None]):
    """Input the parser could not read: a pointer to what works, never silence."""

    async def check(self, turn: Turn, intent: Intent) -> Refusal:
        first = intent.obj.split()[0] if intent.obj else ""
        character = character_named(turn.world, intent.obj)
        if character is not None and character.name in turn.play.present(turn.world):
            return Refusal(f"What about {character.short_name}? You could talk to them, ask them about something, "
                           "or help, give, show, threaten, bribe, accuse, warn or follow.")
        if first in VIOLENCE:
            return Refusal("Violence would end more than this conversation. Threaten, if you must.")
        return Refusal(f"{turn.reply('unknown')} {turn.hint()}")
