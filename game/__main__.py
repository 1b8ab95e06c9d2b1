"""``kith`` and ``python -m game``: one CLI for playing, scripts, saves and the graph."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Collection, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.errors import KithError

if TYPE_CHECKING:
    from game.config import Settings
    from game.settings_source import Folders, SettingsSource

Handler = Callable[[argparse.Namespace, "Settings"], int]
QuickHandler = Callable[[argparse.Namespace, "SettingsSource"], int]
"""A command may also set ``quick_handler``: it runs instead of ``handler`` when the settings name
nothing but folders, and gets them unvalidated (``SettingsSource.folders()``), so a command that needs
no more starts without loading pydantic."""

COMMAND_MODULES = {
    "play": "game.cli.play",
    "run": "game.cli.run",
    "explore": "game.cli.explore",
    "saves": "game.cli.saves",
    "graph": "game.cli.graph",
    "worlds": "game.cli.worlds",
    "doctor": "game.cli.doctor",
    "import-story": "game.cli.import_story",
    "llm": "game.cli.doctor",
}
"""Each command and the module that adds its subparser. A command's module is imported only when that
command runs (or for the full ``--help``): ``kith graph dump`` need not load the fast extractor's patterns
or the script parser. A misspelt module name fails on its command, and tests run every command's help."""
COMMANDS = set(COMMAND_MODULES)

ONE_ACTION_MODULES = {("graph", "dump"): "game.cli.graph_quick", ("graph", "retrieve"): "game.cli.graph_quick"}
"""Actions whose command's parser another module builds with that action alone: ``kith graph dump`` and
``retrieve``, which scripts run in a loop, parse with ``graph_quick``'s head and actions (the very ones the
full ``graph`` parser has) instead of importing every other action's module to build theirs (issue 15)."""


class VersionAction(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        print(f"kith {kith_version()}")
        parser.exit()


FOLDERS_HEADING = "folders (change them with the options above, or see docs/configuration.md):"
COMMAND_FOLDERS_HEADING = "folders (kith --saves-dir DIR COMMAND changes one; see docs/configuration.md):"
"""A command's help has no folder options of its own to point at: they are ``kith``'s, before the command."""


def terminal_columns() -> int:
    """The width ``shutil.get_terminal_size`` would give ($COLUMNS, else the terminal's, else 80), without
    importing shutil: argparse makes a formatter for every option it adds, and shutil's import (with bz2,
    lzma and zlib) was 2 ms of ``kith graph retrieve``'s 40 (issue 15)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class TerminalWidth:
    """For an argparse formatter class: the width it wraps to, found without shutil."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,  # type: ignore[call-arg]
                         terminal_columns() - 2 if width is None else width)


class KithDescriptionFormatter(TerminalWidth, argparse.RawDescriptionHelpFormatter):
    """``kith --help``: its description keeps its own line breaks."""


class KithHelpFormatter(TerminalWidth, argparse.HelpFormatter):
    """argparse's layout, except that a line never breaks inside a hyphenated word: the help names
    ``COMMANDS-FILE``, ``TEST-NAME-PATTERN`` and ``--api-key-env``, which must read as written."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)


class KithParser(argparse.ArgumentParser):
    """Every command's parser (subparsers take their parent's class), whose help ends with where Kith's
    folders are. Worked out when help is asked for, not when the parser is built: finding the folders
    loads the settings module (and pydantic)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", KithHelpFormatter)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        from game.cli.worlds import folder_lines

        folders = "".join(f"  {line}\n" for line in folder_lines(_folders_for_help()))
        # Added after argparse's layout rather than as the epilog: an epilog is filled as one paragraph
        # by every parser whose formatter is not the raw one (each subcommand's), squashing the list.
        heading = FOLDERS_HEADING if self.prog == "kith" else COMMAND_FOLDERS_HEADING
        return f"{super().format_help()}\n{heading}\n{folders}"


def kith_version() -> str:
    from game import __version__

    return __version__


