"""The screen as players meet it: undone turns leave the story pane, the story clock in the status line,
screenshots that land somewhere real, Save as without a false warning, and room for the story at every size."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.ui import make_app, play, screen_text, settle, toasts
from textual.widgets import Input

from game.config import Settings
from game.ui.story_log import StoryLog


async def test_undone_turns_leave_the_story_pane(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await play(pilot, "help Edda")
        await play(pilot, "ask Edda about the lamp")
        await play(pilot, "threaten Edda")
        log = app.query_one(StoryLog)
        assert "> threaten Edda" in log.plain_text()
        await play(pilot, "undo 2")
        shown = log.plain_text()
        assert "> help Edda" in shown, "the turn that was kept stays"
        assert "> ask Edda about the lamp" not in shown and "> threaten Edda" not in shown
        assert "Undone 2 turns" in shown, "the undo itself is told"
        await pilot.press("ctrl+z")
        await settle(pilot)
        shown = log.plain_text()
        assert "> help Edda" not in shown and "Undone “help Edda”" in shown
        assert not [t for t in toasts(app) if "still being told" in t]


async def test_save_as_with_enter_saves_without_a_turn_still_being_told(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        await play(pilot, "help Edda")
        await pilot.press("ctrl+s")
        await settle(pilot)
        app.screen.query_one("#name", Input).value = "kept"
        await pilot.press("enter")
        await settle(pilot)
        assert "Saved a snapshot of turn 1 as **kept**" in app.query_one(StoryLog).plain_text()
        assert [t for t in toasts(app) if "still being told" in t] == []
        assert app.query_one(StoryLog).plain_text().count("> save kept") == 1


async def test_palette_screenshot_lands_in_the_saves_folder_and_says_where(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # a home with no Downloads folder
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(tmp_path / "home" / "Downloads"))
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Screenshot")
        await settle(pilot)
        await pilot.press("enter")
        for _ in range(40):
            await pilot.pause(0.05)
            if list((tmp_path / "saves").glob("*.svg")):
                break
        await settle(pilot)
        shots = list((tmp_path / "saves").glob("*.svg"))
        assert len(shots) == 1 and "<svg" in shots[0].read_text(encoding="utf-8")
        shown = " ".join(toasts(app))
        assert "Failed" not in shown and str(shots[0]) in shown.replace("\n", "")


CONTENT = Path(__file__).parent.parent / "content"


async def test_the_status_line_shows_the_story_clock_and_free_commands_do_not_move_it(tmp_path: Path) -> None:
    settings = Settings(world="brinefall", narrator="offline", content_dir=CONTENT, saves_dir=tmp_path / "saves")
    app = make_app(tmp_path, settings, world="brinefall")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.session is not None
        assert app.session.time_of_day().startswith("It is early afternoon")
        assert "It is early afternoon" in screen_text(app).splitlines()[0]
        await play(pilot, "look")
        assert "It is early afternoon" in screen_text(app).splitlines()[0]
    narrow = make_app(tmp_path, settings, save="narrow", world="brinefall")
    async with narrow.run_test(size=(80, 24)) as pilot:  # narrow: as much as fits, never over the save's name
        await settle(pilot)
        top = screen_text(narrow).splitlines()[0]
        assert "Kith" in top and "It is" in top and len(top.rstrip()) <= 80


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 36), (200, 50)])
async def test_the_story_keeps_at_least_sixty_percent_of_the_width(tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await play(pilot, "help Edda")
        story = app.query_one("#story-pane").outer_size.width
        assert story >= 0.6 * size[0], (story, size)
        assert app.map_pane.display and app.map_pane.outer_size.width >= 24, "the map narrows, it is still there"
        await pilot.press("f4")  # wider map, as far as it may go
        await pilot.press("f4", "f4", "f4", "f4")
        await settle(pilot)
        assert app.query_one("#story-pane").outer_size.width >= 0.6 * size[0]
        legend = [line for line in app.map_pane.map.drawing.plain().splitlines() if "pos" in line]
        assert len(legend) == 1, "the legend is one line"


async def test_below_sixty_columns_the_map_folds_away_and_f2_brings_it_back(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(56, 24), notifications=True) as pilot:
        await settle(pilot)
        assert not app.map_pane.display and app.query_one("#story-pane").outer_size.width == 56
        assert any("F2" in t for t in toasts(app))
        await pilot.press("f2")
        await settle(pilot)
        assert app.map_pane.display and app.map_pane.outer_size.width >= 20
        await pilot.resize_terminal(120, 36)
        await settle(pilot)
        assert app.map_pane.display


async def test_at_80x24_an_ending_is_told_in_the_story_and_nothing_covers_the_input_or_the_keys(
        tmp_path: Path) -> None:
    settings = Settings(world="brinefall", narrator="offline", content_dir=CONTENT, saves_dir=tmp_path / "saves")
    app = make_app(tmp_path, settings, world="brinefall")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # notices shown, as players see them
        await settle(pilot)
        for _ in range(10):  # turn 10: a longer turn number leaves the hour less room
            await play(pilot, "z")
        clock = screen_text(app).splitlines()[0]
        assert "It is" in clock and len(clock.rstrip()) <= 80
        hour = clock[clock.index("It is"):].rstrip()
        said = app.status.hour
        # Cut short, the hour ends at a whole word or a clause, never mid-word ("grey and col…").
        assert said.startswith(hour.removesuffix("…").rstrip(" ,;")), (hour, said)
        assert hour == said or said[len(hour.removesuffix("…").rstrip(" ,;"))] in " ,;.", (hour, said)
        await play(pilot, "leave")
        await play(pilot, "leave")  # Hob rows you home: The Last Ferry
        await settle(pilot)
        assert app.session is not None and app.session.scene.ending == "ferry"
        assert "The Last Ferry" in app.query_one(StoryLog).plain_text()
        assert toasts(app), "the ending is also a notice"
        command = app.query_one("#command", Input).region
        for toast in app.screen.query("Toast"):  # by type name: Toast is not public
            assert not toast.region.overlaps(command), f"a notice covers the input line: {toast.render()}"
        lines = screen_text(app).splitlines()
        keys = lines[-1]
        assert "Undo" in keys and "Load" in keys and "palette" in keys, keys  # the key bar is whole
