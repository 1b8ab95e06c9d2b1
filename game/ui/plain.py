"""Kith writes no Textual markup: every text on screen may hold a player's, a model server's, a world's or a
save file's words, and ``[/]`` or ``[/INST]`` read as markup ended the game (``MarkupError``), while ``[b]``
or ``[@click=quit]`` were eaten or became links (issue 21). So the whole UI keeps one rule, in one of three
forms, by what the widget takes:

- a ``Static`` or ``Label`` is made with ``markup=False`` (its later ``update(str)`` is plain as well);
- a table cell, an option or a select prompt gets ``plain(text)``, a Rich ``Text`` that is never parsed;
- the command palette parses its prompts and help whatever it is given, so they get ``escaped(text)``.

Notifications are plain through ``KithApp.notify``. ``tests/test_ui_markup.py`` holds every Static and
Label in ``game/ui`` to the first form.
"""

from __future__ import annotations

from rich.text import Text
from textual.markup import escape


def plain(text: str) -> Text:
    """``text`` as Textual shows it literally: brackets and backslashes included."""
    return Text(text)


def escaped(text: str) -> str:
    """``text`` for a place that reads markup whatever it is given (the palette's prompts and help)."""
    return escape(text)
