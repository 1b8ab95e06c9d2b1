"""What the player sees when something goes wrong: a failed or cancelled turn, a background task that
breaks, an unreadable key file. Every case leaves the app running, usable, and honest about what was
saved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_server import Broken, ChatServer, Text
from helpers.ui import SIZE, legacy_app, make_app, model_settings, play, settle, toasts
from llm_helpers import ir
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from game.ui.screens.settings import SettingsScreen
from game.ui.story_log import StoryLog

PARTIAL = "Edda lifts the lamp and turns toward the stair. " + "The wind keeps on. " * 250 + "And then"
"""Longer than the narrator holds back at a reply's start, so part of it is on screen when it breaks."""
WHOLE = "Edda lifts the lamp and turns toward the stair."


async def test_narration_of_a_failed_turn_is_taken_back_so_a_retry_is_told_once(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url))
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            server.push(Broken(PARTIAL))
            await play(pilot, "look around")
            assert app.session is not None and app.session.turn == 0
            story = app.query_one(StoryLog).plain_text()
            assert "Edda lifts the lamp" not in story, "narration that was not saved is not left as story"
            assert "> look around" in story and "Nothing of this turn was saved" in story
            server.push(Text(WHOLE), Text(json.dumps(ir())))
            await play(pilot, "look around")
            assert app.session.turn == 1
            assert app.query_one(StoryLog).plain_text().count("Edda lifts the lamp") == 1


async def test_a_memory_warning_stays_in_the_story_log(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url))
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            server.push(Text(WHOLE), *[Text("no facts here, only words") for _ in range(6)])
            await play(pilot, "look around")
            assert app.session is not None and app.session.turn == 1, "the story itself was kept"
            story = app.query_one(StoryLog).plain_text()
            assert "the graph was not updated this turn" in story, story
            # The fast path read the narration instead, and the status line says so until the next turn.
            assert "fast path" in story and app.status.relations == "fast path"


async def test_narration_of_a_cancelled_turn_is_taken_back(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url, timeout=10.0))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            # Long enough to pass the narrator's hold on a reply's start (reasoning tags) and keep streaming.
            server.push(Text(WHOLE + " " + "The wind keeps on. " * 600, chunk_size=100, pause=0.02))
            log = app.query_one(StoryLog)
            app.submit("look around")
            for _ in range(400):
                await pilot.pause(0.02)
                if "Edda lifts" in log.plain_text():
                    break
            assert "Edda lifts" in log.plain_text(), "the narration was streaming when Esc was pressed"
            await pilot.press("escape")
            await settle(pilot)
            story = log.plain_text()
            assert "Cancelled: nothing of that turn was saved." in story
            assert "Edda lifts" not in story
            assert app.session is not None and app.session.turn == 0


BAD_URL = "http://[::1"
"""An endpoint the URL parser refuses with a plain ValueError: once an unexpected failure inside the
connection test, now a settings error said before anything is sent (issue 21)."""
BAD_URL_WORDS = "base_url: has brackets that do not hold an IPv6 address"


async def _settings_with_endpoint(pilot: Pilot[int], url: str) -> SettingsScreen:
    app = pilot.app
    await pilot.press("f5")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    screen.query_one("#narrator", Select).value = "openai"
    screen.query_one("#base-url", Input).value = url
    screen.query_one("#model", Input).value = "test-model"
    return screen


async def test_a_connection_test_of_a_bad_url_is_reported_and_the_dialog_stays_usable(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = await _settings_with_endpoint(pilot, BAD_URL)
        await pilot.click("#test")
        await settle(pilot)
        report = str(screen.query_one("#report", Static).content)
        assert "Testing the connection" not in report
        assert report.startswith("✗") and BAD_URL_WORDS in report, report
        assert not any("unexpected error" in toast for toast in toasts(app))
        assert app.screen is screen and app.is_running


async def test_settings_that_cannot_be_applied_are_reported_and_the_game_goes_on(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = await _settings_with_endpoint(pilot, BAD_URL)
        await pilot.click("#apply")
        await settle(pilot)
        # Refused with the dialog still open, so the URL can be mended; Cancel goes back to the game.
        assert app.screen is screen and BAD_URL_WORDS in str(screen.query_one("#report", Static).content)
        await pilot.click("#cancel")
        await settle(pilot)
        assert app.status.narrator == "offline narrator"
        await play(pilot, "help edda")
        assert app.session is not None and app.session.turn == 1


@pytest.mark.parametrize("damage", ["directory", "not json"])
async def test_an_unreadable_key_file_is_a_notification_and_the_game_opens(tmp_path: Path, damage: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    keys = tmp_path / "config" / "keys.json"
    if damage == "directory":
        keys.mkdir(parents=True)
    else:
        keys.parent.mkdir(parents=True)
        keys.write_text('{"OPENAI_API_KEY": "sk-', encoding="utf-8")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        shown = " ".join(toasts(app))
        assert "keys.json" in shown and "Traceback" not in shown
        assert app.session is not None and app.is_running
        await play(pilot, "help edda")
        assert app.session.turn == 1
    if damage == "not json":
        assert keys.read_text(encoding="utf-8") == '{"OPENAI_API_KEY": "sk-', "the file is left for the player"


FULL_READS = ("FROM edges  ORDER BY seq", "FROM nodes ORDER BY")
"""The statements that read every node and every version of every edge out of the save."""


async def test_the_map_after_a_turn_is_drawn_from_memory_and_history_is_read_only_when_asked(
        tmp_path: Path) -> None:
    app = await legacy_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "talk to edda")
        await play(pilot, "up")
        assert app.session is not None
        statements: list[str] = []
        await app.session._db.conn.set_trace_callback(statements.append)
        await play(pilot, "accuse tobin of wanting the job")  # ends Edda's and Tobin's relation
        graph = app.map_pane.map
        assert not [s for s in statements if any(read in s for read in FULL_READS)]
        assert set(graph.drawing.lines) == {("npc-edda-marsh", "npc-lighthouse-board")}
        # Ended relations and a name's history need every version: those are read when asked for.
        graph.focus()
        await pilot.press("c")
        await settle(pilot)
        assert ("npc-edda-marsh", "npc-tobin-hale") in graph.drawing.lines
        await pilot.press("c")
        await settle(pilot)
        graph.select("npc-edda-marsh")
        await settle(pilot)
        assert "ended:" in app.map_pane.details.text
        assert any(read in s for s in statements for read in FULL_READS)
