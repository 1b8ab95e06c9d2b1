"""Words from a player, a model server, a world or a save file are shown as written, never read as markup
(issue 21).

Before, typing ``[/]`` as a Save-as or New-game name ended the game with Textual's ``MarkupError`` (the
refusal quoting the name was parsed as markup), and so did a model server whose error text held
``[/INST]`` (the toast telling it); ``[b]`` or ``[@click=quit]`` were silently eaten or turned into links.
Each test drives the real app through Pilot and checks the text is on screen exactly as written; the
last ones check that no escape sequence in such words reaches the terminal, and that a model's link in
the story opens nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from chat_server import ChatServer, Failure, Text
from helpers.ui import (
    SIZE,
    WORLDS,
    make_app,
    model_settings,
    offline_settings,
    play,
    screen_text,
    settle,
    toasts,
)
from llm_helpers import ir
from textual.widgets import DataTable, Input, Static

from game.ui.app import KithApp, OpenRequest
from game.ui.screens.edit_turn import EditTurnScreen
from game.ui.screens.load_game import LoadScreen
from game.ui.screens.new_game import NewGameScreen
from game.ui.screens.save_as import SaveAsScreen
from game.ui.screens.time_travel import TimeTravelScreen
from game.ui.story_log import StoryLog

LOOKS_LIKE_MARKUP = ["[/]", "[b]", "[/INST]", "[link=x]", "[@click=quit]", "[bold red]x[/bold red]", "[i]a[/]b",
                     "\\[b]", "[$accent]", "[/b"]


def problem_of(app: KithApp) -> str:
    return str(app.screen.query_one("#problem", Static).render())


async def test_a_save_as_name_of_brackets_is_refused_not_a_crash(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        app.screen.query_one("#name", Input).value = "[/]"
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, SaveAsScreen)
        assert "'[/]' is not a save name" in problem_of(app)
        assert "'[/]' is not a save name" in screen_text(app)
    assert sorted(p.name for p in (tmp_path / "saves").glob("*.sqlite")) == ["game.sqlite"]


async def test_a_new_game_name_of_brackets_is_refused_not_a_crash(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, NewGameScreen)
        app.screen.query_one("#name", Input).value = "[/]"
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, NewGameScreen)
        assert "'[/]' is not a save name" in screen_text(app)
    assert sorted(p.name for p in (tmp_path / "saves").glob("*.sqlite")) == ["game.sqlite"]


async def test_a_server_error_with_inst_tags_is_a_toast_not_a_crash(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url))
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            server.push(Failure(500, "prompt ended early: [INST] look [/INST]"))
            await play(pilot, "look around")
            assert app.is_running
            assert app.session is not None and app.session.turn == 0
            assert any("[INST] look [/INST]" in toast for toast in toasts(app)), toasts(app)
            assert "[INST] look [/INST]" in app.query_one(StoryLog).plain_text()


@pytest.mark.parametrize("text", LOOKS_LIKE_MARKUP)
async def test_markup_looking_names_show_as_typed_in_save_as_and_new_game(tmp_path: Path, text: str) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key, screen in (("ctrl+s", SaveAsScreen), ("ctrl+n", NewGameScreen)):
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, screen)
            app.screen.query_one("#name", Input).value = text
            await pilot.press("enter")
            await settle(pilot)
            assert app.is_running and isinstance(app.screen, screen)
            assert f"{text!r} is not a save name" in problem_of(app)
            await pilot.press("escape")
            await settle(pilot)
        assert app.is_running and app.session is not None


@pytest.mark.parametrize("text", LOOKS_LIKE_MARKUP)
async def test_markup_looking_server_words_show_as_written(tmp_path: Path, text: str) -> None:
    """A server's error (a toast and a story line), the model's narration (the story), the player's own
    line (the story, the time-travel list) and the model's name (the status line) all show as written."""
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url, model=f"m{text}"))
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            assert f"· m{text} @ 127.0.0.1:" in screen_text(app).splitlines()[0]
            server.push(Failure(500, f"the model said {text} and stopped"))
            await play(pilot, f"say {text}")
            assert app.is_running
            assert any(f"the model said {text} and stopped" in toast for toast in toasts(app)), toasts(app)
            log = app.query_one(StoryLog).plain_text()
            assert f"> say {text}" in log and f"the model said {text} and stopped" in log

            server.push(Text(f"Edda reads the sign aloud: {text} twice."), Text(json.dumps(ir())),
                        Text("Edda looks up."), Text(json.dumps(ir())))
            app.query_one("#command", Input).value = ""
            await play(pilot, f"read {text}")
            await play(pilot, "look")
            assert app.session is not None and app.session.turn == 2
            # The narration is Markdown, where a backslash escapes a bracket; the model's stray chat-template
            # marks ([/INST]) are taken out before it is kept. Nothing else of it is read as markup.
            told = (await app.session.turns())[0].narration
            assert f"reads the sign aloud: {text.replace('[/INST]', '').strip()}" in told
            assert told in app.query_one(StoryLog).plain_text()
            assert " ".join(told.replace("\\[", "[").split()) in " ".join(screen_text(app).split())

            app.action_time_travel()
            await settle(pilot)
            assert isinstance(app.screen, TimeTravelScreen)
            assert f"Turn 1: read {text}" in screen_text(app)


