"""Attitude tiers: the one place their names, their order and their thresholds are written.

An NPC's attitude toward the player is three numbers in [-100, 100] (trust, respect, friendliness). Their
weighted mean is the *disposition*, and the disposition falls into one tier. The tiers live in the world
layer because content names them (``when = { tier = "HOSTILE" }``, per-tier lines) and is validated at
load; the attitudes themselves (``game.features.attitudes.model``) sit above and read the thresholds from here.
"""

from __future__ import annotations

from typing import Literal

Tier = Literal["HOSTILE", "UNFRIENDLY", "NEUTRAL", "FRIENDLY", "ALLIED", "DEVOTED"]
TIERS: tuple[Tier, ...] = ("HOSTILE", "UNFRIENDLY", "NEUTRAL", "FRIENDLY", "ALLIED", "DEVOTED")
"""Lowest to highest: ``>=FRIENDLY`` in a condition means FRIENDLY, ALLIED or DEVOTED."""

THRESHOLDS: dict[Tier, float] = {
    "UNFRIENDLY": -50.0,
    "NEUTRAL": -10.0,
    "FRIENDLY": 15.0,
    "ALLIED": 45.0,
    "DEVOTED": 75.0,
}
"""The lowest disposition of each tier above HOSTILE (HOSTILE is everything below -50)."""

WEIGHTS: dict[str, float] = {"trust": 0.4, "respect": 0.2, "friendliness": 0.4}
"""How the disposition weighs the three: how someone feels about you is mostly trust and warmth."""

LIMIT = 100.0
"""Every dimension is clamped to [-LIMIT, LIMIT]."""


def clamp(value: float) -> float:
    """A dimension's value kept in range, rounded to one decimal so saves and JSON stay readable."""
    return round(max(-LIMIT, min(LIMIT, value)), 1)


def disposition(trust: float, respect: float, friendliness: float) -> float:
    """The weighted mean of the three dimensions, in [-100, 100]."""
    value = trust * WEIGHTS["trust"] + respect * WEIGHTS["respect"] + friendliness * WEIGHTS["friendliness"]
    return round(value, 1)


def tier_of(value: float) -> Tier:
    """The tier a disposition falls in."""
    found: Tier = "HOSTILE"
    for tier in TIERS[1:]:
        if value >= THRESHOLDS[tier]:
            found = tier
    return found


def tier_matches(actual: str, wanted: str) -> bool:
    """Whether ``actual`` satisfies a condition's tier spec: ``FRIENDLY``, ``!HOSTILE``, ``>=FRIENDLY``,
    ``<=NEUTRAL`` (the spec is checked at load by ``parse_tier_spec``)."""
    op, tier = parse_tier_spec(wanted)
    rank, want = TIERS.index(actual), TIERS.index(tier)  # type: ignore[arg-type]
    if op == ">=":
        return rank >= want
    if op == "<=":
        return rank <= want
    if op == "!":
        return rank != want
    return rank == want


def parse_tier_spec(spec: str) -> tuple[str, Tier]:
    """``(operator, tier)`` of a tier spec; raises ValueError naming the tiers when it is not one."""
    text = spec.strip().upper()
    for op in (">=", "<=", "!"):
        if text.startswith(op):
            name = text[len(op):].strip()
            break
    else:
        op, name = "=", text
    if name not in TIERS:
        raise ValueError(f"{spec!r} is not a tier; tiers are {', '.join(TIERS)} (optionally !, >= or <= before one)")
    return op, name  # type: ignore[return-value]
