"""Whole flows through the real app: new game, turns, the map, undo, save as, load, details, cancel."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from chat_server import ChatServer, Delayed, Failure, Text, ToolCalls
from helpers.saves import SCHEMA
from helpers.ui import (
    SIZE,
    legacy_app,
    make_app,
    model_settings,
    offline_settings,
    play,
    screen_text,
    settle,
    toasts,
)
from llm_helpers import character, ir, relation
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Checkbox, DataTable, Input, OptionList, Select, Static

from game.store import layout
from game.store.database import SaveDatabase
from game.ui.app import KithApp
from game.ui.relationship_map import RelationshipMap
from game.ui.screens.confirm import ConfirmScreen
from game.ui.screens.load_game import LoadScreen
from game.ui.screens.new_game import NewGameScreen
from game.ui.screens.problem import ProblemScreen
from game.ui.screens.save_as import SaveAsScreen
from game.ui.screens.settings import SettingsScreen
from game.ui.screens.time_travel import TimeTravelScreen
from game.ui.story_log import StoryLog


async def test_new_game_from_the_screen_then_turns_draw_a_new_relation(tmp_path: Path) -> None:
    app = make_app(tmp_path, save="first")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, NewGameScreen)
        name = app.screen.query_one("#name")
        name.value = "lamp-night"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        assert app.session is not None and app.session.save_name == "lamp-night"
        assert (tmp_path / "saves" / "lamp-night.sqlite").exists()
        graph = app.map_pane.map
        before = set(graph.drawing.lines)
        await play(pilot, "look")
        await play(pilot, "help edda")
        await play(pilot, "ask edda about tobin")
        story = app.query_one(StoryLog).plain_text()
        assert "> help edda" in story and "You steady the wick" in story
        assert "◆ Edda Marsh → Sam Reed TRUSTS (+0.60)" in story
        drawn = set(graph.drawing.lines)
        assert drawn - before == {("npc-edda-marsh", "npc-sam-reed"), ("npc-sam-reed", "npc-tobin-hale")}
        assert "KNOWS_SECRET_OF" in screen_text(app)
        assert app.status.turn == 3 and app.status.save_name == "lamp-night"
    async with await SaveDatabase.open(tmp_path / "saves" / "lamp-night.sqlite", schema=SCHEMA) as db:
        assert await db.current_turn() == 3
        assert set(await layout.load_layout(db)) == {n.id for n in await db.graph.all_nodes()}


WREN_FACT = "Wren Tally has owed Edda Marsh a season's wages since the wreck."


def _wren_turn(server: ChatServer) -> None:
    """A model turn that brings a newcomer, Wren, into the story with a relation to Edda."""
    facts = ir(charactersPresent=["Sam Reed", "Edda Marsh", "Wren Tally"],
               entities=[character("Wren Tally", "A salvager who rows out to the rock at low tide.")],
               relations=[relation("Wren Tally", "Edda Marsh", "OWES", -0.5, WREN_FACT)], nextCast=["Edda Marsh"])
    # The relation's evidence is quoted from the narration (the engine drops relations it cannot find there).
    server.push(Text(f"A salvager called Wren Tally climbs the stair, dripping. {WREN_FACT} Edda glares at her."),
                Text(json.dumps(facts)))


async def test_a_model_turn_adds_a_node_and_an_edge_and_undo_takes_them_away(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            graph = app.map_pane.map
            assert "npc-wren-tally" not in graph.drawing.boxes
            _wren_turn(server)
            await play(pilot, "wait for the tide")
            assert "npc-wren-tally" in graph.drawing.boxes
            assert ("npc-edda-marsh", "npc-wren-tally") in graph.drawing.lines
            assert "(Wren Tally)" in screen_text(app)
            assert app.status.narrator.startswith("test-model @ 127.0.0.1")
            async with await SaveDatabase.open(tmp_path / "saves" / "game.sqlite", schema=SCHEMA) as db:
                assert "npc-wren-tally" in await layout.load_layout(db)
            kept = dict(app.map_pane.map.positions)
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert app.session is not None and app.session.turn == 0
            assert "npc-wren-tally" not in graph.drawing.boxes
            assert ("npc-edda-marsh", "npc-wren-tally") not in graph.drawing.lines
            assert "Undone “wait for the tide”" in app.query_one(StoryLog).plain_text()
            assert {i: graph.positions[i] for i in graph.positions} == {i: kept[i] for i in graph.positions}


async def test_a_failing_model_is_a_notification_and_the_command_comes_back(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url))
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            server.push(Failure(500, "the model fell over"))
            await play(pilot, "look around")
            assert app.session is not None and app.session.turn == 0
            shown = " ".join(toasts(app))
            assert "Nothing of this turn was saved" in shown
            assert app.query_one("#command", Input).value == "look around"
            assert "Nothing of this turn was saved" in app.query_one(StoryLog).plain_text()
            assert app.is_running


async def test_esc_cancels_a_turn_in_progress_and_nothing_is_written(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url, timeout=10.0))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            server.push(Delayed(5.0, Text("This narration arrives far too late.")))
            app.query_one("#command", Input).value = "wait"
            await pilot.press("enter")
            for _ in range(50):
                await pilot.pause(0.02)
                if app.status.activity:
                    break
            assert app.turn_running and app.status.activity == "telling the turn"
            await pilot.press("escape")
            await settle(pilot)
            assert not app.turn_running and app.status.activity == ""
            assert "Cancelled: nothing of that turn was saved." in app.query_one(StoryLog).plain_text()
            assert app.session is not None and app.session.turn == 0
    async with await SaveDatabase.open(tmp_path / "saves" / "game.sqlite", schema=SCHEMA) as db:
        assert await db.current_turn() == 0


async def test_save_as_then_load_returns_to_that_moment(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "help edda")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, SaveAsScreen)
        app.screen.query_one("#name", Input).value = "before-tobin"
        await pilot.press("enter")
        await settle(pilot)
        assert "Saved a snapshot of turn 1 as **before-tobin**" in app.query_one(StoryLog).plain_text()
        await play(pilot, "ask edda about tobin")
        assert app.session is not None and app.session.turn == 2
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(app.screen, LoadScreen)
        table = app.screen.query_one(DataTable)
        names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert set(names) == {"game (playing)", "before-tobin"}
        table.move_cursor(row=names.index("before-tobin"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.save_name == "before-tobin" and app.session.turn == 1
        assert app.status.save_name == "before-tobin" and app.status.turn == 1
        assert ("npc-sam-reed", "npc-tobin-hale") not in app.map_pane.map.drawing.lines
        assert ("npc-edda-marsh", "npc-sam-reed") in app.map_pane.map.drawing.lines


async def test_a_bad_save_name_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        app.screen.query_one("#name", Input).value = "../../etc/passwd"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SaveAsScreen)
        problem = str(app.screen.query_one("#problem", Static).content)
        assert "is not a save name" in problem and "letters, digits" in problem
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, SaveAsScreen)
    assert sorted(p.name for p in (tmp_path / "saves").glob("*.sqlite")) == ["game.sqlite"]


async def test_tab_and_click_select_a_node_and_its_details_show(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "help edda")
        graph = app.map_pane.map
        await pilot.press("tab")
        assert graph.has_focus
        await pilot.press("tab")  # the first name, alphabetically: Edda Marsh
        await settle(pilot)
        assert graph.selected == "npc-edda-marsh"
        details = app.map_pane.details
        assert details.display
        text = details.text
        assert text.startswith("### Edda Marsh")
        assert "The old keeper of the light, who does not want to retire." in text
        assert "**Labels:** keeper" in text and "**Also known as:** Edda, the keeper" in text
        assert "**Edda Marsh** → **Sam Reed** (TRUSTS, +0.60): Edda Marsh trusts Sam Reed since Sam steadied her wick." in text
        assert "- Turn 1, began:" in text
        # The Board has not been named to the player: it is not on their map.
        assert "npc-lighthouse-board" not in graph.drawing.boxes
        box = graph.drawing.boxes["npc-sam-reed"]
        await pilot.click(RelationshipMap, offset=(box.x + 1, box.y))
        await settle(pilot)
        assert graph.selected == "npc-sam-reed"
        assert details.text.startswith("### Sam Reed")
        await pilot.press("escape")
        await settle(pilot)
        assert graph.selected is None and not details.display
        await pilot.press("escape")
        assert app.query_one("#command", Input).has_focus


async def test_typing_while_the_map_has_focus_goes_to_the_input_line(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        graph = app.map_pane.map
        await pilot.press("tab")
        assert graph.has_focus
        zoom = graph.zoom
        await pilot.press("l", "o", "o", "k")  # the player starts typing without leaving the map
        await settle(pilot)
        command = app.query_one("#command", Input)
        assert command.has_focus and command.value == "look"
        assert graph.zoom == zoom
        await pilot.press("tab")
        assert graph.has_focus
        await pilot.press("plus")  # the map's own keys stay the map's
        assert graph.zoom > zoom and command.value == "look"


def test_every_printable_key_the_map_binds_stays_the_maps() -> None:
    """The map passes typing on to the input line except its own keys: a key bound later (``v`` for the
    views) that the list did not name would be typed into the story instead."""
    from game.ui.relationship_map import MAP_KEYS

    bound = {key for binding in RelationshipMap.BINDINGS if isinstance(binding, Binding)
             for name in binding.key.split(",") for key in [KEY_CHARACTERS.get(name, name)] if len(key) == 1}
    assert bound == set(MAP_KEYS)


KEY_CHARACTERS = {"plus": "+", "minus": "-", "equals_sign": "="}


async def test_focus_a_character_from_the_palette(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "ask edda about tobin")  # Edda names Tobin: now the player has heard of him
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Focus a character")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press(*"Tobin")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.map_pane.map.selected == "npc-tobin-hale"
        details = app.map_pane.details.text
        assert details.startswith("### Tobin Hale")
        # What the town says of him, not the authored truth the player has not learned.
        assert "polite and quick with a polishing rag" in details and "wants the post" not in details


async def test_command_history_and_speech(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "look")
        await play(pilot, "wait")
        field = app.query_one("#command", Input)
        field.value = "half typed"
        await pilot.press("up")
        assert field.value == "wait"
        await pilot.press("up")
        assert field.value == "look"
        await pilot.press("down", "down")
        assert field.value == "half typed"
        field.value = ""
        await pilot.press(*'"hello up there')
        assert field.has_class("-speech")
        await pilot.press("enter")
        await settle(pilot)
        assert '> "hello up there' in app.query_one(StoryLog).plain_text()
        assert not field.has_class("-speech")


async def test_a_save_that_cannot_open_is_a_modal_and_the_app_stays(tmp_path: Path) -> None:
    (tmp_path / "saves").mkdir()
    (tmp_path / "saves" / "broken.sqlite").write_text("this is not a database", encoding="utf-8")
    app = make_app(tmp_path, save="broken", new=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProblemScreen)
        assert app.session is None
        await pilot.press("enter")
        await settle(pilot)
        await play(pilot, "look")
        assert app.is_running and app.session is None
    assert (tmp_path / "saves" / "broken.sqlite").read_text(encoding="utf-8") == "this is not a database"


async def test_load_screen_deletes_only_after_confirmation(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "save spare")
        await pilot.press("ctrl+o")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        names = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        table.move_cursor(row=names.index("spare"))
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # no
        await settle(pilot)
        assert (tmp_path / "saves" / "spare.sqlite").exists()
        await pilot.press("d")
        await settle(pilot)
        await pilot.click("#yes")
        await settle(pilot)
        assert not (tmp_path / "saves" / "spare.sqlite").exists()
        assert isinstance(app.screen, LoadScreen)
        assert app.screen.query_one(DataTable).row_count == 1
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=0)
        await pilot.press("d")
        await settle(pilot)
        assert "is the game you are playing" in str(app.screen.query_one("#problem", Static).content)
    assert (tmp_path / "saves" / "game.sqlite").exists()


async def test_time_travel_shows_the_map_as_it_stood(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "help edda")
        await play(pilot, "ask edda about tobin")
        graph = app.map_pane.map
        app.action_time_travel()
        await settle(pilot)
        assert isinstance(app.screen, TimeTravelScreen)
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert labels == ["Now (turn 2)", "Turn 1: help edda", "Turn 0: the beginning"]
        options.highlighted = 1
        await pilot.press("enter")
        await settle(pilot)
        assert graph.at_turn == 1 and app.status.map_turn == 1
        assert ("npc-edda-marsh", "npc-sam-reed") in graph.drawing.lines
        assert ("npc-sam-reed", "npc-tobin-hale") not in graph.drawing.lines
        assert "Relationships · as of turn 1" in screen_text(app)
        app.action_time_travel()
        await settle(pilot)
        await pilot.press("enter")  # Now
        await settle(pilot)
        assert graph.at_turn is None
        assert ("npc-sam-reed", "npc-tobin-hale") in graph.drawing.lines


async def test_time_travel_centres_the_map_on_that_turns_stage(tmp_path: Path) -> None:
    """After climbing to the lamp room, the map of turn 1 is centred on who was on stage then (Edda on the
    stair), not on who is on stage now; coming back to now centres it on today's stage again."""
    app = await legacy_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        graph = app.map_pane.map
        at_start = list(graph.stage)
        assert "npc-edda-marsh" in at_start
        await play(pilot, "talk to edda")
        await play(pilot, "up")
        now = list(graph.stage)
        assert now != at_start and "npc-edda-marsh" not in now, now
        app.action_time_travel()
        await settle(pilot)
        options = app.screen.query_one(OptionList)
        options.highlighted = options.option_count - 2  # Turn 1: talk to edda, still on the stair
        await pilot.press("enter")
        await settle(pilot)
        assert graph.at_turn == 1 and graph.stage == at_start
        assert graph.drawing.view == "scene" and "npc-edda-marsh" in graph.drawing.boxes
        app.action_time_travel()
        await settle(pilot)
        await pilot.press("enter")  # Now
        await settle(pilot)
        assert graph.at_turn is None and graph.stage == now


