"""``kith graph gaps``: people the story has let drop, as threads to pick up (``game.graph.metapaths_gaps``).

A person (an individual, not the player) is listed when they have at most ``--few`` open relations or
none of their open relations is newer than ``--quiet`` turns before the save's latest turn. Read-only.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from game.cli.graph_common import (
    add_json_option,
    add_save_option,
    handler,
    non_negative,
    open_save,
    print_json,
    print_text,
)

if TYPE_CHECKING:
    from game.config import Settings
    from game.graph.metapaths_gaps import Gap
    from game.graph.models import Edge

# game.graph.metapaths_gaps's defaults, written out so building the parser loads no graph module
# (``kith graph dump`` starts on the quick path); a test holds them equal.
FEW_RELATIONS = 1
QUIET_TURNS = 10


def add_gaps_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gaps = actions.add_parser(
        "gaps", help="people with few relations, or none learned for many turns",
        description="List the people (not the player) with few open relations or none learned for many "
                    "turns: the quietest first. Read-only.",
    )
    add_save_option(gaps)
    add_json_option(gaps)
    gaps.add_argument("--few", type=non_negative, default=FEW_RELATIONS, metavar="N",
                      help=f"at most N open relations counts as few (default {FEW_RELATIONS})")
    gaps.add_argument("--quiet", type=non_negative, default=QUIET_TURNS, metavar="T",
                      help=f"no relation newer than T turns counts as quiet (default {QUIET_TURNS})")
    gaps.set_defaults(handler=handler("graph_gaps", "gaps_command"))


async def gaps_command(args: argparse.Namespace, settings: Settings) -> int:
    from game.graph.metapaths_gaps import find_gaps
    from game.graph.retrieve import newest_per_relation
    from game.store import turn_log

    async with open_save(args, settings) as db:
        nodes = await db.graph.all_nodes()
        edges = newest_per_relation(await db.graph.all_edges())
        turn = await turn_log.latest_turn(db)
    by_node: dict[str, list[Edge]] = {}
    for edge in edges:
        by_node.setdefault(edge.source, []).append(edge)
        by_node.setdefault(edge.target, []).append(edge)
    gaps = find_gaps(nodes, by_node, turn, few=args.few, quiet=args.quiet)
    if args.json:
        print_json({"turn": turn, "gaps": [gap.to_json_dict() for gap in gaps]})
    else:
        print_text(_text(gaps, turn))
    return 0


def _text(gaps: list[Gap], turn: int) -> str:
    if not gaps:
        return f"No gaps at turn {turn}: everyone has relations, and something new within the quiet limit."
    lines = [f"Gaps at turn {turn} (quietest first):"]
    for gap in gaps:
        relations = "no relations" if gap.relations == 0 else f"{gap.relations} relation{'s' * (gap.relations != 1)}"
        lines.append(f"  {gap.name}: {relations}, nothing new for {gap.quiet_turns} turn{'s' * (gap.quiet_turns != 1)} "
                     f"(last at turn {gap.last_learned}) [{', '.join(gap.reasons)}]")
    return "\n".join(lines)
