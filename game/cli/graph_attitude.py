"""``kith graph attitude --save S NAME [--json]``: how one person regards the player, and how it got so.

Prints trust, respect and friendliness (each in [-100, 100]), the disposition, the tier, and the history:
one entry per change, with the values after it, its turn and its reason. Someone whose attitude never
changed shows what their relations toward the player imply, with an empty history (docs/graph-cli.md).
"""

from __future__ import annotations

import argparse
from typing import Any

from game.cli.graph_common import (
    find_node,
    open_save,
    print_json,
    print_text,
)
from game.config import Settings
from game.errors import KithError
from game.features.attitudes.model import TABLE, Attitude, AttitudeBook
from game.features.attitudes.relationship import describe
from game.store.damage import reading


async def attitude_command(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        node = await find_node(db, args.name)
        graph = await db.load_graph_index(lazy=False)  # read after the save is closed
        with reading(db.name):  # a row that does not decode is the damaged-save message, not a traceback
            book = AttitudeBook.from_rows(await db.read_rows(TABLE))
    if node.type != "individual" or node.id in graph.player_ids:
        raise KithError(f"{node.name} is not a person with an attitude toward the player", title="Attitude")
    attitude = book.of(graph, node)
    if args.json:
        print_json(attitude_json(attitude))
    else:
        print_text(describe(attitude).replace("**", ""))
    return 0


def attitude_json(attitude: Attitude) -> dict[str, Any]:
    """The contract shape (docs/graph-cli.md, "attitude")."""
    return {
        "name": attitude.name, "trust": attitude.trust, "respect": attitude.respect,
        "friendliness": attitude.friendliness, "disposition": attitude.disposition, "tier": attitude.tier,
        "history": [change.to_json_dict() for change in attitude.history],
    }
