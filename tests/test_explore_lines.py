"""Tier lines and ending details, judged by ``kith explore`` against the game's state (Brinefall's lines)."""

from __future__ import annotations

from pathlib import Path

from game.config import load_settings
from game.explore.endings import ending_faults
from game.explore.matching import squash
from game.explore.tiers import tier_faults
from game.world import World, load_world
from game.world.scene import SceneState, StoryState

FLAWED = Path(__file__).parent / "fixtures" / "explore-worlds"


def brinefall() -> World:
    return load_world(load_settings().content_dir, "brinefall")


HOB_HOSTILE = "Hob turns his back to you and goes on with the rope as though the landing were empty."
WORLD_UNFRIENDLY = "Lise answers short and doesn't meet your eye."


def test_a_tier_line_that_matches_the_recorded_tier_is_no_fault() -> None:
    world = brinefall()
    assert tier_faults(world, {"Hob Tarrant": "HOSTILE"}, squash(HOB_HOSTILE)) == []


def test_a_tier_line_for_another_tier_is_a_mismatch() -> None:
    world = brinefall()
    faults = tier_faults(world, {"Hob Tarrant": "NEUTRAL"}, squash(f"Hob nods. {HOB_HOSTILE}"))
    assert [(f.kind, f.detail) for f in faults] == [("tier-mismatch", "Hob Tarrant spoke as HOSTILE while NEUTRAL")]
    assert faults[0].checks == ("{tier} Hob Tarrant = HOSTILE",)


def test_the_worlds_tier_lines_are_read_with_the_speakers_name() -> None:
    world = brinefall()
    assert [f.detail for f in tier_faults(world, {"Lise Brack": "FRIENDLY"}, squash(WORLD_UNFRIENDLY))] == [
        "Lise Brack spoke as UNFRIENDLY while FRIENDLY"]
    assert tier_faults(world, {"Hob Tarrant": "FRIENDLY"}, squash(WORLD_UNFRIENDLY)) == []  # not Hob's line


def test_an_ending_detail_naming_an_item_never_found_is_a_fault() -> None:
    world = load_world(FLAWED, "flawed")
    scene = SceneState(location="jetty", ending="crossed", story=StoryState())
    told = squash("You step aboard and cast off. Behind you, the toll book goes into the river, and nobody will "
                  "ever read it now.")
    faults = ending_faults(world, scene, told, found={"rope"})
    assert [f.detail for f in faults] == ["the ending crossed speaks of the toll book, which the player never found"]
    assert ending_faults(world, scene, told, found={"toll-book"}) == []
    assert ending_faults(world, scene, squash("You step aboard and cast off."), found=set()) == []
