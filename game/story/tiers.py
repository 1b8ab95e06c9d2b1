"""Attitudes in the story: acts that move them, and the per-tier lines of ordinary replies.

What the player does to someone (help, threaten, a gift...) is recorded in the turn's World IR as a
change to that person's attitude (``record_act``); the engine applies it after the turn with everything
else that moves attitudes (``game.features.attitudes.step``). What a character says in their ordinary replies
(a greeting, nothing to say, a refusal) shows their tier toward the player as the turn began: the
character's own line for the tier (``[characters.tiers]``), else the world's (``[world.tiers]``). At
the cold tiers a topic's answer shows it too: someone you have wronged may still tell you what they
know, but not as if nothing had happened (a warm tier leaves answers alone: a nod after every answer
would be noise, and warmth is shown where the tier line already goes).
"""

from __future__ import annotations

import random
from typing import Protocol

from game.features.attitudes.rules import ACT_REASONS, act_delta
from game.story.context import Turn
from game.story.prose import fill, pick
from game.world import CharacterDef, World
from game.world.ir import IRAttitude
from game.world.schema import Effects
from game.world.tiers import TIERS, Tier

COLD_TIERS: frozenset[str] = frozenset({"HOSTILE", "UNFRIENDLY"})
"""Tiers at which a character's line takes the place of their greeting (warmer ones add it after)."""
WARM_TIERS: frozenset[str] = frozenset({"FRIENDLY", "ALLIED", "DEVOTED"})
"""Tiers at which someone does not bring up a grievance unprompted (``game.story.memory_lines``)."""
ANSWERED_ONLY = frozenset({"help", "give"})
"""Acts that change nothing when refused: a help not needed, a gift not wanted."""


def record_act(turn: Turn, character: CharacterDef, act: str, answered: bool, thing: str = "") -> None:
    """Note what ``act`` does to ``character``'s attitude (``answered``: one of their reactions ran)."""
    delta = act_delta(act)
    if delta is None or (act in ANSWERED_ONLY and not answered):
        return
    reason = ACT_REASONS[act].replace("{thing}", thing or "something")
    trust, respect, friendliness = delta
    turn.log.attitudes.append(IRAttitude(name=character.name, trust=trust, respect=respect,
                                         friendliness=friendliness, reason=reason))


def tier_line(turn: Turn, character: CharacterDef) -> str | None:
    """``character``'s line for their tier toward the player now, or None (NEUTRAL usually has none)."""
    tier = turn.rules.tier(character.name)
    variants = character.tiers.get(tier) or turn.world.section.tiers.get(tier)
    if not variants:
        return None
    return fill(turn.pick(variants), {"name": character.short_name})


def add_tier_line(turn: Turn, character: CharacterDef, act: str = "") -> None:
    """Close the reply just said with ``character``'s tier line, when their tier has one. After a harm
    (``act``: a lie, a threat...) only a cold tier's: a warm nod right after a lie they saw through
    would contradict the cooling the act itself brings."""
    if harms(act) and turn.rules.tier(character.name) not in COLD_TIERS:
        return
    line = tier_line(turn, character)
    if line is None:
        return
    if turn.log.paragraphs:
        turn.log.paragraphs[-1] += f" {line}"
    else:
        turn.log.say(line)


def harms(act: str) -> bool:
    """Whether ``act`` done to someone lowers their attitude toward the player."""
    delta = act_delta(act)
    return delta is not None and sum(delta) < 0


def add_cold_line(turn: Turn, character: CharacterDef, effects: Effects) -> None:
    """Close an answer with ``character``'s tier line when they are cold toward the player (HOSTILE,
    UNFRIENDLY), so every reply of theirs shows it until the player makes amends. An answer whose own
    ``effects`` warm them toward the player (Hob, told the truth, will stand beside you) is that amends:
    a cold line after it would take back what they just said."""
    if turn.rules.tier(character.name) in COLD_TIERS and not warms(turn, character, effects):
        add_tier_line(turn, character)


def warms(turn: Turn, character: CharacterDef, effects: Effects) -> bool:
    """Whether ``effects`` open a positive relation from ``character`` toward the player, or raise their
    attitude by a world's rule."""
    own = {name.casefold() for name in character.names}
    player = {"player", *(name.casefold() for name in [turn.world.player.name, *turn.world.player.aliases])}
    opened = any(r.strength > 0 and r.source.casefold() in own and r.target.casefold() in player
                 for r in effects.relations)
    raised = any(a.name.casefold() in own and a.trust + a.friendliness > 0 for a in effects.attitude)
    return opened or raised


def soured(turn: Turn, name: str) -> bool:
    """Whether ``name`` is cold toward the player, was wronged by them this very turn (a threat, an
    accusation...), or has just turned against them (the captain marking you as trouble): their warm
    word about good news would then contradict what the story just told."""
    if turn.rules.tier(name) in COLD_TIERS:
        return True
    wronged = [a for a in turn.log.attitudes if a.name == name]
    if sum(a.trust + a.friendliness for a in wronged) < 0:
        return True
    player = {turn.world.player_name, "player"}
    return any(r.source == name and r.target in player and r.strength < 0 for r in turn.log.relations)


def feels_like(turn: Turn, name: str, valence: float) -> bool:
    """Whether a memory of this ``valence`` fits how ``name`` stands toward the player now: someone cold
    does not bring up a kindness of yours, nor a friend a grievance (NEUTRAL may bring up either)."""
    tier = turn.rules.tier(name)
    return not ((tier in COLD_TIERS and valence > 0) or (tier in WARM_TIERS and valence < 0))


def change_line(world: World, name: str, tier: Tier, rng: random.Random) -> str | None:
    """What the story says when ``name``'s attitude falls or rises into ``tier``, or None."""
    character = world.character(name)
    if character is None:
        return None
    variants = character.tier_changes.get(tier) or world.section.tier_changes.get(tier)
    if not variants:
        return None
    return fill(pick(world, variants, rng), {"name": character.short_name})


class TierLines(Protocol):
    """The story's line for a tier change (``tier_change_lines``); ``before``: the tier it came from."""

    def __call__(self, name: str, tier: Tier, before: Tier | None = None) -> str | None: ...


def speaks_of(tier: Tier, before: Tier | None) -> bool:
    """Whether a change into ``tier`` from ``before`` is the way its line speaks: a cold tier's line ("will
    not look at you now") of a fall, a warm tier's ("You'll do") of a rise. Hob thawing from HOSTILE to
    UNFRIENDLY after an apology is not "will not look at you now"; the apology's own reply shows it."""
    if before is None or tier == "NEUTRAL":
        return True
    rose = TIERS.index(tier) > TIERS.index(before)
    return rose == (tier not in COLD_TIERS)


def tier_change_lines(world: World, seed: int) -> TierLines:
    """``change_line`` for the turn pipeline: the same seed and change always pick the same variant."""

    def line(name: str, tier: Tier, before: Tier | None = None) -> str | None:
        if not speaks_of(tier, before):
            return None
        return change_line(world, name, tier, random.Random(f"{seed}:{name}:{tier}"))

    return line
