"""Whether a piece of authored text was told in a turn's output: how the explorer sees what fired.

The story engine does not say which topic or reaction answered, but its reply is authored text the
output must contain; a variant's opening words (up to its first ``{placeholder}``) are enough to know it.
"""

from __future__ import annotations

import re

from game.engine.transcript import plain
from game.text import straighten_quotes
from game.world import World

_SPACES = re.compile(r"\s+")
MIN_KEY = 12
"""Shorter openings ("Yes.") say too little to tell one reply from another."""
KEY_LENGTH = 48


def squash(text: str) -> str:
    return _SPACES.sub(" ", straighten_quotes(plain(text))).strip().casefold()


def keys(world: World, variants: list[str] | None) -> list[str]:
    """The opening of each variant, as the output would show it; none that are too short to tell."""
    found: list[str] = []
    for variant in variants or []:
        text = squash(world.text(variant).split("{", 1)[0])[:KEY_LENGTH]
        if len(text) >= MIN_KEY:
            found.append(text)
    return found


def told(output: str, variant_keys: list[str]) -> bool:
    """Whether the (squashed) output contains any of the keys."""
    return any(key in output for key in variant_keys)
