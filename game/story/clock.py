"""The story's clock as the player reads it: the world's words for the hour at the current turn.

The clock counts turns that took time (``StoryState.clock``), not lines typed, so a world's deadline
("the Moot meets at dusk") is the same for a player who looks around a lot and one who never does.
"""

from __future__ import annotations

import random

from game.story.prose import pick
from game.world import World


def time_of_day(world: World, clock: int, rng: random.Random) -> str:
    """What the world says of the hour at ``clock``: its last ``times`` entry reached, or ``""``."""
    reached = [t for t in world.section.times if t.at <= clock]
    if not reached:
        return ""
    return pick(world, max(reached, key=lambda t: t.at).text, rng)
