"""Snapshots of the key screens (pytest-textual-snapshot; textual is pinned in pyproject.toml).

Positions are seeded into each save before the app opens it, so the pictures depend on the renderer
and the widgets, not on the force-directed layout's floating point. Animations and cursor blink are off.
Update after a deliberate change with ``pytest tests/test_ui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from helpers.saves import SCHEMA
from helpers.ui import make_app, no_cursor_blink, offline_settings, play, settle, strangers_world
from textual.pilot import Pilot
from textual.widgets import DataTable

from game.config import Settings
from game.engine.session import GameSession
from game.store.database import SaveDatabase
from game.ui.app import KithApp

POSITIONS = {
    "npc-lighthouse-board": (0.1, 0.05), "npc-tobin-hale": (0.85, 0.15),
    "npc-edda-marsh": (0.2, 0.5), "npc-sam-reed": (0.6, 0.9),
}
SIZE = (120, 36)


def seeded_save(settings: Settings, name: str, last_played: str = "2026-01-02T03:04:05") -> None:
    """A new game with fixed map positions and a fixed last-played time."""

    async def create() -> None:
        session = await GameSession.open(settings, name, new=True, world="tiny")
        await session.save_map_layout(POSITIONS)
        await session.close()
        async with await SaveDatabase.open(settings.saves_dir / f"{name}.sqlite", schema=SCHEMA) as db:
            await db.set_meta({"last_played": last_played})

    asyncio.run(create())


def quiet(app: KithApp) -> KithApp:
    app.animation_level = "none"
    return app


def test_main_screen(snap_compare: Any, tmp_path: Path) -> None:
    settings = offline_settings(tmp_path)
    seeded_save(settings, "lamp-night")
    app = quiet(make_app(tmp_path, settings, save="lamp-night", new=False))

    async def run_before(pilot: Pilot[Any]) -> None:
        no_cursor_blink(pilot)
        await settle(pilot)
        await play(pilot, "help edda")
        await play(pilot, "ask edda about tobin")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_empty_map(snap_compare: Any, tmp_path: Path) -> None:
    settings = offline_settings(tmp_path, strangers_world(tmp_path))
    seeded_save(settings, "strangers")
    app = quiet(make_app(tmp_path, settings, save="strangers", new=False))

    async def run_before(pilot: Pilot[Any]) -> None:
        no_cursor_blink(pilot)
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_focused_node_with_details(snap_compare: Any, tmp_path: Path) -> None:
    settings = offline_settings(tmp_path)
    seeded_save(settings, "lamp-night")
    app = quiet(make_app(tmp_path, settings, save="lamp-night", new=False))

    async def run_before(pilot: Pilot[Any]) -> None:
        no_cursor_blink(pilot)
        await settle(pilot)
        await play(pilot, "help edda")
        await pilot.press("tab", "tab")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_load_screen(snap_compare: Any, tmp_path: Path) -> None:
    settings = offline_settings(tmp_path)
    seeded_save(settings, "lamp-night", "2026-03-01T20:15:00")
    seeded_save(settings, "second-try", "2026-02-11T09:30:00")
    app = quiet(make_app(tmp_path, settings, save="lamp-night", new=False))

    async def run_before(pilot: Pilot[Any]) -> None:
        no_cursor_blink(pilot)
        await settle(pilot)
        await pilot.press("ctrl+o")
        # The saves are read in a worker started when the screen mounts: on a loaded machine the first
        # settle can come before it is listed, so wait until both rows are in the table.
        for _ in range(200):
            await settle(pilot)
            if pilot.app.screen.query_one(DataTable).row_count == 2:
                break
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def _views_app(tmp_path: Path) -> KithApp:
    settings = offline_settings(tmp_path)
    seeded_save(settings, "lamp-night")
    return quiet(make_app(tmp_path, settings, save="lamp-night", new=False))


async def _show_view(pilot: Pilot[Any], presses: int) -> None:
    """Two turns in, Edda selected, then ``v`` pressed ``presses`` times: scene, person, everyone."""
    no_cursor_blink(pilot)
    await settle(pilot)
    await play(pilot, "help edda")
    await play(pilot, "ask edda about tobin")
    graph = pilot.app.map_pane.map  # type: ignore[attr-defined]
    graph.focus()
    graph.select("npc-edda-marsh")
    for _ in range(presses):
        await pilot.press("v")
    await settle(pilot)


def _view_snapshot(snap_compare: Any, tmp_path: Path, presses: int, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _show_view(pilot, presses)

    assert snap_compare(_views_app(tmp_path), terminal_size=size, run_before=run_before)


def test_scene_view_120x40(snap_compare: Any, tmp_path: Path) -> None:
    _view_snapshot(snap_compare, tmp_path, 0, (120, 40))


def test_person_view_120x40(snap_compare: Any, tmp_path: Path) -> None:
    _view_snapshot(snap_compare, tmp_path, 1, (120, 40))


def test_everyone_view_120x40(snap_compare: Any, tmp_path: Path) -> None:
    _view_snapshot(snap_compare, tmp_path, 2, (120, 40))


def test_scene_view_80x24(snap_compare: Any, tmp_path: Path) -> None:
    _view_snapshot(snap_compare, tmp_path, 0, (80, 24))


def test_person_view_80x24(snap_compare: Any, tmp_path: Path) -> None:
    _view_snapshot(snap_compare, tmp_path, 1, (80, 24))


def test_everyone_view_80x24(snap_compare: Any, tmp_path: Path) -> None:
    _view_snapshot(snap_compare, tmp_path, 2, (80, 24))


def test_everyone_view_with_group_frames_120x40(snap_compare: Any, tmp_path: Path) -> None:
    """The everyone view draws the Lighthouse Board and the Harbour Watch as frames round their members."""
    import json

    from game.__main__ import main

    settings = offline_settings(tmp_path)
    asyncio.run(_legacy_save(settings, "frames"))
    people = ["Ansel Rook", "Bryn Cole", "Cass Wend"]
    call = {
        "nodes": [{"name": "Harbour Watch", "type": "group", "summary": "The paid guard of the quay."},
                  *({"name": name, "summary": f"{name} walks the quay at night."} for name in people)],
        "edges": [*({"sourceName": name, "targetName": "Harbour Watch", "relation": "MEMBER_OF", "strength": 0.7,
                     "fact": f"{name} wears the Watch's lantern badge."} for name in people),
                  {"sourceName": "Tobin Hale", "targetName": "Lighthouse Board", "relation": "MEMBER_OF",
                   "strength": 0.5, "fact": "Tobin Hale sits on the Lighthouse Board as the apprentice."},
                  {"sourceName": "Ansel Rook", "targetName": "Edda Marsh", "relation": "FEARS", "strength": -0.6,
                   "fact": "Ansel Rook fears Edda Marsh's temper."},
                  {"sourceName": "Cass Wend", "targetName": "Tobin Hale", "relation": "OWES", "strength": 0.4,
                   "fact": "Cass Wend owes Tobin Hale a night's wages."}],
    }
    source = tmp_path / "call.json"
    source.write_text(json.dumps(call), encoding="utf-8")
    assert main(["--saves-dir", str(settings.saves_dir), "--content-dir", str(settings.content_dir), "graph",
                 "upsert", "--save", "frames", str(source)]) == 0
    asyncio.run(_seed_positions(settings, "frames"))
    app = quiet(make_app(tmp_path, settings, save="frames", new=False))

    async def run_before(pilot: Pilot[Any]) -> None:
        no_cursor_blink(pilot)
        await settle(pilot)
        pilot.app.map_pane.map.view = "everyone"  # type: ignore[attr-defined]
        await settle(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


async def _legacy_save(settings: Settings, name: str) -> None:
    """A tiny game whose player sees every person and relation (a save from before knowledge was kept)."""
    import sqlite3

    session = await GameSession.open(settings, name, new=True, world="tiny")
    await session.close()
    with sqlite3.connect(settings.saves_dir / f"{name}.sqlite") as conn:
        conn.execute("UPDATE scenes SET state = json_remove(state, '$.known')")
    conn.close()


async def _seed_positions(settings: Settings, name: str) -> None:
    """Fixed positions on a ring, so the picture does not depend on the force layout's floating point."""
    import math

    session = await GameSession.open(settings, name)
    ids = sorted(node.id for node in await session.all_nodes())
    await session.save_map_layout({node_id: (0.5 + 0.45 * math.cos(2 * math.pi * i / len(ids)),
                                             0.5 + 0.45 * math.sin(2 * math.pi * i / len(ids)))
                                   for i, node_id in enumerate(ids)})
    await session.close()
