"""The acts a turn states for NPCs' memories: what the player did to whom, and first meetings.

Called once the player's action has been told (``game.story.turn.dispatch``): the plan the action carried
out says who was spoken to or acted on, and how (``help``, ``give`` with the item, ``ask`` about a
topic...). The World IR carries these as ``IRAct``s, and the turn pipeline forms each witness's memory
from them (``game.features.memories.rules``): from the turn's facts, never from its prose.
"""

from __future__ import annotations

from typing import Any

from game.story.actions.people import SPOKEN_GREETING, Address, Offer, Pursuit
from game.story.context import Refusal, Turn
from game.story.resolve import character_named
from game.world import CharacterDef
from game.world.ir import IRAct

VERBS = {"say": "tell"}
"""Verbs remembered as another: speaking up to someone is telling them."""
ONLY_IF_ANSWERED = frozenset({"help", "give", "show", "apologize", "follow"})
"""Acts that happen only if the person lets them (help refused is not help, a gift not taken not given,
an apology for nothing no apology, following someone who goes nowhere no following)."""


async def note_action(turn: Turn, verb: str, plan: Any) -> None:
    """Note what the player just did to someone (nothing for a refusal or an action on no one)."""
    if isinstance(plan, Refusal):
        return
    detail, done = "", False
    if isinstance(plan, CharacterDef):
        character = plan
    elif isinstance(plan, Address):
        character, detail = plan.character, plan.topic
        named = character_named(turn.world, detail) if detail else None
        if named is not None:
            detail = named.short_name  # "about tibby" is remembered as about Tibby
        if verb == "say" and SPOKEN_GREETING.match(plan.topic.casefold()):
            verb, detail = "talk", ""  # '"Hello, Hob."' greets him: nobody was told about "hello"
    elif isinstance(plan, Offer):
        character, detail, verb = plan.character, plan.item.name, plan.act
        if verb == "give" and turn.play.carries(plan.item.id):
            verb = "offer"  # handed back ("put them away"): never given, so nobody may say it was
    elif isinstance(plan, Pursuit):
        character, verb, done = plan.character, "follow", True  # the player went after them: it happened
    else:
        return
    if character.type != "individual":
        return
    if not await turn.memory.has_met(character.name):
        turn.memory.note_met(character.name)
    if verb == "offer" or (verb in ONLY_IF_ANSWERED and not done and character.name not in turn.memory.answered):
        return
    turn.memory.note(IRAct(kind="act", character=character.name, verb=VERBS.get(verb, verb)[:40],
                           detail=detail[:200]))
