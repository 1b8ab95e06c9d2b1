"""``kith graph``: the relationship graph of a save, for authors and debuggers.

The JSON forms are a contract other tools rely on (see ``docs/graph-cli.md``). Every subcommand takes
``--save S``; ``upsert`` and ``import`` create a missing save, every other command refuses one.
"""

from __future__ import annotations

import argparse

from game.cli import graph_quick
from game.cli.graph_common import (
    add_always_json_option,
    add_json_option,
    add_save_option,
    handler,
    non_negative,
    positive,
)
from game.cli.graph_enrich import add_enrich_parsers
from game.cli.graph_extract import add_extract_parser
from game.cli.graph_gaps import add_gaps_parser
from game.cli.graph_map import add_map_parsers
from game.cli.graph_patterns import add_patterns_parser
from game.registry import default_registry


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    actions = graph_quick.add_graph_parser(subparsers)

    upsert = actions.add_parser(
        "upsert", help="apply upsert calls from a JSON file (one call or a list) as one execution",
        description="Run one upsert call, or a JSON list of calls, as one execution at one turn, committed "
                    "once. Prints one result per call. Exit 0 if no call was rejected, 1 otherwise, 2 for "
                    "unreadable input (nothing written).",
    )
    add_save_option(upsert)
    add_always_json_option(upsert)
    upsert.add_argument("--turn", type=non_negative, help="the turn to record (default: the save's current turn)")
    upsert.add_argument("--identity", action="store_true",
                        help="judge a new name as the game does: a sure match is that person, an unsure one a "
                             "new node and a question for `kith graph pending`")
    upsert.add_argument("file", metavar="FILE|-", help="a JSON file, or - for standard input")
    upsert.set_defaults(handler=handler("graph_write", "upsert"))

    bulk = actions.add_parser(
        "import", help="bulk-load a JSON Lines file: one upsert call with a \"turn\" per line",
        description="Load one upsert call per line, each with its own \"turn\" field, in one transaction. "
                    "Rejected lines are reported with their numbers (exit 1); a line that is not JSON at all "
                    "stops the import before anything is written (exit 2).",
    )
    add_save_option(bulk)
    add_json_option(bulk)
    bulk.add_argument("file", metavar="FILE.jsonl", help="a JSON Lines file, or - for standard input")
    bulk.set_defaults(handler=handler("graph_write", "import_command"))

    graph_quick.add_quick_actions(actions)

    stats = actions.add_parser(
        "stats", help="counts, degree distribution, top hubs, out-of-vocabulary share, merges")
    add_save_option(stats)
    add_json_option(stats)
    stats.set_defaults(handler=handler("graph_read", "stats"))

    node = actions.add_parser("node", help="one node: its fields, open relations and closed versions")
    add_save_option(node)
    add_json_option(node)
    node.add_argument("name", metavar="NAME", help="a name, alias or node ID")
    node.set_defaults(handler=handler("graph_read", "node_command"))

    near = actions.add_parser("neighbours", aliases=["neighbors"],
                              help="paths to every node within N hops over open relations")
    add_save_option(near)
    add_json_option(near)
    near.add_argument("name", metavar="NAME", help="a name, alias or node ID")
    near.add_argument("--hops", type=positive, default=2, help="how far to walk (default 2)")
    near.add_argument("--limit", type=positive, default=200, help="at most this many paths (default 200)")
    near.set_defaults(handler=handler("graph_read", "neighbours"))

    path = actions.add_parser("path", help="the shortest path between two nodes over open relations")
    add_save_option(path)
    add_json_option(path)
    path.add_argument("a", metavar="A")
    path.add_argument("b", metavar="B")
    path.set_defaults(handler=handler("graph_read", "path_command"))

    history = actions.add_parser("history", help="every version of every relation between two nodes")
    add_save_option(history)
    add_json_option(history)
    history.add_argument("a", metavar="A")
    history.add_argument("b", metavar="B")
    history.set_defaults(handler=handler("graph_read", "history"))

    merge = actions.add_parser(
        "merge", help="fold MERGED into KEEP: names become aliases, edges re-pointed, merge logged",
    )
    add_save_option(merge)
    add_json_option(merge)
    merge.add_argument("keep", metavar="KEEP")
    merge.add_argument("merged", metavar="MERGED")
    merge.add_argument("--evidence", default="kith graph merge", metavar="TEXT",
                       help="why the two are one (kept in the merge log)")
    merge.set_defaults(handler=handler("graph_write", "merge"))

    alias = actions.add_parser("alias", help="declare another name for a node")
    add_save_option(alias)
    add_json_option(alias)
    alias.add_argument("name", metavar="NAME")
    alias.add_argument("alias", metavar="ALIAS")
    alias.set_defaults(handler=handler("graph_write", "alias"))

    add_map_parsers(actions)
    add_extract_parser(actions)
    add_enrich_parsers(actions)
    default_registry().add_graph_commands(actions, handler)
    add_patterns_parser(actions)
    add_gaps_parser(actions)
