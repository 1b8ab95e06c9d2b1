"""``kith play`` draws its first frame before the settings are validated (issue 15): the app may be given
a function that validates them, called as the game opens, after the frame, and the game plays as ever.
The map pane's contents (the map and the details) are mounted just after the first frame too: a map key
pressed before that does nothing, and the map works as ever once it is there."""

from __future__ import annotations

from pathlib import Path

from helpers.ui import WORLDS, make_app, play, settle, toasts
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

from game.config import Settings, load_settings
from game.ui.app import KithApp
from game.ui.keys import KeyStore
from game.ui.story_log import StoryLog


async def test_settings_validated_after_the_first_frame_open_and_play_the_game(tmp_path: Path) -> None:
    calls: list[int] = []

    def validated() -> Settings:
        calls.append(1)
        return load_settings(flags={"world": "tiny", "narrator": "offline", "content_dir": WORLDS,
                                    "saves_dir": tmp_path / "saves"})

    app = KithApp(validated, "game", True, key_store=KeyStore(tmp_path / "config" / "keys.json"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert calls == [1], "validated once, as the game opened"
        assert app.session is not None and app.settings.saves_dir == tmp_path / "saves"
        assert app.query_one("#command", Input).has_focus
        await play(pilot, "help Edda")
        assert "> help Edda" in app.query_one(StoryLog).plain_text()
    assert calls == [1]
    assert (tmp_path / "saves" / "game.sqlite").is_file()


async def test_map_keys_pressed_before_the_map_is_mounted_do_nothing_and_the_map_then_works(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert not app.map_pane.filled, "the first frame is drawn without the map's contents"
        # What the keys and the command palette run, before the map exists: ignored, not an error.
        await app.run_action("toggle_closed")
        await app.run_action("focus_character")
        await app.run_action("resize_map(1)")
        await settle(pilot)
        assert app.map_pane.filled and app.session is not None
        graph = app.map_pane.map
        assert not graph.show_closed, "a key pressed before the map was there is not replayed later"
        assert not [toast for toast in toasts(app) if "rror" in toast], toasts(app)
        await app.run_action("toggle_closed")
        assert graph.show_closed
        await play(pilot, "help Edda")
        assert "> help Edda" in app.query_one(StoryLog).plain_text()
        assert {node.name for node in graph.nodes}, "the map shows who the player knows"


async def test_the_key_bar_follows_the_first_frame_and_its_keys_work_before_it(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert not app.query(Footer), "the first frame is drawn without the key bar"
        await pilot.press("f2")  # a key the bar shows, pressed before the bar is there
        assert app.map_pane.has_class("-hidden")
        await settle(pilot)
        footer = app.query_one(Footer)
        assert footer.region.y == 35, "the key bar takes the last line"
        shown = {key.description for key in footer.query(FooterKey)}
        assert {"Undo", "Help", "Map"} <= shown
        await pilot.press("f2")
        assert not app.map_pane.has_class("-hidden")
