"""The games of an exploration, played in a fixed number of lanes, so two cores play them at once.

Lane L plays games L, L+LANES, L+2*LANES ... with its own chooser, seeded from the seed and L. What a
lane plays depends on nothing but the world, the options and its number, never on timing or on how many
processes run the lanes: one process playing both lanes in turn gives the same games (and the same report)
as two processes playing one each.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any

from game.config import Settings
from game.explore.chooser import Chooser
from game.explore.frontier import Relation, open_relations, toward
from game.explore.goals import Goal, barrier_goals, goal_for, producers, step_toward
from game.explore.play import Game, play_game
from game.explore.reach import KINDS, Catalogue
from game.explore.targets import place_of_person, target_goal, targets
from game.graph.index import GraphIndex
from game.registry import Registry
from game.world import World
from game.world.scene import SceneState

LANES = 2
"""Fixed, whatever the machine: the lanes decide the games, the processes only how fast they are played."""
LATE = 2 / 3
"""A directed game holds its ending's triggers back until this share of its turns is played."""
DIRECTED = 4
"""One game in this many plays toward an ending (``goals``); the rest explore."""
BARRIER_EVERY = 8
BARRIER_AT = 2
"""One game in ``BARRIER_EVERY``, the one at ``BARRIER_AT`` of each run (never a directed one), plays toward
opening an exit barrier instead."""
TARGET_EVERY = 4
TARGET_FROM = 16
"""From game ``TARGET_FROM`` on, one game in ``TARGET_EVERY`` (of the lane that plays no ending's goals) aims
at something its lane's earlier games never reached (``targets``), each in turn."""
FRONTIER_SHARE = 0.7
"""How often a directed game, once late (or straight at its ending), takes the frontier's step (``frontier``)."""


@dataclass(frozen=True)
class Options:
    turns: int = 150
    games: int = 200
    seed: int = 0


Played = Callable[[], None]


