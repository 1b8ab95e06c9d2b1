"""The story's clock: only turns that change something or take time bring Brinefall's Moot nearer,
``look`` tells the hour, warnings come before the end, and saves older than the clock still load."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.play import play_session
from playthrough import Playthrough

from game.world import World, load_world

CONTENT = Path(__file__).parent.parent / "content"


@pytest.fixture(scope="module")
def brinefall() -> World:
    return load_world(CONTENT, "brinefall")


def clock(game: Playthrough) -> int | None:
    assert game.scene.story is not None
    return game.scene.story.clock


async def test_commands_that_change_nothing_do_not_move_the_clock(brinefall: World) -> None:
    game = await Playthrough.start(brinefall)
    for command in ("look", "i", "exits", "hint", "think", "x steps", "x ferry", "xyzzy", "dance wildly", ""):
        await game.play(command)
    assert clock(game) == 0, "looking, listing, thinking and nonsense are free"
    await game.play("wait")
    await game.play("talk to hob")
    await game.play("w")
    assert clock(game) == 3


async def test_look_tells_the_hour_and_the_hour_follows_the_clock(brinefall: World) -> None:
    game = await Playthrough.start(brinefall)
    assert "early afternoon" in await game.play("look")
    for _ in range(40):
        await game.play("wait")
    assert "mid-afternoon" in await game.play("look")
    assert "mid-afternoon" in await game.play("think"), "thinking also says how the day goes"


async def test_warnings_come_before_the_end_and_the_moot_meets_on_the_clock(brinefall: World) -> None:
    game = await Playthrough.start(brinefall)
    told: list[str] = []
    for _ in range(149):
        told.append(await game.play("wait"))
        told.append(await game.play("look"))  # free: it must not bring the Moot nearer
    warnings = [i // 2 + 1 for i, text in enumerate(told) if i % 2 == 0 and "Moot" in text]
    assert len(warnings) >= 5 and warnings[0] <= 60, warnings
    assert game.scene.ending is None
    ending = await game.play("wait")
    assert "Tide Moot" in ending and game.scene.ending is not None


async def test_a_scene_without_a_clock_counts_its_turns_as_taken(brinefall: World) -> None:
    """A save from before the clock: its turn number stands for the clock, so the dusk beats keep time."""
    game = await Playthrough.start(brinefall)
    assert game.scene.story is not None
    game.scene = game.scene.model_copy(update={"story": game.scene.story.model_copy(update={"clock": None})})
    game.turn = 99
    text = await game.play("wait")
    assert "gone yellow" in text and clock(game) == 100


async def test_meta_commands_and_free_actions_leave_a_saved_games_clock_alone(tmp_path: Path) -> None:
    """Through the real session and save: help, hint, look and nonsense are recorded turns for undo, but
    the story's clock only counts the turn that took time."""
    from game.config import load_settings
    from game.engine.session import GameSession

    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT}, env={})
    session = await GameSession.open(settings, save="clock", new=True, world="brinefall")
    try:
        await play_session(session, ["help", "hint", "look", "inventory", "exits", "xyzzy", "wait", "look"])
        assert session.scene.story is not None and session.scene.story.clock == 1
    finally:
        await session.close()
    resumed = await GameSession.open(settings, save="clock")
    try:
        assert resumed.scene.story is not None and resumed.scene.story.clock == 1
    finally:
        await resumed.close()


async def test_near_dusk_the_chapel_says_ambry_has_the_rope(brinefall: World) -> None:
    """The dusk warning takes the rope off its hook; the chapel and the rope say so, and ringing asks her."""
    game = await Playthrough.start(brinefall)
    await game.play("n")
    await game.play("w")
    while (clock(game) or 0) < 130:
        await game.play("wait")
    look = await game.play("look")
    assert "over Sister Ambry's arm" in look and "coiled on a hook" not in look
    assert "holds it ready" in await game.play("x rope")
    assert "puts the rope into your hands" in await game.play("ring the bell")
