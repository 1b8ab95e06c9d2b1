"""``kith`` and ``python -m game``: one CLI for playing, scripts, saves and the graph."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.errors import KithError

if TYPE_CHECKING:
    from game.config import Settings

Handler = Callable[[argparse.Namespace, "Settings"], int]

COMMAND_MODULES = {
    "play": "game.cli.play",
    "run": "game.cli.run",
    "saves": "game.cli.saves",
    "graph": "game.cli.graph",
    "worlds": "game.cli.worlds",
    "doctor": "game.cli.doctor",
    "llm": "game.cli.doctor",
}
"""Each command and the module that adds its subparser. A command's module is imported only when that
command runs (or for the full ``--help``): ``kith graph dump`` need not load the fast extractor's patterns
or the script parser. A misspelt module name fails on its command, and tests run every command's help."""
COMMANDS = set(COMMAND_MODULES)


class VersionAction(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        print(f"kith {kith_version()}")
        parser.exit()


def kith_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kith")
    except PackageNotFoundError:  # run from a checkout that was never installed (python -m game)
        return "unknown (not installed)"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``command`` only that command's subparser (what a run needs)."""
    from game.cli.worlds import folder_lines

    folders = "\n".join(f"  {line}" for line in folder_lines())
    parser = argparse.ArgumentParser(
        prog="kith",
        description="Kith: a terminal text adventure whose characters remember who they are to each other.",
        epilog=f"folders (change them with the options above, or see docs/configuration.md):\n{folders}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction, help="print Kith's version and exit")
    parser.add_argument("--config", type=Path, help="settings file (default: ./kith.toml, then ~/.config/kith/kith.toml)")
    parser.add_argument("--saves-dir", type=Path, help="folder of save files (default: see folders below)")
    parser.add_argument("--content-dir", type=Path, help="folder of shipped worlds (default: see folders below)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else COMMAND_MODULES.values()
    for name in dict.fromkeys(modules):
        importlib.import_module(name).add_parser(subparsers)
    return parser


GLOBAL_OPTIONS_WITH_VALUES = {"--config", "--saves-dir", "--content-dir"}


def _after_global_options(words: Sequence[str]) -> int:
    """The index of the first word that is not a global option or its value (the command, usually)."""
    at = 0
    while at < len(words):
        word = words[at]
        if word in GLOBAL_OPTIONS_WITH_VALUES:
            at += 2
        elif word.split("=", 1)[0] in GLOBAL_OPTIONS_WITH_VALUES:
            at += 1
        else:
            break
    return at


def _with_default_command(words: list[str]) -> list[str]:
    """``kith`` and ``kith --plain`` mean ``kith play ...``: insert the command after the global options."""
    at = _after_global_options(words)
    if at >= len(words) or words[at] not in COMMANDS | {"-h", "--help", "--version"}:
        return [*words[:at], "play", *words[at:]]
    return words


def _command(words: Sequence[str]) -> str | None:
    """The command word after the global options; none (so the whole parser) for ``-h`` or a mistake."""
    at = _after_global_options(words)
    return words[at] if at < len(words) and words[at] in COMMANDS else None


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
    words = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser(_command(words))
    args = parser.parse_args(words)
    try:
        from game.config import load_settings, with_world_folder

        flags: dict[str, Any] = {}
        if args.saves_dir:
            flags["saves_dir"] = args.saves_dir
        if args.content_dir:
            flags["content_dir"] = args.content_dir
        flags.update(getattr(args, "settings_flags", lambda a: {})(args))
        settings = load_settings(flags=flags, env=os.environ, config_file=args.config, cwd=Path.cwd())
        settings = with_world_folder(settings, getattr(args, "world", None) or settings.world)
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
