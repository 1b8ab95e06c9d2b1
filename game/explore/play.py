"""One explored game: a fresh session in a temporary folder, played command by command.

The same function replays a fixed command list (``commands``), which is how a fault is shrunk and how a
saved failure is reproduced: a game's outcome depends only on the world, the seed and the commands.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from game.config import Settings
from game.explore.deeds import deed_faults, relation_faults
from game.explore.endings import ending_faults, items_found
from game.explore.faults import Fault, turn_faults
from game.explore.matching import squash
from game.explore.reach import KINDS, Catalogue
from game.explore.tiers import tier_faults
from game.graph.index import GraphIndex
from game.registry import Registry
from game.world.scene import SceneState

Next = Callable[[SceneState, int], str | None]
"""The next command, given the scene and the turn number; None ends the game."""


@dataclass
class Game:
    """What one game did: its commands, what it reached, the first turn of each fault, its ending."""

    commands: list[str] = field(default_factory=list)
    reached: dict[str, set[str]] = field(default_factory=lambda: {kind: set() for kind in KINDS})
    faults: dict[tuple[str, str], int] = field(default_factory=dict)
    """(kind, detail) -> how many commands had been played when it first showed."""
    checks: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    """(kind, detail) -> the script checks that fail while it shows."""
    ending: str | None = None

    def note(self, fault: Fault) -> None:
        self.faults.setdefault(fault.key, len(self.commands))
        self.checks.setdefault(fault.key, fault.checks)


def ram_folder() -> str | None:
    """Where temporary games go: a RAM-backed folder when the machine has one (each turn commits to SQLite,
    and hundreds of throwaway games need not touch a disk), else the system's temporary folder."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def explore_settings(settings: Settings, world: str, seed: int, saves_dir: Path) -> Settings:
    """Offline and private: the explorer never asks a model and never touches the player's saves."""
    return settings.model_copy(update={"world": world, "seed": seed, "narrator": "offline", "saves_dir": saves_dir})


async def play_game(settings: Settings, world_id: str, seed: int, catalogue: Catalogue, next_command: Next,
                    stop_at: Callable[[Game], bool] | None = None,
                    watch: Callable[[GraphIndex], None] | None = None, registry: Registry | None = None) -> Game:
    """Play until ``next_command`` gives None, the story ends, an exception is raised or ``stop_at`` holds.

    ``watch`` is shown the game's graph before each command is chosen (a directed game reads its relations);
    ``registry``: the game's features (Kith's own when None)."""
    from game.engine.session import GameSession
    from game.script.runner import command_output

    game = Game()
    with tempfile.TemporaryDirectory(prefix="kith-explore-", dir=ram_folder()) as folder:
        game_settings = explore_settings(settings, world_id, seed, Path(folder))
        session = await GameSession.open(game_settings, save=Path(folder) / "explore.sqlite", new=True,
                                         world=world_id, world_loaded=catalogue.world, registry=registry)
        try:
            _note(game, catalogue.reached(session.scene, ""))
            found = items_found(session.scene)
            while True:
                before = session.scene
                tiers = {name: session.attitudes.tier(name) for name in before.cast}
                if watch is not None:
                    watch(session.graph)
                command = next_command(before, len(game.commands))
                if command is None:
                    break
                game.commands.append(command)
                try:
                    output, quit_asked = await command_output(session, command)
                except Exception as error:  # a bug in the game: the fault the explorer exists to find
                    game.note(Fault("exception", f"{type(error).__name__}: {error}"))
                    break
                after = session.scene
                text = squash(output)
                _note(game, catalogue.reached(after, text))
                found |= items_found(after)
                for fault in [*turn_faults(catalogue, command, before, after, text),
                              *deed_faults(before, after, session.features, session.graph),
                              *relation_faults(before, after, session.graph),
                              *tier_faults(catalogue.world, tiers, text),
                              *ending_faults(catalogue.world, after, text, found)]:
                    game.note(fault)
                if after.ending is not None:
                    game.ending = after.ending
                if quit_asked or after.ending is not None or (stop_at is not None and stop_at(game)):
                    break
        finally:
            await session.close()
    return game


def _note(game: Game, reached: dict[str, set[str]]) -> None:
    for kind, labels in reached.items():
        game.reached[kind] |= labels


async def replay(settings: Settings, world_id: str, seed: int, catalogue: Catalogue, commands: list[str],
                 stop_at: Callable[[Game], bool] | None = None, registry: Registry | None = None) -> Game:
    """Play exactly ``commands`` (fewer if the story ends, or ``stop_at`` holds, first)."""
    def next_command(scene: SceneState, turn: int) -> str | None:
        return commands[turn] if turn < len(commands) else None

    return await play_game(settings, world_id, seed, catalogue, next_command, stop_at, registry=registry)
