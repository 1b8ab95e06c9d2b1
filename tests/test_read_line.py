"""A line of player input is read for meta commands once (``game.engine.meta.read_line``): the screen routes
on what it is and hands it to the session as read, so the two can never take one line two ways."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.ui import SIZE, make_app, play, settle

from game.engine import meta
from game.engine.meta import MetaCommand, PlayerLine, parse_meta, read_line
from game.registry import Registry
from game.ui.command_input import MODES, CommandInput


def test_a_line_is_read_in_its_input_mode_and_a_meta_command_is_one_in_every_mode() -> None:
    assert read_line("  look  ") == PlayerLine("look", None)
    assert read_line("Hello there", "say") == PlayerLine('"Hello there', None)
    assert read_line('"Hello', "say") == PlayerLine('"Hello', None)  # already spoken: not quoted twice
    assert read_line("It rains.", "story") == PlayerLine("/story It rains.", MetaCommand("story", "It rains."))
    # Story mode's command is the one typing ``/story ...`` gives, built without reading the line again.
    assert read_line("It rains.", "story").command == parse_meta("/story It rains.")
    for mode in MODES:
        assert read_line("undo 2", mode) == PlayerLine("undo 2", MetaCommand("undo", "2"))
        assert read_line("/note terse", mode).command == MetaCommand("note", "terse")
        assert read_line("   ", mode) == PlayerLine("", None)
    assert read_line("help Edda", "do").command is None  # helping someone is an act, not a command
    assert meta.INPUT_MODES == MODES  # the input line cycles the modes the engine reads
    with pytest.raises(ValueError, match="unknown input mode 'shout'"):
        read_line("hey", "shout")


async def test_each_line_typed_on_the_screen_is_parsed_once_and_played_as_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    original = meta.parse_meta

    def counted(text: str, registry: Registry | None = None) -> MetaCommand | None:
        parsed.append(text)
        return original(text, registry)

    # Counted, not replaced: every line still goes through the real parser, and the real session plays it.
    monkeypatch.setattr(meta, "parse_meta", counted)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.session
        assert session is not None
        await play(pilot, "look")
        assert session.turn == 1
        field = app.query_one(CommandInput)
        await pilot.press("ctrl+t", "ctrl+t")
        assert field.mode == "story"
        await play(pilot, "The lamp gutters.")
        assert session.turn == 2 and session.history[-1].narration == "The lamp gutters."
        await play(pilot, "/graph")  # a meta command in story mode: shown, not added to the story
        assert session.turn == 2
        await play(pilot, "undo")
        assert session.turn == 1
    for line in ("look", "The lamp gutters.", "/graph", "undo"):
        assert parsed.count(line) == 1, (line, parsed)
    assert not [text for text in parsed if "/story" in text]  # story mode's command is not read again
