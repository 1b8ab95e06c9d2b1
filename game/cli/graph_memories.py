"""``kith graph memories``: what one NPC remembers of the player in a save, newest and strongest first.

``--json`` prints a list of exactly ``{"kind", "text", "turn", "importance", "valence", "tags",
"strength"}`` per memory (strength as of the save's current turn: decay is computed when read).
"""

from __future__ import annotations

import argparse

from game.cli.graph_common import (
    find_node,
    open_save,
    print_json,
    print_text,
)
from game.config import Settings
from game.engine.tuning import memory_settings
from game.errors import InputError
from game.features.memories.render import render_memories
from game.features.memories.store import load_memory_book


async def memories_command(args: argparse.Namespace, settings: Settings) -> int:
    rules = memory_settings(settings)
    async with open_save(args, settings) as db:
        node = await find_node(db, args.name)
        if node.type != "individual":
            raise InputError(f"{node.name} is a {node.type}: only individuals remember (name one of its members)")
        book = await load_memory_book(db, rules)
        turn = await db.current_turn()
    ranked = book.ranked(node.id, turn)
    if args.json:
        print_json([m.to_json(turn, rules) for m in ranked])
    else:
        print_text(render_memories(node.name, ranked, turn, rules, limit=None))
    return 0
