"""What a cold tier keeps back: at UNFRIENDLY and HOSTILE a person does not help the player.

A topic or reaction helps when it reveals something (``reveal``), states a relation among others (a secret
about someone), or gives the player a thing. It is withheld with the character's ``withhold`` line (else
the world's), which says why; at HOSTILE every other topic's answer is withheld too, and the person says
only their tier line. What the world marks ``open = true`` is told anyway, and an answer whose own effects
warm them toward the player (amends) is never withheld. A withheld answer changes nothing: nothing is
spent, revealed or stated, so it can still be had once the person thaws (help, a gift they want).
"""

from __future__ import annotations

from game.story.context import Turn
from game.story.prose import fill
from game.story.tiers import COLD_TIERS, add_tier_line, tier_line, warms
from game.world import CharacterDef
from game.world.schema import Effects


def helps_player(turn: Turn, effects: Effects) -> bool:
    """Whether ``effects`` would help the player: a revelation, a relation among others, a thing given."""
    player = {"player", *(name.casefold() for name in [turn.world.player.name, *turn.world.player.aliases])}
    among_others = any(r.source.casefold() not in player and r.target.casefold() not in player
                       for r in effects.relations)
    return bool(effects.reveal) or among_others or bool(effects.give)


def withholds(turn: Turn, character: CharacterDef, effects: Effects, is_open: bool, *, topic: bool) -> bool:
    """Whether ``character``'s tier keeps this answer back (``topic``: a topic's answer, which HOSTILE
    withholds whatever it holds)."""
    tier = turn.rules.tier(character.name)
    if is_open or tier not in COLD_TIERS or warms(turn, character, effects):
        return False
    return (topic and tier == "HOSTILE") or helps_player(turn, effects)


def say_withheld(turn: Turn, character: CharacterDef, effects: Effects) -> None:
    """The reply in place of what is withheld: a secret or a favour, the withhold line, which says why
    (closed by the tier line below HOSTILE); any other answer at HOSTILE, only the tier line."""
    hostile = turn.rules.tier(character.name) == "HOSTILE"
    if hostile and not helps_player(turn, effects):
        line = tier_line(turn, character)
        if line is not None:
            turn.log.say(line)
            return
    if character.withhold:
        turn.log.say(fill(turn.pick(character.withhold), {"name": character.short_name}))
    else:
        turn.log.say(turn.reply("withhold", name=character.short_name))
    if not hostile:
        add_tier_line(turn, character)
