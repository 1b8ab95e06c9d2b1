"""How much what happens moves an attitude: acts, relations toward the player, and news of one's people.

One table per source, so tuning the game's feel is an edit here and nowhere else:

- ``ACT_DELTAS``: what the player does to someone (the offline story's acts).
- ``relation_delta``: a relation toward the player opened or strengthened (any narrator: the World IR's
  relations become graph versions, and a new version's change of strength is weighed here).
- ``NEWS_HARM`` / ``NEWS_HELP``: hearing (told, rumour, or seeing it) how the player treated one of
  one's own people, scaled by how close the tie is.
"""

from __future__ import annotations

from game.features.feature import Delta

ACT_DELTAS: dict[str, tuple[float, float, float]] = {
    # act: (trust, respect, friendliness)
    "help": (6.0, 4.0, 8.0),
    "give": (5.0, 2.0, 10.0),
    "warn": (4.0, 2.0, 2.0),
    "threaten": (-20.0, -5.0, -25.0),
    "accuse": (-6.0, 0.0, -8.0),
    "lie": (-10.0, -6.0, -4.0),
    "bribe": (-4.0, -8.0, 0.0),
    "steal": (-15.0, -5.0, -15.0),
    "apologize": (8.0, 3.0, 8.0),
}
"""What an act does to the attitude of the person it is done to (only when they answer it: a help refused
as not needed, a gift not wanted, change nothing)."""

ACT_REASONS: dict[str, str] = {
    "help": "you helped them", "give": "you gave them {thing}", "warn": "you warned them",
    "threaten": "you threatened them", "accuse": "you accused them", "lie": "you lied to them and were found out",
    "bribe": "you offered them a bribe", "steal": "you stole {thing} from them",
    "apologize": "you said sorry for {thing}",
}

RELATION_WEIGHTS: dict[str, tuple[float, float, float]] = {
    # relation: (trust, respect, friendliness) per 1.0 of strength (a negative strength turns them round)
    "TRUSTS": (50.0, 10.0, 25.0),
    "DISTRUSTS": (50.0, 10.0, 25.0),
    "FEARS": (30.0, 5.0, 40.0),
    "ALLY_OF": (35.0, 25.0, 35.0),
    "ENEMY_OF": (40.0, 10.0, 45.0),
    "HATES": (35.0, 10.0, 50.0),
    "LOVES": (30.0, 10.0, 60.0),
    "RESPECTS": (10.0, 50.0, 10.0),
    "OWES": (15.0, 10.0, 15.0),
    "BLAMES": (30.0, 15.0, 30.0),
}
DEFAULT_WEIGHTS = (25.0, 10.0, 25.0)
"""Any other relation toward the player: its sign says which way, its strength how far."""

NEWS_HARM = (-30.0, -10.0, -30.0)
NEWS_HELP = (10.0, 4.0, 10.0)
"""Hearing the player hurt (a relation of negative strength) or helped one of one's own people, per 1.0 of
the tie between them (Hob and his granddaughter, KIN_OF 0.9, count almost fully), and per 1.0 of
``news_weight`` of the relation heard of (a nod matters less than a fright)."""


def news_weight(strength: float) -> float:
    """How much a relation heard of counts: 0.4 for the faintest, all of it from 0.6 up."""
    return min(1.0, abs(strength) + 0.4)


def relation_delta(relation: str, strength: float, reason: str = "") -> Delta:
    """The change ``strength`` of ``relation`` toward the player makes (a difference of strengths when a
    relation is renewed)."""
    trust, respect, friendliness = RELATION_WEIGHTS.get(relation, DEFAULT_WEIGHTS)
    return Delta(trust * strength, respect * strength, friendliness * strength, reason)


def act_delta(act: str) -> tuple[float, float, float] | None:
    return ACT_DELTAS.get(act)
