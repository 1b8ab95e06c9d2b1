"""Options every ``kith graph`` command shares (the save, ``--json``, a whole number of turns).

Top-level, below every layer, so that a feature declaring its own ``kith graph`` commands
(``Feature.add_graph_commands``) gives them exactly the options and messages the command line's own
commands have (``game.cli.graph_common`` re-exports them). Nothing here loads pydantic or a save.
"""

from __future__ import annotations

import argparse


def add_save_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--save", required=True, metavar="S",
        help="a save name (letters, digits, '-', '_'; in the saves folder) or a path to a .sqlite file",
    )


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for scripts instead of text")


def add_save_command(actions: argparse._SubParsersAction[argparse.ArgumentParser], name: str, help: str,
                     description: str) -> argparse.ArgumentParser:
    """A ``kith graph`` subcommand that reads one save and may print JSON: the two options every such
    command has, added the one way (``--save``, ``--json``)."""
    parser = actions.add_parser(name, help=help, description=description)
    add_save_option(parser)
    add_json_option(parser)
    return parser


def non_negative(value: str) -> int:
    """A turn (or a count): a whole number from 0 to ``MAX_TURN``; larger would overflow SQLite's integers."""
    from game.graph.models import MAX_TURN  # pydantic loads for the commands that take a number only

    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; turns start at 0")
    if number > MAX_TURN:
        raise argparse.ArgumentTypeError(f"{value} is too large: at most {MAX_TURN}")
    return number
