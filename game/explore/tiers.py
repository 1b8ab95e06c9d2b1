"""``tier-mismatch``: a character's tier line for one tier, said while their recorded attitude is another.

A tier line shows the tier "as the turn began" (game/story/tiers.py), so the explorer reads everyone's tier
on stage before each command and judges the lines the command's output holds against it.
"""

from __future__ import annotations

from collections.abc import Mapping

from game.explore.faults import Fault
from game.explore.matching import keys
from game.world import CharacterDef, World


def tier_keys(world: World, character: CharacterDef) -> dict[str, list[str]]:
    """Tier -> the text keys of ``character``'s lines for it (their own, else the world's), ``{name}`` filled."""
    found: dict[str, list[str]] = {}
    for tier in {*world.section.tiers, *character.tiers}:
        variants = character.tiers.get(tier) or world.section.tiers.get(tier) or []
        found[tier] = keys(world, [v.replace("{name}", character.short_name) for v in variants])
    # A key two tiers share says nothing about which tier was meant.
    shared = {key for tier, ks in found.items() for key in ks
              if any(key in other for t, other in found.items() if t != tier)}
    return {tier: [k for k in ks if k not in shared] for tier, ks in found.items()}


def tier_faults(world: World, tiers_before: Mapping[str, str], output: str) -> list[Fault]:
    """Every tier line in ``output`` (squashed) for a tier its speaker was not at when the turn began."""
    faults: list[Fault] = []
    for name, recorded in tiers_before.items():
        character = world.character(name)
        if character is None:
            continue
        for tier, tier_line_keys in sorted(tier_keys(world, character).items()):
            said = [key for key in tier_line_keys if key in output]
            if said and tier != recorded:
                faults.append(Fault("tier-mismatch", f"{name} spoke as {tier} while {recorded}",
                                    (f"{{tier}} {name} = {tier}",)))
    return faults
