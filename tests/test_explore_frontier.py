"""Directed games play toward an ending's unmet conditions (``game.explore.frontier``): on Brinefall the
frontier alone, turn by turn, walks from a fresh game to the endings blind play never reached (issue 28:
only the ferry was found). Real games, offline, in temporary saves."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from game.config import load_settings
from game.explore.frontier import open_relations, toward
from game.explore.play import play_game
from game.explore.reach import Catalogue
from game.graph.index import GraphIndex
from game.world import load_world
from game.world.scene import SceneState


@pytest.mark.parametrize(("ending", "most"), [("justice", 30), ("salt", 20), ("reckoning", 40)])
def test_the_frontier_alone_walks_a_fresh_game_to_the_ending(ending: str, most: int) -> None:
    settings = load_settings()
    world = load_world(settings.content_dir, "brinefall")
    relations: dict[tuple[str, str, str], float] = {}
    tried: Counter[str] = Counter()

    def watch(graph: GraphIndex) -> None:
        nonlocal relations
        relations = open_relations(graph)

    def next_command(scene: SceneState, turn: int) -> str | None:
        command = toward(world, scene, ending, relations, tried) if turn < most else None
        if command is not None:
            tried[command.casefold()] += 1
        return command

    game = asyncio.run(play_game(settings, "brinefall", 0, Catalogue.of(world), next_command, watch=watch))
    assert game.ending == ending, game.commands
    assert "ring bell" in game.commands[-2:], "the bell that ends every story is rung last, not first"
    assert not game.faults
