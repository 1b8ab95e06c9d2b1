"""Directed games play toward an ending's unmet conditions (``game.explore.frontier``): on Brinefall the
frontier alone, turn by turn, walks from a fresh game to the endings blind play never reached (issue 28:
only the ferry was found). Real games, offline, in temporary saves."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from game.config import load_settings
from game.explore.chooser import candidates
from game.explore.frontier import open_relations, toward
from game.explore.goals import barrier_goals, step_toward
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


def test_a_barrier_goal_opens_the_eel_steps_and_goes_down() -> None:
    """The Eel Run's cave is behind a password heard from Hob or Maud: a barrier's goal walks the chain
    (the note, Hob, the words at the crack) and goes through, where roaming alone rarely does."""
    settings = load_settings()
    world = load_world(settings.content_dir, "brinefall")
    goal = next(g for g in barrier_goals(world) if g.opens is not None and g.opens[1] == "eelsteps")
    relations: dict[tuple[str, str, str], float] = {}
    tried: Counter[str] = Counter()

    def watch(graph: GraphIndex) -> None:
        nonlocal relations
        relations = open_relations(graph)

    def next_command(scene: SceneState, turn: int) -> str | None:
        if scene.location == "eelsteps" or turn >= 40:
            return None
        # Once the way is open there is nothing left to type: the game goes where the goal leads, as a lane does.
        command = (toward(world, scene, goal.ending, relations, tried, goal.opens)
                   or step_toward(world, scene.location or "", goal.places - set(scene.visited)))
        if command is not None:
            tried[command.casefold()] += 1
        return command

    game = asyncio.run(play_game(settings, "brinefall", 0, Catalogue.of(world), next_command, watch=watch))
    assert "eelsteps" in game.reached["places"], game.commands
    assert "password" in game.reached["commands"], game.commands


def test_every_act_a_person_answers_is_a_candidate_the_parser_takes() -> None:
    """A bare accusation, a lie, an apology: acts a world answers without a subject are offered too, in
    words the parser understands (``lie to Hob``, not ``lie Hob``), so their replies are reached."""
    settings = load_settings()
    world = load_world(settings.content_dir, "brinefall")
    wanted = ("accuse Hob", "lie to Hob")

    def next_command(scene: SceneState, turn: int) -> str | None:
        offered = candidates(world, scene)
        assert all(command in offered for command in wanted), offered
        return wanted[turn] if turn < len(wanted) else None

    game = asyncio.run(play_game(settings, "brinefall", 0, Catalogue.of(world), next_command))
    assert {"Hob Tarrant: accuse", "Hob Tarrant: lie"} <= game.reached["reactions"], game.commands
    assert not game.faults, game.faults
