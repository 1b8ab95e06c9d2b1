"""The memories feature's ``kith graph`` command: ``memories``.

The parser is the feature's (docs/graph-cli.md is its contract: the same options and JSON as ever); the
command line's ``game.cli.graph_memories.memories_command`` opens the save and prints.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from game.features.feature import Handler
from game.options import add_save_command


def add_memories_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser],
                        handler: Callable[[str, str], Handler]) -> None:
    memories = add_save_command(
        actions, "memories", "what one NPC remembers of the player, newest and strongest first",
        "List NAME's memories of the player (episodic and semantic), newest and strongest first.",
    )
    memories.add_argument("name", metavar="NAME", help="a name, alias or node ID")
    memories.set_defaults(handler=handler("graph_memories", "memories_command"))