async def test_map_toggles_resizes_zooms_and_shows_ended_relations(tmp_path: Path) -> None:
    app = await legacy_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "talk to edda")
        await play(pilot, "up")
        await play(pilot, "accuse tobin of wanting the job")
        pane, graph = app.map_pane, app.map_pane.map
        assert ("npc-edda-marsh", "npc-tobin-hale") not in graph.drawing.lines
        await pilot.press("f2")
        assert not pane.display
        await pilot.press("f2")
        assert pane.display
        width = pane.size.width
        await pilot.press("f3")
        await settle(pilot)
        assert pane.size.width == width - 6
        await pilot.press("f4")
        await settle(pilot)
        assert pane.size.width == width, "wider again, up to the 40% the story leaves it"
        assert graph.drawing.width == graph.size.width, "the map is redrawn for its new size"
        graph.focus()
        await pilot.press("c")
        await settle(pilot)
        assert ("npc-edda-marsh", "npc-tobin-hale") in graph.drawing.lines
        await pilot.press("tab", "plus")
        assert graph.zoom == 1.5
        await pilot.press("minus")
        assert graph.zoom == 1.0


async def test_quit_asks_first_and_leaves_with_the_game_saved(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "help edda")
        await play(pilot, "quit")
        assert isinstance(app.screen, ConfirmScreen)
        assert "saved as game at turn 1" in str(app.screen.query_one(".title", Static).content)
        await pilot.click("#yes")
        await pilot.pause()
    assert app.return_code == 0
    assert app.session is None, "the save is closed on the way out"


