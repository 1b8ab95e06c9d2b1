"""Shared builders for the TUI tests.

Every test runs the real ``KithApp`` through Textual's Pilot, against real save files in ``tmp_path``,
the tiny fixture world, and either the offline narrator or the real openai client talking to the local
``ChatServer``. Tests wait for workers (``settle``) instead of sleeping.
"""

from __future__ import annotations

import contextlib
import html
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerCancelled

from game.config import LLMSettings, Settings
from game.engine.session import GameSession
from game.ui.app import KithApp
from game.ui.keys import KeyStore

WORLDS = Path(__file__).parent.parent / "fixtures" / "worlds"
SIZE = (120, 36)


def offline_settings(tmp_path: Path, content_dir: Path = WORLDS) -> Settings:
    return Settings(world="tiny", narrator="offline", content_dir=content_dir, saves_dir=tmp_path / "saves")


def model_settings(tmp_path: Path, base_url: str, **llm: Any) -> Settings:
    values: dict[str, Any] = {"base_url": base_url, "model": "test-model", "timeout": 2.0, "retries": 0,
                              "extraction": "world-ir"}
    values.update(llm)
    return Settings(world="tiny", narrator="openai", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                    llm=LLMSettings(**values))


def make_app(tmp_path: Path, settings: Settings | None = None, save: str | None = "game", new: bool = True,
             **kwargs: Any) -> KithApp:
    return KithApp(settings or offline_settings(tmp_path), save, new, kwargs.pop("world", None),
                   key_store=KeyStore(tmp_path / "config" / "keys.json"), **kwargs)


async def legacy_app(tmp_path: Path, save: str = "game") -> KithApp:
    """The app over a new tiny game saved as by the code before the player's knowledge was kept (no
    ``known`` in its scene): the player sees every person and relation, as they did then. For the map's
    own mechanics (ended relations, zoom, what is read from disk), which do not depend on what is known."""
    settings = offline_settings(tmp_path)
    session = await GameSession.open(settings, save, new=True, world="tiny")
    await session.close()
    with sqlite3.connect(settings.saves_dir / f"{save}.sqlite") as conn:
        conn.execute("UPDATE scenes SET state = json_remove(state, '$.known')")
    conn.close()
    return make_app(tmp_path, settings, save=save, new=False)


def strangers_world(tmp_path: Path) -> Path:
    """The tiny world with no relationships at turn 0 (everyone a stranger), for the empty map."""
    content = tmp_path / "content"
    shutil.copytree(WORLDS / "tiny", content / "tiny")
    characters = content / "tiny" / "characters.toml"
    text = characters.read_text(encoding="utf-8")
    characters.write_text(text.split("[[relationships]]")[0], encoding="utf-8")
    return content


async def settle(pilot: Pilot[Any]) -> None:
    """Let every worker finish and the screen catch up."""
    await _workers_done(pilot)
    await pilot.pause()
    await _workers_done(pilot)
    await pilot.pause()


async def _workers_done(pilot: Pilot[Any]) -> None:
    """Wait for every worker; one that Esc cancelled has ended as the player asked, so its cancellation is
    not an error (Textual keeps a cancelled worker listed until its task's done callback runs, a moment
    after the app already sees it finished). A worker that failed still fails the test."""
    for worker in list(pilot.app.workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()


async def play(pilot: Pilot[Any], command: str) -> None:
    """Type a line into the input and press Enter, then wait for the turn to finish."""
    app = pilot.app
    field = app.query_one("#command", Input)
    field.focus()
    field.value = command
    await pilot.press("enter")
    await settle(pilot)


def no_cursor_blink(pilot: Pilot[Any]) -> None:
    for field in pilot.app.query(Input):
        field.cursor_blink = False


def toasts(app: KithApp) -> list[str]:
    """The notifications on screen, as text."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]  # by type name: Toast is not public


_SVG_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)" '
                       r'clip-path="url\(#[\w-]+-line-(\d+)\)">([^<]*)</text>')


def screen_text(app: KithApp) -> str:
    """What the terminal shows, as text, read from the public screenshot (an SVG with one ``<text>`` per
    run of one style; blank runs are left out, so each run is put back at its column)."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    runs = [(float(x), float(length), int(line), html.unescape(text).replace("\xa0", " ").rstrip("\n"))
            for x, length, line, text in _SVG_TEXT.findall(app.export_screenshot())]
    assert runs, "no text in the screenshot (has Rich's SVG changed?)"
    cell = min(length / cell_len(text) for _x, length, _line, text in runs if text)
    for x, _length, line, text in runs:
        column = round(x / cell)
        for char in text:
            if column < width:
                rows[line][column] = char
            column += cell_len(char)
    return "\n".join("".join(row) for row in rows)
