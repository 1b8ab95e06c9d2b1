"""The identity feature's ``kith graph`` commands: ``pending`` and ``resolve``.

The parsers are the feature's (docs/graph-cli.md is their contract: the same options and JSON as ever);
the command line's ``game.cli.graph_pending`` opens the save, answers and prints.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from game.features.feature import Handler
from game.options import add_save_command


def add_pending_parsers(actions: argparse._SubParsersAction[argparse.ArgumentParser],
                        handler: Callable[[str, str], Handler]) -> None:
    pending = add_save_command(
        actions, "pending", "open questions of identity: a new name that may be someone already known",
        "List the open questions of identity: ID, the new name, the candidate it may be, the "
        "confidence and the evidence. Answer one with `kith graph resolve`.",
    )
    pending.set_defaults(handler=handler("graph_pending", "pending_command"))

    resolve = add_save_command(
        actions, "resolve", "answer a question of identity: yes merges the two nodes, no keeps them apart",
        "Answer the open question ID (see `kith graph pending`): yes folds the new node into the "
        "candidate (logged in the merge log; `undo` in the game takes it back), no keeps them apart.",
    )
    resolve.add_argument("id", metavar="ID", help="the question's ID, as `kith graph pending` lists it")
    resolve.add_argument("answer", metavar="yes|no", type=_answer, help="whether the two names are one person")
    resolve.set_defaults(handler=handler("graph_pending", "resolve_command"))


def _answer(value: str) -> bool:
    word = value.strip().casefold()
    if word in {"yes", "y"}:
        return True
    if word in {"no", "n"}:
        return False
    raise argparse.ArgumentTypeError(f"answer yes or no (got {value!r})")
