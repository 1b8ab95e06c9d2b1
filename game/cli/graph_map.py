"""``kith graph map``: the relationship map as text."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from game.cli.graph_common import open_save, positive
from game.errors import SaveError

if TYPE_CHECKING:
    from game.config import Settings
    from game.graph.map.known import KnownView
    from game.graph.models import Edge, Node
    from game.store.database import SaveDatabase

PLAYER_WORD = "player"
"""``--as player``: the player character, whatever the world calls them."""

DEFAULT_SIZE = (100, 30)
MAX_COLUMNS = 1000
MAX_ROWS = 1000
"""The map is a grid of cells held in memory; 1000x1000 is far past any terminal and still a few
megabytes, where 100000x100000 would be ten billion cells (a MemoryError, not a map)."""


def _bounded(limit: int, unit: str) -> Callable[[str], int]:
    def parse(value: str) -> int:
        number = positive(value)
        if number > limit:
            raise argparse.ArgumentTypeError(f"at most {limit} {unit} (got {number})")
        return number

    parse.__name__ = unit  # argparse names the type in its messages
    return parse


def _size(args: argparse.Namespace) -> tuple[int, int]:
    """``--width``/``--height`` if given, else the terminal's size on a terminal, else 100x30."""
    if sys.stdout.isatty():
        columns, lines = shutil.get_terminal_size(DEFAULT_SIZE)
        default = (columns, max(10, lines - 2))
    else:
        default = DEFAULT_SIZE
    return min(args.width or default[0], MAX_COLUMNS), min(args.height or default[1], MAX_ROWS)


def _stage_ids(nodes: Sequence[Node], cast: Sequence[str]) -> list[str]:
    """The nodes the scene's cast names (by name or alias; a name that matches none is skipped)."""
    from game.graph.names import resolve_name

    found: list[str] = []
    for name in cast:
        match = resolve_name(name, nodes, by_id=True)
        if match.node is not None and not match.ambiguous:
            found.append(match.node.id)
    return found


async def _view(args: argparse.Namespace, db: SaveDatabase,
                edges: list[Edge]) -> tuple[KnownView | None, list[str]]:
    """Whose knowledge the map shows (``--all`` everything, ``--as NAME`` that person's, else the player's;
    a save with no player, or from before the player's knowledge was kept, shows everything), and who is
    on stage at the turn shown (``--at``, else the current one): the scene view's centre."""
    from pydantic import ValidationError

    from game.engine.player_view import npc_view, player_view
    from game.graph.map import focus_node
    from game.graph.names import normalize_name
    from game.store import turn_log
    from game.world.scene import SceneState

    now = await db.current_turn()
    shown = await turn_log.scene_at(db, min(args.at, now)) if args.at is not None else None  # that turn's stage
    raw = await turn_log.scene_at(db, now)
    try:
        scene = SceneState.model_validate(raw) if raw is not None else None
    except ValidationError as error:
        if args.all:
            return None, []
        raise SaveError(f"{db.name}: its scene no longer reads ({error.error_count()} problems); "
                        "use --all to draw the whole graph") from error
    cast = list(scene.cast) if scene is not None else []
    if shown is not None and isinstance(shown.get("cast"), list):
        cast = [str(name) for name in shown["cast"]]
    if args.all:
        return None, cast
    graph = await db.load_graph_index()
    if args.as_name is None or normalize_name(args.as_name) == PLAYER_WORD:
        return player_view(None, scene, graph), cast
    knower = focus_node(list(graph.nodes.values()), args.as_name)
    return npc_view(graph, knower.id, edges), cast


async def map_command(args: argparse.Namespace, settings: Settings) -> int:
    from game.engine.player_view import layout_graph
    from game.graph.map import compute_layout, render_map
    from game.graph.map.known import known_graph
    from game.store import layout

    async with open_save(args, settings) as db:
        nodes = await db.graph.all_nodes()
        edges = await db.graph.all_edges()
        positions = await layout.load_layout(db)
        if any(node.id not in positions for node in nodes):
            # A save the pane never drew (``kith run``, ``kith graph import``) keeps no layout: laid out as
            # the pane lays it out when it opens the save, so both draw the same map.
            positions = compute_layout(*layout_graph(await db.load_graph_index()), positions)
        view, cast = await _view(args, db, edges)
    nodes, edges = known_graph(nodes, edges, view)
    width, height = _size(args)
    drawing = render_map(nodes, edges, width, height, positions, focus=args.focus, show_closed=args.closed,
                         at_turn=args.at, view=args.view, stage=_stage_ids(nodes, cast))
    if args.json:
        from game.cli.graph_common import print_json
        from game.graph.map.geometry import geometry

        print_json(geometry(drawing))
        return 0
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    # Names were made safe where the map lays them out; the colours here are the map's own escapes.
    print(drawing.ansi() if colour else drawing.plain())
    return 0


def add_map_parsers(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from game.cli.graph_common import add_save_option, handler, non_negative
    from game.graph.map.view import VIEWS

    drawn = actions.add_parser(
        "map", help="the relationship map as text (ANSI colour on a terminal)",
        description="Draw the save's relationship map, as the game's map pane does: by default only what "
                    "the player knows (a save with no player: everything).",
    )
    add_save_option(drawn)
    drawn.add_argument("--width", type=_bounded(MAX_COLUMNS, "columns"),
                       help=f"columns, at most {MAX_COLUMNS} (default: the terminal's, else 100)")
    drawn.add_argument("--height", type=_bounded(MAX_ROWS, "rows"),
                       help=f"rows, at most {MAX_ROWS} (default: the terminal's, else 30)")
    drawn.add_argument("--at", type=non_negative, metavar="TURN", help="the map as it stood after TURN")
    drawn.add_argument("--focus", metavar="NAME", help="the selected person: the person view's centre, added to "
                       "the scene view's stage, the everyone view's neighbourhood")
    drawn.add_argument("--closed", action="store_true", help="also draw ended relations (dashed, dim)")
    drawn.add_argument("--view", choices=list(VIEWS), default="scene",
                       help="scene: who is on stage (and --focus) with their ties, the rest as a roster; "
                            "person: --focus (or the best-connected) and every relation of theirs; "
                            "everyone: the whole cast (default: scene)")
    drawn.add_argument("--json", action="store_true",
                       help="the drawing's geometry as JSON (names, line cells, labels; docs/graph-cli.md)")
    whose = drawn.add_mutually_exclusive_group()
    whose.add_argument("--as", dest="as_name", metavar="NAME",
                       help="what NAME knows: their relations and the people in them ('player': the player)")
    whose.add_argument("--all", action="store_true",
                       help="everything in the save, for authors (default: what the player knows)")
    drawn.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                       help="ANSI colour: on a terminal (auto), always or never")
    drawn.set_defaults(handler=handler("graph_map", "map_command"))
