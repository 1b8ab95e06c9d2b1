"""Kith writes no Textual markup: every text on screen may hold a player's, a model server's, a world's or a
save file's words, and ``[/]`` or ``[/INST]`` read as markup ended the game (``MarkupError``), while ``[b]``
or ``[@click=quit]`` were eaten or became links (issue 21). Textual also writes what it draws to the
terminal as it is, so an escape sequence in those words would retitle, clear or write to the clipboard of
the player's terminal. So the whole UI keeps one rule, in one of three forms, by what the widget takes:

- a ``Static``, ``Label`` or ``OptionList`` is made with ``markup=False``, and text it did not write itself
  goes in as ``plain(text)``: a Rich ``Text``, never parsed, with escape sequences and control characters
  dropped (``game.text.strip_control``). Table cells, options and select prompts get ``plain(text)`` too;
- the command palette parses its prompts and help whatever it is given, so they get ``escaped(text)``;
- the story's own entries (``story_lines``, ``story_blocks``) and ``KithApp.notify`` apply it themselves.

``tests/test_ui_markup.py`` holds every Static, Label and OptionList in ``game/ui`` to ``markup=False``.
"""

from __future__ import annotations

from rich.text import Text
from textual.markup import escape

from game.text import strip_control


def plain(text: str) -> Text:
    """``text`` as Textual shows it literally (brackets and backslashes included), safe for the terminal."""
    return Text(strip_control(text))


def escaped(text: str) -> str:
    """``text`` for a place that reads markup whatever it is given (the palette's prompts and help)."""
    return escape(strip_control(text))
