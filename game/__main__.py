"""``kith`` and ``python -m game``: one CLI for playing, scripts, saves and the graph."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from game.cli import doctor, graph, play, run, saves
from game.config import Settings, load_settings
from game.errors import KithError

Handler = Callable[[argparse.Namespace, Settings], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kith",
        description="Kith: a terminal text adventure whose characters remember who they are to each other.",
    )
    parser.add_argument("--config", type=Path, help="settings file (default: ./kith.toml)")
    parser.add_argument("--saves-dir", type=Path, help="folder of save files (default: saves/)")
    parser.add_argument("--content-dir", type=Path, help="folder of worlds (default: content/)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Plain imports above, not a loop that skips missing modules: a typo must fail, not drop a command.
    for module in (play, run, saves, graph, doctor):
        module.add_parser(subparsers)
    return parser


GLOBAL_OPTIONS_WITH_VALUES = {"--config", "--saves-dir", "--content-dir"}
COMMANDS = {"play", "run", "saves", "graph", "doctor", "llm"}


def _with_default_command(words: list[str]) -> list[str]:
    """``kith`` and ``kith --plain`` mean ``kith play ...``: insert the command after the global options."""
    at = 0
    while at < len(words):
        word = words[at]
        if word in GLOBAL_OPTIONS_WITH_VALUES:
            at += 2
        elif word.split("=", 1)[0] in GLOBAL_OPTIONS_WITH_VALUES:
            at += 1
        else:
            break
    if at >= len(words) or words[at] not in COMMANDS | {"-h", "--help"}:
        return [*words[:at], "play", *words[at:]]
    return words


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit, where it is a traceback
        return code
    except BrokenPipeError:
        # The reader went away (`kith saves list | head -1`): stop quietly. A turn whose output could not
        # be written was never committed. stdout points at /dev/null so the final flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    words = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(words)
    try:
        flags: dict[str, Any] = {}
        if args.saves_dir:
            flags["saves_dir"] = args.saves_dir
        if args.content_dir:
            flags["content_dir"] = args.content_dir
        flags.update(getattr(args, "settings_flags", lambda a: {})(args))
        settings = load_settings(flags=flags, env=os.environ, config_file=args.config, cwd=Path.cwd())
        handler: Handler = args.handler
        return handler(args, settings)
    except KithError as error:
        print(f"kith: {error.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
