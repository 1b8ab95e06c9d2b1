"""``kith graph dump`` and ``kith graph retrieve`` on the quick path: the save read with plain sqlite3
(``game.store.graph_view``), retrieval run without an event loop, JSON printed from plain records.

These two are what scripts call in a loop, one process each, and their work is a query or two; loading
pydantic, asyncio and aiosqlite cost them ten times that (issue 15). The output is the same JSON as the
full path's, which still serves the cases this one leaves to it: a save older than this code (opening
migrates it), ``retrieve --as`` (finding a knower uses the store's name lookups), and settings that set
more than folders (validated first, then read here all the same).

This module also builds the ``graph`` parser's head and these two actions: ``kith graph dump`` and
``retrieve`` build theirs from here alone (``game.__main__``), not from ``game.cli.graph``, whose other
actions' modules would cost them a third of their floor to import and parse for nothing.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from game.cli.graph_common import add_always_json_option, add_save_option, print_json
from game.registry import builtin_schema
from game.store.graph_view import GraphView, finish
from game.store.saves import resolve_save

if TYPE_CHECKING:
    from pathlib import Path

    from game.config import Settings
    from game.graph.ports import GraphReader
    from game.graph.retrieve import RetrievalSettings
    from game.settings_source import SettingsSource


QUICK_ACTIONS = ("dump", "retrieve")
"""The ``kith graph`` actions whose parser this module builds alone (``add_parser``)."""


def add_graph_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
                     ) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """The ``graph`` command's parser, without actions: the one head for the full and the quick parser."""
    parser = subparsers.add_parser(
        "graph", help="inspect and edit a save's relationship graph",
        description="Read and write a save's relationship graph. JSON forms are documented in docs/graph-cli.md.",
    )
    return parser.add_subparsers(dest="graph_action", metavar="ACTION", required=True)


def add_quick_actions(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``graph dump`` and ``graph retrieve``."""
    dump = actions.add_parser("dump", help="every node and every edge version, as JSON")
    add_save_option(dump)
    add_always_json_option(dump)
    dump.set_defaults(handler=dump_command, quick_handler=quick_dump)

    retrieve = actions.add_parser(
        "retrieve", help="the npcContext a turn with MESSAGE would get, as JSON",
        description="Run pre-turn retrieval for MESSAGE (seeds from the names it mentions, else from --cast).",
    )
    add_save_option(retrieve)
    add_always_json_option(retrieve)
    retrieve.add_argument("--cast", action="append", metavar="NAME", help="a character on stage (repeatable)")
    retrieve.add_argument("--as", dest="as_name", metavar="NAME",
                          help="only the relations NAME knows (confidence 0.3 or more); 'player' is the player")
    retrieve.add_argument("message", nargs="+", metavar="MESSAGE", help="the player's message")
    retrieve.set_defaults(handler=retrieve_command, quick_handler=quick_retrieve)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``kith graph`` with only the quick actions: what ``kith graph dump`` and ``retrieve`` parse with.
    Their options, help and errors are the full parser's (the same functions build both)."""
    add_quick_actions(add_graph_parser(subparsers))


def dump_view(args: argparse.Namespace, saves_dir: Path) -> int | None:
    """Every node and edge version as JSON; None when the save needs the full open."""
    # The schema from the features' migrations alone: their rules would cost these reads their floor.
    view = GraphView.open(resolve_save(args.save, saves_dir), builtin_schema())
    if view is None:
        return None
    with view:
        nodes, edges = finish(view.all_nodes()), finish(view.all_edges())
    print_json({"nodes": [n.to_json_dict() for n in nodes], "edges": [e.to_json_dict() for e in edges]})
    return 0


def retrieve_view(args: argparse.Namespace, saves_dir: Path, budget: RetrievalSettings) -> int | None:
    """The npcContext a turn with MESSAGE would get, as JSON; None when the full path must answer."""
    from game.graph.retrieve import retrieve

    if args.as_name is not None:
        return None
    # The schema from the features' migrations alone: their rules would cost these reads their floor.
    view = GraphView.open(resolve_save(args.save, saves_dir), builtin_schema())
    if view is None:
        return None
    with view:
        # The records carry every field and property retrieval reads from a Node or an Edge (the tests
        # hold the result equal to the full path's), so the view stands in for a GraphReader.
        reader: GraphReader = view  # type: ignore[assignment]
        budget = with_world_patterns(budget, view.meta_value("metapaths"))
        found = finish(retrieve(reader, " ".join(args.message), args.cast or [], budget))
    print_json({
        "npcContext": found.npc_context,
        "seedNodes": [n.to_json_dict() for n in found.seed_nodes],
        "matchedNodes": [n.to_json_dict() for n in found.matched_nodes],
        "edgeCount": found.edge_count,
    })
    return 0


def _budget(settings: Settings) -> RetrievalSettings:
    from game.graph.metapaths import active_patterns
    from game.graph.retrieve import RetrievalSettings

    config = settings.retrieval
    return RetrievalSettings(max_hops=config.max_hops, hub_threshold=config.hub_threshold,
                             max_fanout=config.max_fanout, limit=config.limit,
                             patterns=active_patterns(config.metapaths))


def with_world_patterns(budget: RetrievalSettings, stored: str | None) -> RetrievalSettings:
    """The budget with the world's meta-paths the save keeps (meta ``metapaths``), when meta-paths are on."""
    from game.graph.metapaths import combine, patterns_from_json

    world = patterns_from_json(stored)
    return budget._replace(patterns=combine(budget.patterns, world)) if budget.patterns and world else budget


def _full(args: argparse.Namespace, settings: Settings, name: str) -> int:
    from game.cli.graph_common import handler

    return handler("graph_read", name)(args, settings)


def dump_command(args: argparse.Namespace, settings: Settings) -> int:
    """``graph dump`` with validated settings."""
    code = dump_view(args, settings.saves_dir)
    return _full(args, settings, "dump") if code is None else code


def retrieve_command(args: argparse.Namespace, settings: Settings) -> int:
    """``graph retrieve`` with validated settings (the retrieval budget may be set in kith.toml)."""
    if settings.retrieval.discovered_patterns and settings.retrieval.metapaths:
        return _full(args, settings, "retrieve_command")  # the save's table is read by the full path
    code = retrieve_view(args, settings.saves_dir, _budget(settings))
    return _full(args, settings, "retrieve_command") if code is None else code


def _validated(source: SettingsSource) -> Settings:
    from game.config import validate_settings

    return validate_settings(source)


def quick_dump(args: argparse.Namespace, source: SettingsSource) -> int:
    """``graph dump`` when the settings name only folders: nothing to validate."""
    folders = source.folders()
    assert folders is not None  # the dispatcher calls a quick handler only then
    code = dump_view(args, folders.saves_dir)
    return _full(args, _validated(source), "dump") if code is None else code


def quick_retrieve(args: argparse.Namespace, source: SettingsSource) -> int:
    """``graph retrieve`` when the settings name only folders: the default budget (``[retrieval]`` unset)."""
    folders = source.folders()
    assert folders is not None
    from game.graph.retrieve import RetrievalSettings

    code = retrieve_view(args, folders.saves_dir, RetrievalSettings())
    return _full(args, _validated(source), "retrieve_command") if code is None else code
