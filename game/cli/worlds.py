"""``kith worlds``: the worlds Kith can start a game in (shipped and the player's own), and where each is.

Also the one description of Kith's folders (worlds, saves, settings) that ``kith --help`` and ``kith
doctor`` print, so the two can never disagree about where things are.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from game.text import strip_control

if TYPE_CHECKING:
    from game.config import Settings
    from game.settings_source import Folders


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "worlds", help="list the worlds you can play: id, title and folder",
        description="List the shipped worlds and your own (in ~/.local/share/kith/worlds, or KITH_WORLDS). "
                    "A world of yours with the id of a shipped one is hidden by it.",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON array for scripts")
    parser.set_defaults(handler=run_worlds)


def run_worlds(args: argparse.Namespace, settings: Settings) -> int:
    from game.config import world_folders
    from game.world import list_worlds

    rows: list[dict[str, str | None]] = []
    seen: set[str] = set()
    for source, folder in world_folders(settings):
        for info in list_worlds(folder):
            shadowed = info.id in seen
            seen.add(info.id)
            rows.append({"id": info.id, "title": info.title, "source": source, "folder": str(folder / info.id),
                         "error": info.error, "hiddenBy": "shipped" if shadowed else None})
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print(f"No worlds found in {settings.content_dir} or {settings.worlds_dir}.")
        return 1
    width = max(len(row["id"] or "") for row in rows)
    title_width = max(len(row["title"] or "") for row in rows)
    for row in rows:
        note = f"  (broken: {row['error']})" if row["error"] else "  (hidden by the shipped world)" \
            if row["hiddenBy"] else ""
        # Titles and errors come from files anyone may have written: no terminal escapes reach the screen.
        print(strip_control(f"{row['id']:<{width}}  {row['title'] or '':<{title_width}}  [{row['source']}: {row['folder']}]{note}"))
    return 0


def folder_lines(settings: Settings | Folders | None = None, env: Mapping[str, str] | None = None) -> list[str]:
    """``name: path`` for each of Kith's folders; from ``settings`` when given, else the defaults."""
    from game.settings_source import (
        default_content_dir,
        default_saves_dir,
        default_worlds_dir,
        from_checkout,
        user_config_dir,
    )

    env = os.environ if env is None else env
    content = settings.content_dir if settings else default_content_dir()
    worlds = settings.worlds_dir if settings else default_worlds_dir()
    saves = settings.saves_dir if settings else default_saves_dir()
    config: Path = user_config_dir(env)
    where = "from a source checkout" if from_checkout() else "installed"
    return [
        f"shipped worlds  {content}  ({where})",
        f"your worlds     {worlds}",
        f"saves           {saves}",
        f"settings        {config / 'kith.toml'} (or ./kith.toml, --config, KITH_CONFIG)",
        f"API keys        {config / 'keys.json'} (only if you ask Kith to keep one)",
    ]
