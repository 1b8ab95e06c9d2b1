"""``kith play`` draws its first frame before the settings are validated (issue 15): the app may be given
a function that validates them, called as the game opens, after the frame, and the game plays as ever."""

from __future__ import annotations

from pathlib import Path

from helpers.ui import WORLDS, play, settle
from textual.widgets import Input

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
