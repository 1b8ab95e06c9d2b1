"""``kith explore``: the game plays a world by itself and reports what an author must fix (issue 28).

    kith explore WORLD [--turns N] [--games K] [--seed S] [--json] [--save-failures DIR]

Exit status: 0 when no fault was found, 1 when one was. See docs/explore.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from game.config import Settings
from game.errors import InputError

FORM = "kith explore WORLD [--turns N] [--games K] [--seed S] [--json] [--save-failures DIR]"
MAX_TURNS = 10_000
MAX_GAMES = 100_000
WORKERS_FROM = 8
"""Fewer games are played in this process: starting a second one would cost more than it saves."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "explore", help="let the game play a world by itself and report what to fix", usage=FORM,
        description="Plays GAMES games of up to TURNS turns, offline, choosing each command from what the world "
                    "offers, and reports the endings reached (with the shortest command list found), what no game "
                    "reached, and every fault the engine can prove. Exit 1 when a fault was found. "
                    "See docs/explore.md.")
    parser.add_argument("world_id", metavar="WORLD", help="the world to explore (a folder under content/)")
    parser.add_argument("--turns", type=int, default=150, metavar="N", help="turns per game (default 150)")
    parser.add_argument("--games", type=int, default=200, metavar="K", help="games to play (default 200)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of every choice (default 0)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON, for tools")
    parser.add_argument("--save-failures", type=Path, metavar="DIR",
                        help="write each fault's shortest command list as a RegTest script in DIR, and a "
                             "failing script for each ending no game reached")
    parser.set_defaults(handler=explore_command)


def explore_command(args: argparse.Namespace, settings: Settings) -> int:
    from game.world import load_world

    if not 1 <= args.turns <= MAX_TURNS:
        raise InputError(f"--turns takes a number from 1 to {MAX_TURNS}, not {args.turns}")
    if not 1 <= args.games <= MAX_GAMES:
        raise InputError(f"--games takes a number from 1 to {MAX_GAMES}, not {args.games}")
    if args.save_failures is not None:
        _check_folder(args.save_failures)  # before the games: a bad folder must not waste a long run
    world = load_world(settings.content_dir, args.world_id)
    report, checks = asyncio.run(run(settings, world, args.turns, args.games, args.seed, sys.stderr))
    if args.save_failures is not None:
        from game.explore.scripts import save_failures

        content = Path(settings.content_dir).resolve()
        save_failures(args.save_failures, world.id, content, args.seed, list(zip(report["faults"], checks, strict=True)),
                      [ending for ending in report["endings"] if not ending["reached"]])
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        from game.explore.text import format_report

        print(format_report(report))
    return 1 if report["faults"] else 0


def _check_folder(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--save-failures {folder}: that is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"--save-failures {folder}: cannot make the folder ({error.strerror or error})") from error
    if not os.access(folder, os.W_OK):
        raise InputError(f"--save-failures {folder}: the folder cannot be written to")


async def run(settings: Settings, world: Any, turns: int, games: int, seed: int,
              terminal: TextIO | None = None) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """The report, and each fault's failing checks in the report's order."""
    from game.explore.explorer import explore
    from game.explore.lanes import LANES, Options
    from game.explore.progress import progress_bar

    progress = progress_bar(terminal) if terminal is not None else None
    # Two lanes of games, in two processes where there are two cores: the report is the same either way.
    workers = min(LANES, os.cpu_count() or 1) if games >= WORKERS_FROM else 1
    found = await explore(settings, world, Options(turns=turns, games=games, seed=seed), progress,
                          workers=workers, content_dir=Path(settings.content_dir))
    if terminal is not None and progress is not None:
        progress(-1, games)
    report = found.report()
    checks = [found.faults[(f["kind"], f["detail"])].checks for f in report["faults"]]
    return report, checks
