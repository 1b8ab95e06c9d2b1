"""``kith graph deeds`` and ``kith graph knows NAME --deeds``: the deeds feature's rows, read from a save."""

from __future__ import annotations

import argparse

from game.cli.graph_common import find_knower, open_save, print_json, print_text
from game.config import Settings
from game.engine.feature_steps import load_states, owned_tables
from game.features.deeds.commands import deeds_json, deeds_text, known_json, known_text
from game.features.deeds.model import DeedBook
from game.store.damage import damaged
from game.store.database import SaveDatabase


async def _book(db: SaveDatabase) -> tuple[DeedBook, dict[str, str]]:
    try:
        states = load_states({table: await db.read_rows(table) for table in owned_tables()})
    except (ValueError, TypeError, KeyError) as error:  # a row written by hand or half-damaged: say so
        raise damaged(db.name, error) from error
    book = states.get("deeds")
    book = book if isinstance(book, DeedBook) else DeedBook()
    people = {d.actor for d in book.deeds.values()} | {d.target for d in book.deeds.values()}
    people |= {w for d in book.deeds.values() for w in d.witnesses}
    people |= {k.source for k in book.knowings.values() if k.source}
    names = {node_id: node.name for node_id, node in (await db.graph.get_nodes(people)).items()}
    return book, names


async def deeds_command(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        actor = None if args.actor is None else (await find_knower(db, args.actor)).id
        target = None if args.target is None else (await find_knower(db, args.target)).id
        book, names = await _book(db)
    found = deeds_json(book, names, actor, target)
    if args.json:
        print_json(found)
    else:
        print_text(deeds_text(found))
    return 0


async def knows_deeds(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        knower = await find_knower(db, args.name)
        book, names = await _book(db)
    known = known_json(book, knower.id, names)
    if args.json:
        print_json(known)
    else:
        print_text(known_text(knower.name, known))
    return 0
