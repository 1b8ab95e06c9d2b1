"""A person is in one pose at a time (issue 27): what a beat says they are doing, ``look`` says too.

At dusk Sister Ambry takes the bell rope down and waits with it; the chapel must not go on showing her on
her knees with the paint pot. Played in a fresh in-memory game with the beat's flag set.
"""

from __future__ import annotations

from pathlib import Path

from playthrough import Playthrough

from game.world import load_world

CONTENT = Path(__file__).resolve().parent.parent / "content"


async def test_ambry_holding_the_rope_is_not_also_painting() -> None:
    world = load_world(CONTENT, "brinefall")
    game = await Playthrough.start(world)
    before = await game.play("look")
    game.scene = game.scene.model_copy(update={"location": "chapel"})
    painting = await game.play("look")
    assert "kneels beneath the names with a pot of black paint" in painting, before
    game.scene = game.scene.model_copy(update={"flags": {**game.scene.flags, "ambry_holds_rope": True}})
    waiting = await game.play("look")
    assert "over Sister Ambry's arm" in waiting
    assert "Sister Ambry stands by the door" in waiting
    assert "kneels beneath the names" not in waiting