PROBE_REPLIES = (Text("ready"), Text("one, two, three, four, five"), ToolCalls([("ping", {"word": "hello"})]),
                 ToolCalls([("ping", {"word": "hello"})]), Text('{"colour": "red", "count": 3}'))
KEY = "sk-typed-SECRET-9876543210"


async def _fill_settings(pilot: Pilot[KithApp], server: ChatServer, remember: bool) -> SettingsScreen:
    app = pilot.app
    await pilot.press("f5")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    screen.query_one("#narrator", Select).value = "openai"
    screen.query_one("#base-url", Input).value = server.base_url
    screen.query_one("#model", Input).value = "test-model"
    screen.query_one("#key", Input).value = KEY
    screen.query_one("#remember", Checkbox).value = remember
    return screen


async def test_settings_switch_to_a_model_with_a_key_kept_only_in_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ChatServer() as server:
        server.require_key = KEY
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.status.narrator == "offline narrator"
            screen = await _fill_settings(pilot, server, remember=False)
            server.push(*PROBE_REPLIES)
            await pilot.click("#test")
            await settle(pilot)
            report = str(screen.query_one("#report", Static).content)
            assert "✓ Narration works with these settings." in report
            assert KEY not in report and KEY not in screen_text(app)
            before = dict(os.environ)
            await pilot.click("#apply")
            await settle(pilot)
            assert app.status.narrator == f"test-model @ 127.0.0.1:{server.port}"
            assert dict(os.environ) == before, "the typed key stays in Kith's memory, out of the process environment"
            server.push(Text("The wind drops for a moment."), Text(json.dumps(ir(charactersPresent=["Sam Reed"]))))
            await play(pilot, "listen")
            assert app.session is not None and app.session.turn == 1
            assert server.chat_requests[-1].headers["authorization"] == f"Bearer {KEY}"
            assert KEY not in screen_text(app)
    assert not (tmp_path / "config" / "keys.json").exists(), "nothing is stored unless asked"


