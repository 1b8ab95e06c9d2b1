"""The telling keys in the real app: Ctrl+R retries, Left/Right on an empty line flip tellings, Ctrl+T
cycles the input modes (shown in the placeholder), F6 edits the Memory and Author's note, F7 the last
turn; and the status line's token figures (a snapshot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chat_server import ChatServer, Text
from helpers.saves import SCHEMA
from helpers.ui import SIZE, make_app, model_settings, no_cursor_blink, play, screen_text, settle
from llm_helpers import ir
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from game.store import turn_log
from game.ui.command_input import PLACEHOLDERS, CommandInput
from game.ui.screens.edit_turn import EditTurnScreen
from game.ui.screens.notes import NotesScreen
from game.ui.status_line import StatusLine, token_summary
from game.ui.story_log import StoryLog

USAGE = {"narrate.calls": 1, "narrate.prompt_tokens": 2140, "narrate.completion_tokens": 312,
         "world-ir.calls": 1, "world-ir.prompt_tokens": 905, "world-ir.completion_tokens": 120,
         "extract.calls": 1, "extract.prompt_tokens": 1210, "extract.completion_tokens": 64}


def story(app: Any) -> str:
    return str(app.query_one(StoryLog).plain_text())


async def test_ctrl_r_retries_and_left_right_flip_the_tellings(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "help edda")
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.session is not None and app.session.turn == 1
        assert "Telling 2 of 2" in story(app)
        assert story(app).count("> help edda") == 1  # the retold turn stands in place of the first
        await pilot.press("left")
        await settle(pilot)
        assert "Telling 1 of 2" in story(app) and "Telling 2 of 2" not in story(app)
        field = app.query_one(CommandInput)
        field.value = "ab"
        field.cursor_position = 2
        await pilot.press("left")  # with text, Left moves the cursor and flips nothing
        await settle(pilot)
        assert field.cursor_position == 1 and "Telling 1 of 2" in story(app)
        await play(pilot, "undo")
        assert app.session.turn == 0 and "help edda" not in story(app).split("> undo")[0]


async def test_a_retold_turn_reads_as_a_turn_told_once_story_above_its_memory_lines(tmp_path: Path) -> None:
    """A retry's memory lines reach the screen while it is told, before the turn is put in place, so its
    story used to land below them. A retold turn now reads like one told once: the command, the story, the
    memory lines, then which telling it is."""
    app = make_app(tmp_path)
    memory = "◆ Edda Marsh → Sam Reed TRUSTS (+0.60)"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "help edda")
        assert app.session is not None
        once = story(app)
        told = app.session.history[-1].narration.splitlines()[0]
        assert once.index("> help edda") < once.index(told) < once.index(memory)
        await pilot.press("ctrl+r")
        await settle(pilot)
        retold = story(app)
        told = app.session.history[-1].narration.splitlines()[0]
        assert retold.count(memory) == 1 and retold.count("> help edda") == 1
        assert retold.index("> help edda") < retold.index(told) < retold.index(memory) < retold.index("Telling 2 of 2")


async def test_ctrl_t_cycles_the_input_modes_and_story_mode_adds_text_as_written(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        field = app.query_one(CommandInput)
        assert field.placeholder == PLACEHOLDERS["do"]
        await pilot.press("ctrl+t")
        assert field.mode == "say" and field.placeholder == PLACEHOLDERS["say"]
        await pilot.press("ctrl+t")
        assert field.mode == "story" and field.placeholder.startswith("Story:")
        await play(pilot, "The lamp gutters and nobody speaks.")
        assert app.session is not None and app.session.turn == 1
        assert app.session.history[-1].narration == "The lamp gutters and nobody speaks."
        await play(pilot, "help")  # a meta command is sent as typed in every mode
        assert app.session.turn == 1
        await pilot.press("ctrl+t")
        assert field.mode == "do"


async def test_f6_edits_the_memory_and_authors_note(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        assert isinstance(app.screen, NotesScreen)
        app.screen.query_one("#memory", TextArea).text = "Edda keeps the lamp."
        app.screen.query_one("#note", Input).value = "Quiet."
        await pilot.click("#save")
        await settle(pilot)
        assert app.session is not None
        assert dict(app.session.notes) == {"memory": "Edda keeps the lamp.", "note": "Quiet."}
        await play(pilot, "undo")
        assert dict(app.session.notes) == {"memory": "Edda keeps the lamp."}


async def test_f6_keeps_the_screen_open_with_the_words_when_a_note_is_too_long(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        app.screen.query_one("#memory", TextArea).text = "m" * 2001
        app.screen.query_one("#note", Input).value = "Quiet."
        await pilot.click("#save")
        await settle(pilot)
        # Refused where the words are, not after the screen is gone: nothing is lost, nothing is set.
        assert isinstance(app.screen, NotesScreen)
        assert app.screen.query_one("#memory", TextArea).text == "m" * 2001
        assert "at most 2000" in str(app.screen.query_one("#notes-problem").render())
        app.screen.query_one("#memory", TextArea).text = "Edda keeps the lamp."
        await pilot.pause(0.3)  # a button ignores a second press while it still shows the first
        await pilot.click("#save")
        await settle(pilot)
        assert not isinstance(app.screen, NotesScreen)
        await settle(pilot)
        assert app.session is not None
        assert dict(app.session.notes) == {"memory": "Edda keeps the lamp.", "note": "Quiet."}


async def test_f7_edits_the_last_turn_and_undo_restores_it(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "help edda")
        assert app.session is not None
        told = app.session.history[-1].narration
        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, EditTurnScreen)
        app.screen.query_one("#narration", TextArea).text = "Edda waves you off."
        await pilot.click("#save")
        await settle(pilot)
        assert app.session.history[-1].narration == "Edda waves you off."
        assert "Edda waves you off." in story(app) and told not in story(app)
        await play(pilot, "undo")
        assert app.session.turn == 1 and app.session.history[-1].narration == told


async def test_f7_keeps_the_screen_open_with_the_words_when_an_edit_is_too_long(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "help edda")
        assert app.session is not None
        told = app.session.history[-1].narration
        await pilot.press("f7")
        await settle(pilot)
        app.screen.query_one("#narration", TextArea).text = "n" * 8001
        await pilot.click("#save")
        await settle(pilot)
        assert isinstance(app.screen, EditTurnScreen)
        assert app.screen.query_one("#narration", TextArea).text == "n" * 8001
        assert "at most 8000" in str(app.screen.query_one("#edit-problem").render())
        assert app.session.history[-1].narration == told


def test_token_summary_names_each_step_and_the_context_fill() -> None:
    assert token_summary(USAGE, 8192) == "narrate 2.1k+312 · IR 905+120 · extract 1.2k+64 · ctx 26% of 8.2k"
    assert token_summary({}, 8192) == ""  # offline: nothing is shown


class StatusApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine()

    def on_mount(self) -> None:
        line = self.query_one(StatusLine)
        line.save_name, line.turn, line.narrator = "lamp-night", 3, "test-model @ localhost:8080"
        line.tokens = token_summary(USAGE, 8192)
        line.hour = "Dusk."


def test_status_line_with_token_figures(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        no_cursor_blink(pilot)
        await pilot.pause()

    assert snap_compare(StatusApp(), terminal_size=(140, 3), run_before=run_before)


def test_the_documented_status_figures_are_what_the_line_shows() -> None:
    for doc in ("llm.md", "playing.md"):
        text = (Path(__file__).resolve().parent.parent / "docs" / doc).read_text(encoding="utf-8")
        assert token_summary(USAGE, 8192) in text, doc


async def test_the_status_line_shows_a_model_turns_tokens_and_a_retry_keeps_them_apart(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.status.tokens == ""  # no turn yet
            server.push(Text("The tide turns."), Text(json.dumps(ir())))
            await play(pilot, "wait for the tide")
            assert app.status.tokens.startswith("narrate ") and " · IR " in app.status.tokens
            assert "ctx " in app.status.tokens and "narrate " in screen_text(app)
            server.push(Text("The gulls go quiet."), Text(json.dumps(ir())))
            await pilot.press("ctrl+r")
            await settle(pilot)
            assert app.session is not None and app.session.history[-1].narration == "The gulls go quiet."
            assert app.status.tokens.startswith("narrate ")


async def test_esc_after_a_continuation_is_saved_shows_the_whole_turn_as_the_save_holds_it(tmp_path: Path) -> None:
    """Esc pressed while a continuation is being stored: the store finishes (the save keeps the continued
    turn whole), and the story pane shows that whole turn in place of the old telling, not only the
    streamed addition."""
    import asyncio
    import sqlite3

    from chat_server import Delayed

    from game.store.database import SaveDatabase

    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url, timeout=10.0))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            server.push(Text("The tide turns under the pier."), Text(json.dumps(ir())))
            await play(pilot, "wait for the tide")
            assert app.session is not None and app.session.turn == 1
            # The continuation streams its addition; its World IR comes a moment later, and by then another
            # writer holds the save, so the turn waits to be stored while Esc is pressed.
            server.push(Text("The gulls go quiet on the rail."), Delayed(0.3, Text(json.dumps(ir()))))
            await pilot.press("ctrl+g")
            for _ in range(250):
                await pilot.pause(0.02)
                if len(server.chat_requests) == 4:
                    break
            assert len(server.chat_requests) == 4, "the continuation's World IR was never asked for"
            other = sqlite3.connect(tmp_path / "saves" / "game.sqlite", isolation_level=None)
            other.execute("BEGIN IMMEDIATE")
            try:
                # The IR arrives and the store begins its transaction, which waits for the other writer.
                storing = app.session._db._writing  # the save's one-transaction-at-a-time lock
                for _ in range(200):
                    await asyncio.sleep(0.02)
                    if storing.locked():
                        break
                assert storing.locked() and app.turn_running
                await pilot.press("escape")
                await pilot.pause(0.1)
            finally:
                other.execute("COMMIT")
                other.close()
            for _ in range(250):  # the cancelled worker ends once the store it waited for is done
                await pilot.pause(0.02)
                if not app.turn_running:
                    break
            await settle(pilot)
            shown = story(app)
            assert "Stopped after the turn was saved." in shown
            kept = app.session.history[-1].narration
            assert "The tide turns under the pier." in kept and "The gulls go quiet on the rail." in kept
            assert kept in shown, shown  # the whole turn, not only the addition
            assert shown.count("The gulls go quiet on the rail.") == 1
            assert shown.count("The tide turns under the pier.") == 1
            assert shown.count("> wait for the tide") == 1 and "> continue" not in shown
            assert "Telling 2 of 2" in shown
            await play(pilot, "undo")  # the continuation is a step of its own: undo takes it back
            shown = story(app)
            assert "The gulls go quiet on the rail." not in shown.split("> undo")[0]
            assert shown.count("The tide turns under the pier.") == 1
            kept = app.session.history[-1].narration
            assert kept == "The tide turns under the pier."
    async with await SaveDatabase.open(tmp_path / "saves" / "game.sqlite", schema=SCHEMA) as db:
        [turn] = await turn_log.turns(db)
        assert turn.narration == kept