async def test_a_save_file_named_like_markup_is_listed_as_named(tmp_path: Path) -> None:
    """A file put in the saves folder by hand keeps its name in the Load list (and its error, if any), and
    a save's own world and time of play show as the file holds them."""
    import sqlite3

    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        (tmp_path / "saves" / "[b]x[@click=quit].sqlite").write_bytes(b"not a save [/] at all" * 40)
        app.open_game(OpenRequest(save="other", new=True))
        await settle(pilot)
        assert app.session is not None and app.session.save_name == "other"
        with sqlite3.connect(tmp_path / "saves" / "game.sqlite") as conn:
            conn.execute("UPDATE meta SET value = '[/]2026' WHERE key = 'last_played'")
            conn.execute("UPDATE meta SET value = '[i]tiny' WHERE key = 'world'")
        conn.close()
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, LoadScreen)
        table = app.screen.query_one(DataTable)
        shown = screen_text(app)
        assert "[b]x[@click=quit]" in shown and "[/]2026" in shown and "[i]tiny" in shown
        table.move_cursor(row=[str(table.get_row_at(i)[0]) for i in range(table.row_count)].index(
            "[b]x[@click=quit]"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and "[b]x[@click=quit] cannot be loaded" in problem_of(app)


async def test_a_world_written_like_markup_shows_as_written(tmp_path: Path) -> None:
    """A world's title and summary (the New game dialog) and its people's summaries ("Focus a character",
    which lists the graph's names and summaries, written by a world or a model) show as written."""
    content = tmp_path / "content"
    shutil.copytree(WORLDS / "tiny", content / "tiny")
    characters = content / "tiny" / "characters.toml"
    text = characters.read_text(encoding="utf-8")
    characters.write_text(text.replace("The old keeper of the light, who does not want to retire.",
                                       "The old keeper [/] of the [@click=quit]light[/]."), encoding="utf-8")
    world = content / "tiny" / "world.toml"
    world.write_text(world.read_text(encoding="utf-8").replace('title = "The Lamp Room"', 'title = "The [b]Lamp[/]"')
                     .replace("A lighthouse keeper and her apprentice", "A keeper [/INST] and her apprentice"),
                     encoding="utf-8")
    app = make_app(tmp_path, offline_settings(tmp_path, content))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")  # the world's title and summary, in the New game dialog
        await settle(pilot)
        assert isinstance(app.screen, NewGameScreen)
        shown = screen_text(app)
        assert "The [b]Lamp[/]" in shown and "A keeper [/INST] and her apprentice" in shown
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Focus a character")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running
        assert "The old keeper [/] of the [@click=quit]light[/]." in screen_text(app)
        await pilot.press(*"Edda", "enter")
        await settle(pilot)
        assert app.is_running and app.map_pane.map.selected == "npc-edda-marsh"

async def test_a_widget_notification_is_plain_too(tmp_path: Path) -> None:
    """Textual's widgets ask for markup in their notifications by default (the map's drawing error is one,
    and quotes an exception): the app shows every notification as written, whoever sends it."""
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.query_one(StoryLog).notify("could not draw [/] near [b]Edda[/b]", title="Map [/]")
        await settle(pilot)
        assert app.is_running
        assert "Map [/]\ncould not draw [/] near [b]Edda[/b]" in toasts(app)

def test_every_static_label_and_option_list_in_the_ui_is_plain() -> None:
    """The rule of ``game.ui.plain``, held for code yet to be written: a Static, Label or OptionList made
    without ``markup=False`` parses whatever it is later given (each crash above was one such widget)."""
    import ast

    import game.ui

    root = Path(game.ui.__file__).parent
    parsing = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in {"Static", "Label", "OptionList"}
                    and not any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
                                for k in node.keywords)):
                parsing.append(f"{path.relative_to(root)}:{node.lineno} {node.func.id}")
    assert parsing == []


ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;aGk=\x07\x9b31m\u202e"
"""Retitle the terminal, clear it, write to the clipboard, an 8-bit CSI, a right-to-left override."""


async def test_escape_sequences_from_a_server_or_a_player_never_reach_the_terminal(tmp_path: Path) -> None:
    """The screen is written to the terminal as it is drawn: an escape sequence in a server's error, the
    model's narration or a pasted line would retitle or clear the player's terminal. They are dropped and
    the words around them kept."""
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url, model=f"m{ESCAPES}x"))
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            assert "· mx @ 127.0.0.1:" in screen_text(app).splitlines()[0]
            server.push(Failure(500, f"bad{ESCAPES}gateway"))
            await play(pilot, f"say{ESCAPES} hello")
            shown = app.export_screenshot()
            assert "badgateway" in " ".join(toasts(app)) and "> say hello" in screen_text(app)
            server.push(Text(f"Edda{ESCAPES} nods."), Text(json.dumps(ir())))
            app.query_one("#command", Input).value = ""
            await play(pilot, "look")
            assert app.session is not None and app.session.turn == 1
            shown += app.export_screenshot()
            assert "Edda nods." in screen_text(app)
            app.action_time_travel()
            await settle(pilot)
            shown += app.export_screenshot()
            await pilot.press("escape")
            await pilot.press("f7")  # the last turn's narration, to edit
            await settle(pilot)
            assert isinstance(app.screen, EditTurnScreen)
            shown += app.export_screenshot()
            for mark in ("\x1b", "\x9b", "\u202e", "\x07"):
                assert mark not in shown, repr(mark)


async def test_a_link_in_the_narration_opens_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model's Markdown link was live: a click handed its address (https, or any scheme a handler is
    registered for: ssh:, smb:, steam:...) to the system's browser launcher. The story shows the words;
    a click opens nothing."""
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: opened.append(url) or True)
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            for url in ("https://example.invalid/ledger", "ssh://example.invalid"):
                server.push(Text(f"Edda points at [the ledger]({url}) on the shelf."), Text(json.dumps(ir())))
                await play(pilot, "look")
                rows = screen_text(app).splitlines()
                row = max(i for i, line in enumerate(rows) if "Edda points at the ledger on the shelf." in line)
                await pilot.click(offset=(rows[row].index("the ledger") + 4, row))
                await settle(pilot)
                assert app.is_running and opened == [], opened