async def play_lane(settings: Settings, world: World, options: Options, lane: int, played: Played,
                    registry: Registry | None = None) -> list[tuple[int, Game]]:
    """Lane ``lane``'s games, numbered; ``played`` is told after each; ``registry``: the games' features."""
    import random

    catalogue = Catalogue.of(world)
    chooser = Chooser(random.Random(f"{options.seed}/{lane}"))
    goals = [goal_for(world, ending) for ending in world.endings]
    barriers = barrier_goals(world)
    enders = ender_commands(world, goals)
    content = targets(world)
    reached: dict[str, set[str]] = {kind: set() for kind in KINDS}
    aimed = 0
    goal: Goal | None = None
    patient = False
    relations: dict[Relation, float] = {}

    def watch(graph: GraphIndex) -> None:
        nonlocal relations
        relations = open_relations(graph) if goal is not None else {}

    def next_command(scene: SceneState, turn: int) -> str | None:
        if turn >= options.turns:
            return None
        if goal is None:
            return chooser.next_in(world, scene)
        late = not patient or goal.opens is not None or turn >= options.turns * LATE
        return directed_command(world, chooser, goal, scene, relations, enders, late)

    games: list[tuple[int, Game]] = []
    for number in range(lane, options.games, LANES):
        # Every DIRECTED-th game plays toward one ending, the endings in turn.
        goal = goals[(number // DIRECTED) % len(goals)] if goals and number % DIRECTED == DIRECTED - 1 else None
        # Every BARRIER_EVERY-th game (of the other lane) opens a barrier instead, the barriers in turn.
        if barriers and number % BARRIER_EVERY == BARRIER_AT:
            goal = barriers[(number // BARRIER_EVERY) % len(barriers)]
        # The first round toward every ending goes straight at it; the next holds the triggers back (the
        # bell that calls the Moot ends the game in whatever ending is ready), and so on in turn.
        patient = bool(goals) and (number // (DIRECTED * len(goals))) % 2 == 1
        pending = [t for t in content if t.label not in reached[t.kind]]
        if pending and number >= TARGET_FROM and number % TARGET_EVERY == 0:
            goal = target_goal(world, pending[aimed % len(pending)])
            aimed += 1
        chooser.new_game()
        game = await play_game(settings, world.id, options.seed, catalogue, next_command, watch=watch,
                               registry=registry)
        for kind, labels in game.reached.items():
            reached[kind] |= labels
        if game.ending is not None:
            chooser.ended()
        games.append((number, game))
        played()
    return games


def ender_commands(world: World, goals: list[Goal]) -> set[str]:
    """Every command (casefolded) that ends a game or sets off what an ending waits on (the bell)."""
    enders = {command.casefold() for g in goals for command in g.triggers}
    return enders | {command.casefold() for effects, _when, typed, _where in producers(world) if effects.ending
                     for command in typed}


def directed_command(world: World, chooser: Chooser, goal: Goal, scene: SceneState,
                     relations: dict[Relation, float], enders: set[str], late: bool) -> str:
    """A directed game's next command: most turns the frontier's step toward ``goal`` (once ``late``, for an
    ending's goal), the rest roaming weighted toward the goal's commands and places."""
    if goal.person is not None and goal.opens is not None:  # a target's person may have moved
        goal.opens = (goal.opens[0], place_of_person(world, goal.person, scene) or goal.opens[1])
    if late and (goal.ending in world.endings or goal.opens):
        tried = {command.casefold(): n for command, n in chooser.this_game.items()}
        ahead = toward(world, scene, goal.ending, relations, tried, goal.opens, goal.typed)
        if ahead is not None and chooser.rng.random() < FRONTIER_SHARE:
            return chooser.take(scene, ahead)
    # A barrier's or a target's game is not after an ending: it keeps every ending's triggers back.
    held_back = enders if goal.opens is not None else set() if late else {c.casefold() for c in goal.triggers}
    wanted = {command.casefold() for command in goal.commands} - held_back
    step = step_toward(world, scene.location or "", goal.places - set(scene.visited))
    if step is not None:
        wanted.add(step)
    return chooser.next_in(world, scene, frozenset(wanted), frozenset(held_back))


_QUEUE: Any = None


def _start_worker(queue: Any) -> None:
    global _QUEUE
    _QUEUE = queue


def _lane_in_worker(settings: Settings, content_dir: Path, world_id: str, options: Options,
                    lane: int) -> list[tuple[int, Game]]:
    from game.world import load_world

    world = load_world(content_dir, world_id)
    return asyncio.run(play_lane(settings, world, options, lane, lambda: _QUEUE.put(lane)))


async def play_all(settings: Settings, world: World, options: Options, content_dir: Path | None,
                   progress: Callable[[int, int], None] | None, workers: int,
                   registry: Registry | None = None) -> list[Game]:
    """Every game, in number order. ``workers`` > 1 (and a ``content_dir`` to load the world from) plays the
    lanes in that many processes at once; a ``registry`` of the caller's own keeps them in this one (a
    worker process plays Kith's own features)."""
    done = 0

    def played() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, options.games)

    numbered: list[tuple[int, Game]] = []
    lanes = min(LANES, options.games)
    if workers > 1 and content_dir is not None and lanes > 1 and registry is None:
        try:
            return _in_order(await _in_processes(settings, world, options, content_dir, played, workers, lanes))
        except (BrokenProcessPool, OSError, RuntimeError):
            done = 0  # no second process to be had here: the same lanes, played in this one, give the same games
    for lane in range(lanes):
        numbered += await play_lane(settings, world, options, lane, played, registry)
    return _in_order(numbered)


def _in_order(numbered: list[tuple[int, Game]]) -> list[Game]:
    return [game for _, game in sorted(numbered, key=lambda pair: pair[0])]


async def _in_processes(settings: Settings, world: World, options: Options, content_dir: Path, played: Played,
                        workers: int, lanes: int) -> list[tuple[int, Game]]:
    numbered: list[tuple[int, Game]] = []
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads (aiosqlite)
    queue = context.Queue()
    with ProcessPoolExecutor(max_workers=min(workers, lanes), mp_context=context, initializer=_start_worker,
                             initargs=(queue,)) as pool:
        futures = [pool.submit(_lane_in_worker, settings, content_dir, world.id, options, lane)
                   for lane in range(lanes)]
        while not all(future.done() for future in futures):
            try:
                await asyncio.to_thread(queue.get, True, 0.2)
                played()
            except Empty:
                pass
        for future in futures:
            numbered += future.result()
    return numbered
