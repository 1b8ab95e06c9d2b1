"""A found fault as a RegTest script (docs/scripts.md): its commands, and checks that fail while it shows.

``kith run`` on the saved file fails until the world (or the engine) is fixed, so it can be kept as the
regression test of the fix as it is.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from game.text import escape_control

_SLUG = re.compile(r"[^a-z0-9]+")


def script_text(world_id: str, content_dir: Path | None, seed: int, fault: dict[str, Any],
                checks: tuple[str, ...]) -> str:
    detail = " ".join(escape_control(str(fault["detail"])).split())
    lines = [f"# kith explore found a fault: {fault['kind']}: {detail}",
             "# `kith run` on this file fails while the fault is there.",
             f"** world: {world_id}"]
    if content_dir is not None:
        lines.append(f"** content: {content_dir}")
    lines += [f"** seed: {seed}", "", f"* {fault['kind']}: {detail}"[:200]]
    lines += [f"> {command}" for command in fault["commands"]]
    lines += list(checks)
    return "\n".join(lines) + "\n"


def ending_script_text(world_id: str, content_dir: Path | None, seed: int, ending: dict[str, Any]) -> str:
    """A script for an ending no game reached: it checks the ending is reached, so it fails as it stands.

    No game found commands that lead there; the author writes the ones that should (or finds the ending
    has no way in, and gives it one), and the script passes once the world lets them reach it."""
    title = " ".join(escape_control(str(ending["title"])).split())
    lines = [f"# kith explore reached no ending {ending['id']!r} ({title}) in any game.",
             "# Write the commands that should reach it (> lines) between the test's * line and its",
             "# check; `kith run` on this file fails until they do.",
             f"** world: {world_id}"]
    if content_dir is not None:
        lines.append(f"** content: {content_dir}")
    lines += [f"** seed: {seed}", "", f"* unreached ending: {ending['id']} ({title})"[:200],
              f"{{state}} ending = {ending['id']}"]
    return "\n".join(lines) + "\n"


def save_failures(folder: Path, world_id: str, content_dir: Path | None, seed: int,
                  faults: list[tuple[dict[str, Any], tuple[str, ...]]],
                  unreached: list[dict[str, Any]] | None = None) -> list[Path]:
    """Write one script per fault, numbered in the report's order, then one per ending in ``unreached``
    (the report's endings that no game reached); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    if content_dir is not None:
        # Relative to the script (as ``** content:`` is read), so a folder of failures committed beside
        # the world keeps finding it from any checkout.
        content_dir = Path(os.path.relpath(content_dir.resolve(), folder.resolve()))
    written: list[Path] = []
    for number, (fault, checks) in enumerate(faults, start=1):
        slug = _SLUG.sub("-", str(fault["detail"]).casefold()).strip("-")[:40]
        path = folder / f"{number:02d}-{fault['kind']}-{slug}.regtest"
        path.write_text(script_text(world_id, content_dir, seed, fault, checks), encoding="utf-8")
        written.append(path)
    for number, ending in enumerate(unreached or [], start=len(faults) + 1):
        slug = _SLUG.sub("-", str(ending["id"]).casefold()).strip("-")[:40]
        path = folder / f"{number:02d}-unreached-ending-{slug}.regtest"
        path.write_text(ending_script_text(world_id, content_dir, seed, ending), encoding="utf-8")
        written.append(path)
    return written