async def test_a_remembered_key_is_stored_for_the_owner_only_and_used_next_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ChatServer() as server:
        app = make_app(tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await _fill_settings(pilot, server, remember=True)
            await pilot.click("#apply")
            await settle(pilot)
        stored = tmp_path / "config" / "keys.json"
        assert json.loads(stored.read_text(encoding="utf-8")) == {"OPENAI_API_KEY": KEY}
        assert stat.S_IMODE(stored.stat().st_mode) == 0o600
        assert "OPENAI_API_KEY" not in os.environ, "the key is remembered in the file, not the process environment"
        server.require_key = KEY
        again = make_app(tmp_path, model_settings(tmp_path, server.base_url), save="second")
        async with again.run_test(size=SIZE) as pilot:
            await settle(pilot)
            server.push(Text("Gulls wheel past the glass."), Text(json.dumps(ir(charactersPresent=["Sam Reed"]))))
            await play(pilot, "wait")
            assert again.session is not None and again.session.turn == 1
            assert server.chat_requests[-1].headers["authorization"] == f"Bearer {KEY}"


async def test_a_new_game_can_start_in_a_world_of_the_players_own(tmp_path: Path) -> None:
    """The New game screen listed only the shipped worlds, so a world in the player's own folder
    (`worlds_dir`, KITH_WORLDS) could not be chosen there; and a save in one could not be loaded."""
    import shutil

    own = tmp_path / "my-worlds"
    shutil.copytree(Path(__file__).parent / "fixtures" / "worlds" / "skerry", own / "skerry-mine")
    settings = offline_settings(tmp_path).model_copy(update={"worlds_dir": own})
    app = make_app(tmp_path, settings, save="first")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, NewGameScreen)
        assert {"tiny", "skerry-mine"} <= {w.id for w in app.screen.worlds}
        app.screen.query_one("#world", Select).value = "skerry-mine"  # refused unless it is an option
        app.screen.query_one("#name", Input).value = "mine"
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.session is not None and app.session.world.id == "skerry-mine"
