"""What every ``kith graph`` command shares: opening the save, naming nodes, printing JSON.

Each command is an ``async`` function run by ``asyncio.run`` in its handler, so a save is always closed
(even on error) before the process exits.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.errors import InputError, SaveError
from game.options import add_json_option as add_json_option  # shared with the features' commands
from game.options import add_save_option as add_save_option
from game.options import non_negative as non_negative
from game.store.saves import resolve_save
from game.text import strip_control

if TYPE_CHECKING:
    from game.config import Settings
    from game.graph.models import Node
    from game.store.database import SaveDatabase, Seed

# Building ``kith graph``'s parser imports this module and no command's: each command's module (and the
# store, pydantic and asyncio behind it) loads when that command runs, so ``kith graph dump`` pays for
# what dump uses (issue 15).

Command = Callable[[argparse.Namespace, "Settings"], Coroutine[Any, Any, int]]


def handler(module: str, name: str) -> Callable[[argparse.Namespace, Settings], int]:
    """A synchronous CLI handler around the async command ``game.cli.MODULE.NAME``, imported when run."""

    def run(args: argparse.Namespace, settings: Settings) -> int:
        import asyncio

        command: Command = getattr(importlib.import_module(f"game.cli.{module}"), name)
        return asyncio.run(command(args, settings))

    run.__name__ = name
    return run


def save_path(args: argparse.Namespace, settings: Settings) -> Path:
    """The file ``--save`` means; a malformed name is refused before anything is touched."""
    return resolve_save(args.save, settings.saves_dir)


@asynccontextmanager
async def open_save(args: argparse.Namespace, settings: Settings, *, create: bool = False,
                    seed: Seed | None = None) -> AsyncIterator[SaveDatabase]:
    """The save ``--save`` names, opened (and created only when ``create``, filled by ``seed`` before it
    gets its name), always closed after."""
    from game.registry import default_registry
    from game.store.database import SaveDatabase

    path = save_path(args, settings)
    try:
        db = await SaveDatabase.open(path, schema=default_registry().schema(), create=create, seed=seed)
    except sqlite3.Error as error:
        raise SaveError(f"{path.name} could not be opened: {error}") from error
    try:
        yield db
    except sqlite3.OperationalError as error:
        # A locked or read-only file is the usual cause; nothing was committed.
        raise SaveError(f"{path.name}: {error}; nothing was written") from error
    finally:
        await db.close()


async def find_node(db: SaveDatabase, value: str) -> Node:
    """The one node a name, alias or node ID means (``resolve_name``); ambiguity and absence are refused."""
    from game.graph.names import resolve_name
    from game.store.database import node_by_name

    candidates = [*(await db.graph.get_nodes([value])).values(), *await node_by_name(db, value)]
    match = resolve_name(value, candidates, by_id=True)
    if match.ambiguous:
        options = ", ".join(f"{n.id} ({n.name})" for n in match.tied)
        raise InputError(strip_control(f"{value!r} names several nodes: {options}; use an ID instead"))
    if match.node is None:
        raise InputError(f"there is no node named {value!r} in {db.name} (names, aliases and IDs are accepted)")
    return match.node


PLAYER_WORD = "player"
"""How commands name the player character, whatever the player is called in the world."""


async def find_knower(db: SaveDatabase, value: str) -> Node:
    """Like ``find_node``, and ``player`` means the player character when no node is called that."""
    from game.graph.names import normalize_name
    from game.store.database import node_by_name

    if normalize_name(value) == PLAYER_WORD and not await node_by_name(db, value):
        players = await db.graph.player_nodes()
        if len(players) == 1:
            return players[0]
        if not players:
            raise InputError(f"{db.name} has no player character (a graph made with kith graph has none); "
                             "name a character instead")
    node = await find_node(db, value)
    if node.type != "individual":
        raise InputError(f"{node.name} is a {node.type}: only individuals know things (name one of its members)")
    return node


# Characters ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal may act on: DEL, the 8-bit C1
# controls (0x9b is a whole CSI introducer), line separators and bidirectional overrides. Below 0x20
# json already writes \u escapes.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def print_json(data: Any) -> None:
    """Stable machine output: two-space indent, non-ASCII kept as is (CJK names stay readable).

    Characters a terminal could act on are written as JSON ``\\u`` escapes (four hex digits): the same
    JSON value for a program reading it, nothing for a terminal showing it to interpret.
    """
    text = json.dumps(data, ensure_ascii=False, indent=2)
    print(_UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def print_text(text: str) -> None:
    """Human-readable output: names, summaries and facts come from models and files, so every escape
    sequence and control character is removed before it reaches the terminal (``strip_control``)."""
    print(strip_control(text))


def node_ref(node: Node) -> dict[str, str]:
    """A node in short form, for lists where the whole node would be noise."""
    return {"id": node.id, "name": node.name, "type": node.type}


def add_always_json_option(parser: argparse.ArgumentParser) -> None:
    """Accepted for symmetry with the other commands: this command's output is always JSON."""
    parser.add_argument("--json", action="store_true", help="accepted; the output is always JSON")


def positive(value: str) -> int:
    number = non_negative(value)
    if number == 0:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number
