"""The knowledge-and-gossip feature's ``kith graph`` commands: ``gossip`` and ``knows``.

The parsers are the feature's (docs/graph-cli.md is their contract: the same options and JSON as ever);
the command line's ``game.cli.graph_gossip.gossip_command`` and ``game.cli.graph_read.knows`` open the
save and print.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from game.features.feature import Handler
from game.options import add_save_command, non_negative

MAX_ROUNDS = 1000


def _rounds(value: str) -> int:
    number = non_negative(value)
    if not 1 <= number <= MAX_ROUNDS:
        raise argparse.ArgumentTypeError(f"between 1 and {MAX_ROUNDS} (got {number})")
    return number


def add_knows_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser],
                     handler: Callable[[str, str], Handler]) -> None:
    knows = add_save_command(
        actions, "knows", "what one person knows: each open relation, how they learned it, from whom, how sure",
        "Every open relation NAME knows (their own or public knowledge), oldest learned first. "
        "NAME may be 'player' for the player character.",
    )
    knows.add_argument("name", metavar="NAME", help="a name, alias or node ID, or 'player'")
    knows.add_argument("--deeds", action="store_true",
                       help="the deeds NAME knows instead: who did what to whom, how they know, from whom")
    knows.set_defaults(handler=handler("graph_read", "knows"))


def add_gossip_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser],
                      handler: Callable[[str, str], Handler]) -> None:
    gossip = add_save_command(
        actions, "gossip", "run rounds of gossip between NPCs and print who learned what from whom",
        "Run N rounds of gossip as the game would between turns (every NPC can meet unless the "
        "save's scene places them). Prints each exchange; --dry-run writes nothing.",
    )
    gossip.add_argument("--rounds", type=_rounds, default=1, metavar="N", help="how many rounds (default 1)")
    gossip.add_argument("--seed", type=non_negative, metavar="K", help="the seed (default: the settings' seed)")
    gossip.add_argument("--dry-run", action="store_true", help="print what would be told, write nothing")
    gossip.set_defaults(handler=handler("graph_gossip", "gossip_command"))
