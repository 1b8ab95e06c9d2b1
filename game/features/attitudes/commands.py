"""The attitudes feature's ``kith graph`` command: ``attitude``.

The parser is the feature's (docs/graph-cli.md is its contract: the same options and JSON as ever); the
command line's ``game.cli.graph_attitude.attitude_command`` opens the save and prints.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from game.features.feature import Handler
from game.options import add_save_command


def add_attitude_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser],
                        handler: Callable[[str, str], Handler]) -> None:
    attitude = add_save_command(
        actions, "attitude", "one person's attitude toward the player: trust, respect, friendliness, tier, history",
        "How NAME regards the player: trust, respect and friendliness (-100 to 100), the "
        "disposition and tier they make, and every change with its turn and reason.",
    )
    attitude.add_argument("name", metavar="NAME", help="a name, alias or node ID")
    attitude.set_defaults(handler=handler("graph_attitude", "attitude_command"))
