"""Endings tell what the player actually did: the same ending, reached two ways, is told two ways."""

from __future__ import annotations

from pathlib import Path

from playthrough import Playthrough

from game.world import load_world

CONTENT = Path(__file__).parent.parent / "content"
TO_THE_PURSE = ["n", "e", "bribe maud", "ask maud about pell", "w", "n", "talk to orla", "accept the offer", "s"]


async def salt_ending(*middle: str) -> str:
    game = await Playthrough.start(load_world(CONTENT, "brinefall"))
    for command in [*TO_THE_PURSE, *middle, "w", "ring the bell", "ring the bell"]:
        await game.play(command)
    assert game.scene.ending == "salt"
    return game.turns[-1].narration


async def test_salt_with_the_purse_kept_or_given_away() -> None:
    kept = await salt_ending()
    assert "purse heavy at your belt" in kept and "very heavy" in kept
    given = await salt_ending("drop the purse")
    assert "already gone from your hands" in given
    assert "purse heavy at your belt" not in given and "very heavy" not in given
