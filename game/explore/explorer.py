"""K games of up to N turns, then the report: endings with their shortest command lists, what was never
reached, and every fault with the shortest command list found that shows it (``shrink``).

Deterministic by construction: each lane's own ``random.Random`` chooses its games' commands (``lanes``),
each game plays with the same story seed, and the report holds no times or paths that vary between runs.
Shrinking is bounded twice: so many replays per fault or ending, and so many in all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.config import Settings
from game.explore.lanes import Options, play_all
from game.explore.play import Game, replay
from game.explore.reach import KINDS, Catalogue
from game.explore.shrink import MAX_TRIES, shrink
from game.registry import Registry
from game.world import World

TOTAL_TRIES = 600
"""Replays for all the shrinking of one run: a world with a hundred faults still finishes."""
ENDING_SHARE = 4
"""An ending's shrinking gets this fraction of a fault's tries."""
Progress = Callable[[int, int], None]
"""Told (games done, games in all) after each game."""


@dataclass
class Found:
    """A fault or ending across games: the shortest command list that shows it, and its checks."""

    commands: list[str]
    checks: tuple[str, ...] = ()


@dataclass
class Exploration:
    world: World
    options: Options
    reached: dict[str, set[str]] = field(default_factory=lambda: {kind: set() for kind in KINDS})
    endings: dict[str, Found] = field(default_factory=dict)
    faults: dict[tuple[str, str], Found] = field(default_factory=dict)

    def absorb(self, game: Game) -> None:
        for kind, labels in game.reached.items():
            self.reached[kind] |= labels
        if game.ending is not None:
            known = self.endings.get(game.ending)
            if known is None or len(game.commands) < len(known.commands):
                self.endings[game.ending] = Found(list(game.commands))
        for key, at in game.faults.items():
            known = self.faults.get(key)
            if known is None or at < len(known.commands):
                self.faults[key] = Found(game.commands[:at], game.checks.get(key, ()))

    def report(self) -> dict[str, Any]:
        """The ``--json`` report, exactly as issue 28 gives its shape."""
        world = self.world
        everything = Catalogue.of(world).everything()
        return {
            "world": world.id,
            "games": self.options.games,
            "turns": self.options.turns,
            "seed": self.options.seed,
            "endings": [{"id": ending.id, "title": ending.title, "reached": ending.id in self.endings,
                         "commands": list(self.endings[ending.id].commands) if ending.id in self.endings else []}
                        for ending in world.endings.values()],
            "unreached": {kind: [label for label in everything[kind] if label not in self.reached[kind]]
                          for kind in KINDS},
            "faults": [{"kind": kind, "detail": detail, "commands": list(found.commands)}
                       for (kind, detail), found in sorted(self.faults.items(), key=_fault_order)],
        }


def _fault_order(entry: tuple[tuple[str, str], Found]) -> tuple[int, int, str]:
    (kind, detail), found = entry
    from game.explore.faults import KINDS as FAULT_KINDS

    return (FAULT_KINDS.index(kind) if kind in FAULT_KINDS else len(FAULT_KINDS), len(found.commands), detail)


async def explore(settings: Settings, world: World, options: Options, progress: Progress | None = None,
                  shrink_tries: int = MAX_TRIES, workers: int = 1, content_dir: Path | None = None,
                  registry: Registry | None = None) -> Exploration:
    """Play the games (in ``workers`` processes, loading the world from ``content_dir``), then shrink every
    fault's and ending's command list by replay. ``registry``: the games' features (Kith's own when None)."""
    catalogue = Catalogue.of(world)
    found = Exploration(world, options)
    for game in await play_all(settings, world, options, content_dir, progress, workers, registry):
        found.absorb(game)

    budget = TOTAL_TRIES
    for key, fault in found.faults.items():
        async def shows(commands: list[str], key: tuple[str, str] = key) -> bool:
            replayed = await replay(settings, world.id, options.seed, catalogue, commands,
                                    stop_at=lambda g: key in g.faults, registry=registry)
            return key in replayed.faults

        tries = min(shrink_tries, budget)
        budget -= tries
        fault.commands = await shrink(fault.commands, shows, tries) if tries else fault.commands
        # The checks of the shrunk list's own game: a shorter way may show the fault in other places.
        final = await replay(settings, world.id, options.seed, catalogue, fault.commands,
                             stop_at=lambda g, key=key: key in g.faults, registry=registry)  # type: ignore[misc]
        fault.checks = final.checks.get(key, fault.checks)
    for ending_id, ending in found.endings.items():
        async def ends(commands: list[str], ending_id: str = ending_id) -> bool:
            return (await replay(settings, world.id, options.seed, catalogue, commands,
                                 registry=registry)).ending == ending_id

        # An ending's list is a whole game long and ends only at the ending: fewer tries than a fault's.
        tries = min(max(1, shrink_tries // ENDING_SHARE), budget)
        budget -= tries
        ending.commands = await shrink(ending.commands, ends, tries) if tries else ending.commands
    return found


async def reproduces(settings: Settings, world: World, seed: int, commands: list[str], kind: str,
                     registry: Registry | None = None) -> list[str]:
    """The details of every ``kind`` fault that ``commands`` show when replayed (empty: not reproduced)."""
    game = await replay(settings, world.id, seed, Catalogue.of(world), commands, registry=registry)
    return [detail for fault_kind, detail in game.faults if fault_kind == kind]
