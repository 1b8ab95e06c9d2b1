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


def save_failures(folder: Path, world_id: str, content_dir: Path | None, seed: int,
                  faults: list[tuple[dict[str, Any], tuple[str, ...]]]) -> list[Path]:
    """Write one script per fault, numbered in the report's order; the paths written."""
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
    return written