def build_parser(commands: Collection[str] | None = None, action: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``commands`` only their subparsers (what one run needs), and for
    one command with an ``action`` listed in ``ONE_ACTION_MODULES``, only that module's actions."""
    parser = KithParser(
        prog="kith",
        description="Kith: a terminal text adventure whose characters remember who they are to each other.",
        formatter_class=KithDescriptionFormatter,
    )
    parser.add_argument("--version", action=VersionAction, help="print Kith's version and exit")
    parser.add_argument("--config", type=Path, help="settings file (default: $KITH_CONFIG, else ./kith.toml, else "
                        "the checkout's kith.toml, else the user config folder's)")
    parser.add_argument("--saves-dir", type=Path, help="folder of save files (default: see folders below)")
    parser.add_argument("--content-dir", type=Path, help="folder of shipped worlds (default: see folders below)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = COMMAND_MODULES.values() if commands is None else [COMMAND_MODULES[name] for name in commands]
    if commands is not None and len(commands) == 1 and action is not None:
        (command,) = commands
        modules = [ONE_ACTION_MODULES.get((command, action), COMMAND_MODULES[command])]
    for name in dict.fromkeys(modules):
        importlib.import_module(name).add_parser(subparsers)
    return parser


GLOBAL_OPTIONS_WITH_VALUES = {"--config", "--saves-dir", "--content-dir"}

_command_line: ContextVar[Sequence[str] | None] = ContextVar("kith_command_line", default=None)
"""The words this run was given, for a help text that shows the folders they choose."""


def _global_options(words: Sequence[str]) -> tuple[int, dict[str, str]]:
    """The index of the first word that is not a global option or its value (the command, usually), and
    the values those options were given (the last of each)."""
    at, values = 0, {}
    while at < len(words):
        name, equals, value = words[at].partition("=")
        if name not in GLOBAL_OPTIONS_WITH_VALUES:
            break
        if equals:
            at += 1
        elif at + 1 < len(words):
            value, at = words[at + 1], at + 2
        else:
            at += 2
            continue
        values[name] = value
    return at, values


def _after_global_options(words: Sequence[str]) -> int:
    return _global_options(words)[0]


def _folders_for_help() -> Folders | None:
    """The folders this command line would use (its options, the environment, the settings file), so
    ``kith --saves-dir DIR saves --help`` shows DIR; None (the defaults) when they cannot be read."""
    words = _command_line.get()
    if words is None:
        return None
    from game.settings_source import gather_settings

    _at, values = _global_options(words)
    flags = {key: Path(values[option]) for option, key in (("--saves-dir", "saves_dir"), ("--content-dir", "content_dir"))
             if option in values}
    config = Path(values["--config"]) if "--config" in values else None
    try:
        return gather_settings(flags=flags, env=os.environ, config_file=config, cwd=Path.cwd()).folder_paths()
    except KithError:  # an unreadable settings file: the command itself says so when it runs
        return None


def _with_default_command(words: list[str]) -> list[str]:
    """``kith`` and ``kith --plain`` mean ``kith play ...``: insert the command after the global options."""
    at = _after_global_options(words)
    if at >= len(words) or words[at] not in COMMANDS | {"-h", "--help", "--version"}:
        return [*words[:at], "play", *words[at:]]
    return words


def _commands_needed(words: Sequence[str]) -> tuple[list[str] | None, str | None]:
    """The commands whose parsers this run needs: its own, none for ``--version``, and every one (None)
    for ``--help`` or a mistake, whose message lists them all; and the word after the command (its
    action, or anything else)."""
    at = _after_global_options(words)
    word = words[at] if at < len(words) else None
    if word in COMMANDS:
        return [str(word)], words[at + 1] if at + 1 < len(words) else None
    return ([] if word == "--version" else None), None


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
    parser = build_parser(*_commands_needed(words))
    said = _command_line.set(words)
    try:
        args = parser.parse_args(words)  # --help is printed (and the run ends) in here
    finally:
        _command_line.reset(said)
    try:
        from game.settings_source import gather_settings

        flags: dict[str, Any] = {}
        if args.saves_dir:
            flags["saves_dir"] = args.saves_dir
        if args.content_dir:
            flags["content_dir"] = args.content_dir
        flags.update(getattr(args, "settings_flags", lambda a: {})(args))
        source = gather_settings(flags=flags, env=os.environ, config_file=args.config, cwd=Path.cwd())
        quick: QuickHandler | None = getattr(args, "quick_handler", None)
        if quick is not None and source.folders() is not None:
            # Nothing but folders was set, so nothing needs validating: the command starts without
            # pydantic (issue 15), and validates later only if it needs the rest (``game.config.validate_settings``).
            return quick(args, source)
        from game.config import validate_settings, with_world_folder

        settings = validate_settings(source)
        settings = with_world_folder(settings, getattr(args, "world", None) or settings.world)
        handler: Handler = args.handler
        return handler(args, settings)
    except KithError as error:
        from game.text import escape_control

        print(f"kith: {escape_control(error.message)}", file=sys.stderr)  # it may quote a server or a file
        return 2
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
