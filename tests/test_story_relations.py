"""The story's view of relations within a turn matches them as the upsert does: an inverse written
either way, a symmetric relation in either direction, and what a new relation excludes."""

from __future__ import annotations

from pathlib import Path

from playthrough import Playthrough

from game.story.relations import RelationView
from game.world import load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


async def _view() -> RelationView:
    world = load_world(FIXTURES, "tiny")
    game = await Playthrough.start(world)
    return RelationView(world, game.graph)


async def test_a_relation_recorded_as_its_inverse_reads_back_either_way() -> None:
    view = await _view()
    view.record("Sam Reed", "Edda Marsh", "FEARED_BY", -0.4)  # Edda fears Sam
    assert await view.strength("Edda Marsh", "Sam Reed", "FEARS") == -0.4
    assert await view.strength("Sam Reed", "Edda Marsh", "FEARED_BY") == -0.4
    assert await view.strength("Sam Reed", "Edda Marsh", "FEARS") is None, "fear has a direction"


async def test_a_symmetric_relation_recorded_one_way_reads_back_the_other_way() -> None:
    view = await _view()
    view.record("Edda Marsh", "Sam Reed", "ENEMIES_WITH", -0.7)
    assert await view.strength("Sam Reed", "Edda Marsh", "ENEMY_OF") == -0.7
    view.record("Sam Reed", "Edda Marsh", "ALLY_OF", 0.5)  # alliance ends the enmity, whichever way it is written
    assert await view.strength("Edda Marsh", "Sam Reed", "ENEMY_OF") is None
    assert await view.strength("Edda Marsh", "Sam Reed", "ALLIED_WITH") == 0.5
