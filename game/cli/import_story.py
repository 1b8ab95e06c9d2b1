"""``kith import-story``: a save built from a plain-text or Markdown story, read by the fast path.

The file is read whole and checked first (size, binary, UTF-8, empty), so a bad file is refused before
anything is created; the save itself is built under a temporary name and appears only when every turn
is stored. Afterwards the command offers enrichment (the ``kith graph enrich`` line to run), or runs it
with ``--enrich``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from game.cli.graph_common import print_json, print_text
from game.config import Settings
from game.errors import InputError, SaveError
from game.store.saves import resolve_save, validate_save_name

if TYPE_CHECKING:
    from game.engine.enrich_import import StoryCast

READ_LIMIT = 2_000_001
"""Bytes read at most: one more than a story may hold, so a bigger file is refused without reading it all."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from game.cli.doctor import llm_flag_arguments, llm_settings_flags

    parser = subparsers.add_parser(
        "import-story", help="build a save from a plain-text or Markdown story (fast path, enrich later)",
        description="Build a new save from FILE: one turn per paragraph, or, when the story has '>' command "
                    "lines, one turn per command with the paragraphs after it as its narration. Relations "
                    "the text plainly states are read without a model (the fast path); the turns then wait "
                    "for a model (kith graph enrich, or --enrich here). People: the world's characters with "
                    "--world; else the story starts from an empty cast (a reader as the player, the default world's "
                    "places, nobody else) and its people are read from the text, with questions of identity where two "
                    "names may be one person. A bad file "
                    "(binary, empty, not UTF-8, over 2 MB) is refused and no save is created. Exit 0, 2 "
                    "for a refused file or an existing save.",
    )
    parser.add_argument("--save", required=True, metavar="S", help="the new save's name (letters, digits, '-', '_')")
    parser.add_argument("--world", metavar="W", help="the world whose characters the story is about (its names are the cast); without it the cast is "
                             "only the people the story names")
    parser.add_argument("--enrich", action="store_true", help="run kith graph enrich on the new save afterwards")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts instead of text")
    llm_flag_arguments(parser, record=False)
    parser.add_argument("file", metavar="FILE|-", help="a .txt or .md story, or - for standard input")
    parser.set_defaults(handler=run_import, settings_flags=llm_settings_flags)


def read_story_bytes(source: str) -> tuple[bytes, str]:
    """At most ``READ_LIMIT`` bytes of ``source`` (a file, or ``-`` for standard input) and its label."""
    if source == "-":
        return sys.stdin.buffer.read(READ_LIMIT), "standard input"
    path = Path(source)
    try:
        with path.open("rb") as handle:
            return handle.read(READ_LIMIT), source
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{source} is a folder, not a file") from None
    except OSError as error:
        raise InputError(f"{source} cannot be read: {error.strerror}") from error


def _cast(without_world: bool) -> StoryCast | None:
    """Who the story's people are, read from its text, when it has no world of its own."""
    if not without_world:
        return None
    from game.features.identity.story_cast import add_story_people

    return add_story_people


def run_import(args: argparse.Namespace, settings: Settings) -> int:
    from game.engine.enrich_import import decode_story, import_story, split_story
    from game.engine.opening import choose_world_id
    from game.world import load_world

    name = validate_save_name(args.save)
    path = resolve_save(name, settings.saves_dir)
    if path.exists() or path.is_symlink():
        raise SaveError(f"a save named {name!r} already exists; import into a new name")
    data, label = read_story_bytes(args.file)
    turns = split_story(decode_story(data, label))
    if not turns:
        raise InputError(f"{label} has no paragraph of story to import")
    world = load_world(settings.content_dir, choose_world_id(settings, args.world))
    settings.saves_dir.mkdir(parents=True, exist_ok=True)
    imported = asyncio.run(import_story(settings, path, world, turns, cast=_cast(args.world is None)))
    command = f"kith graph enrich --save {imported.save}"
    if args.json:
        print_json({"save": imported.save, "world": imported.world, "turns": imported.turns,
                    "relations": imported.relations, "people": imported.people, "questions": imported.questions, "enrich": command})
    else:
        found = f", {len(imported.people)} people found in the text ({', '.join(imported.people)})" if imported.people else ""
        where = f"world {imported.world}" if args.world else f"its own cast, on {imported.world}'s places"
        print_text(f"Imported {imported.turns} turn(s) into {imported.save} ({where}): "
                   f"{imported.relations} relation(s) read without a model{found}.")
        if imported.questions:
            print_text(f"{len(imported.questions)} question(s) of identity wait for an answer "
                       f"(kith graph pending --save {imported.save}; kith graph resolve to answer): "
                       + " ".join(imported.questions))
        if not args.enrich:
            print_text(f"A model can read the turns again and replace those relations with its own: {command}")
    if args.enrich:
        from game.cli.graph_enrich import enrich_command

        enrich_args = argparse.Namespace(save=imported.save, json=False)
        sys.stdout.flush()
        return asyncio.run(enrich_command(enrich_args, settings))
    return 0
