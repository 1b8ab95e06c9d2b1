"""``kith saves``: list, delete, copy and check the save files in the saves folder."""

from __future__ import annotations

import argparse
import json
from datetime import datetime

from game.config import Settings
from game.registry import builtin_schema, default_registry
from game.store.check import Models, check_save
from game.store.saves import SaveInfo, copy_save, delete_save, list_saves, resolve_save, validate_save_name


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "saves", help="list, delete, copy or check saves",
        description="Saves live in the saves folder (--saves-dir, KITH_SAVES or saves_dir in kith.toml).",
    )
    actions = parser.add_subparsers(dest="saves_action", metavar="ACTION")
    listing = actions.add_parser("list", help="every save: name, world, turns, last played, size")
    listing.add_argument("--json", action="store_true", help="print a JSON array for scripts")
    listing.set_defaults(handler=run_list)
    delete = actions.add_parser("delete", help="delete a save (only Kith saves are deleted)")
    delete.add_argument("name", metavar="NAME")
    delete.set_defaults(handler=run_delete)
    copy = actions.add_parser("copy", help="copy save A to a new save B (never overwrites)")
    copy.add_argument("source", metavar="A")
    copy.add_argument("destination", metavar="B")
    copy.set_defaults(handler=run_copy)
    check = actions.add_parser("check", help="check a save for damage: prints ok or the problems (exit 0 or 1)")
    check.add_argument("name", metavar="NAME")
    check.set_defaults(handler=run_check)
    salvage = actions.add_parser("salvage", help="copy what can be read of a damaged save NAME into a new save NEW")
    salvage.add_argument("name", metavar="NAME")
    salvage.add_argument("new", metavar="NEW")
    salvage.set_defaults(handler=run_salvage)
    # ``kith saves`` alone lists, as the most common thing to want.
    parser.set_defaults(handler=run_list, json=False)


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024 or unit == "MB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover - the loop always returns


def local_time(stamp: str | None) -> str:
    """``2026-11-29T13:05:00+00:00`` as ``2026-11-29 14:05`` in the player's time zone."""
    if not stamp:
        return "-"
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return stamp


def format_table(saves: list[SaveInfo]) -> str:
    header = ("NAME", "WORLD", "TURNS", "LAST PLAYED", "SIZE")
    rows = [
        (s.name, s.world or "?", (f"{s.turns} ({s.fast} fast)" if s.fast else str(s.turns)) if s.error is None else "-",
         local_time(s.last_played),
         human_size(s.size))
        for s in saves
    ]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    right = {2, 4}

    def line(row: tuple[str, ...]) -> str:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        return "  ".join(cells).rstrip()

    out = [line(header)]
    for save, row in zip(saves, rows, strict=True):
        out.append(line(row) + (f"  ({save.error})" if save.error else ""))
    return "\n".join(out)


def run_list(args: argparse.Namespace, settings: Settings) -> int:
    saves = list_saves(settings.saves_dir, builtin_schema())
    if getattr(args, "json", False):
        print(json.dumps([s.to_json_dict() for s in saves], indent=2))
    elif not saves:
        print(f"No saves in {settings.saves_dir}. Start one with: kith play")
    else:
        print(format_table(saves))
    return 0


def run_delete(args: argparse.Namespace, settings: Settings) -> int:
    path = delete_save(validate_save_name(args.name), settings.saves_dir, builtin_schema())
    print(f"Deleted {path.stem} ({path}).")
    return 0


def run_copy(args: argparse.Namespace, settings: Settings) -> int:
    # Names only: these commands manage the saves folder, and a name can never reach outside it.
    source = validate_save_name(args.source)
    path = copy_save(source, validate_save_name(args.destination), settings.saves_dir, builtin_schema())
    print(f"Copied {args.source} to {path.stem} ({path}).")
    return 0


def save_models() -> Models:
    """What the store cannot know of a save's values: a scene and a composed context as the game reads
    them. ``saves check`` reports a value that fails these, ``saves salvage`` leaves its row out."""
    from game.mind.context import ComposedContext
    from game.world.scene import SceneState

    return {("scenes", "state"): SceneState.model_validate, ("turn_context", "context"): ComposedContext.from_json}


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    """SQLite's integrity check and Kith's row checks; reads only, so a damaged save is never made worse."""
    path = resolve_save(validate_save_name(args.name), settings.saves_dir)
    problems = check_save(path, default_registry().schema(), save_models())
    if not problems:
        print("ok")
        return 0
    print(f"{args.name}: {len(problems)} problem{'s' if len(problems) != 1 else ''} found")
    for problem in problems:
        print(f"- {problem}")
    print(f"run `kith saves salvage {args.name} NEW` to copy what can be read into a new save")
    return 1


def run_salvage(args: argparse.Namespace, settings: Settings) -> int:
    """Never writes NAME; NEW appears only complete and checked. Exit 1: nothing could be rescued."""
    import sys

    from game.store.salvage import NothingRescued, salvage_save

    source = resolve_save(validate_save_name(args.name), settings.saves_dir)
    target = resolve_save(validate_save_name(args.new), settings.saves_dir)
    try:
        report = salvage_save(source, target, default_registry().schema(), save_models())
    except NothingRescued as error:
        print(f"kith: {error.message}; no save was written", file=sys.stderr)
        return 1
    for item in report.items:
        print(f"- {item}")
    dropped = sum(1 for item in report.items if item.action == "left out")
    repaired = len(report.items) - dropped
    print(f"Salvaged {args.name} into {target.stem} ({target}): {report.copied} rows copied, {dropped} left out, "
          f"{repaired} repaired.")
    return 0
