"""The story pane's Markdown entries: narration, and the game's own answers (help, inspector commands).

Kept apart from ``story_lines``: this module loads Textual's Markdown (and its parser), which the first
frame does not need. Their looks are the classes' default CSS, parsed when the first block is mounted.
"""

from __future__ import annotations

from textual.await_complete import AwaitComplete
from textual.widgets import Markdown

from game.text import strip_control


class StoryBlock(Markdown):
    """Narration, flush with the pane: no margin, padding or background of its own.

    Whatever it is given, whole, appended by the stream as a model tells it, or in place of an earlier
    telling, goes in without escape sequences: Textual writes the text to the terminal as it is
    (``game.ui.plain``). Markdown is the story's format, so its marks still count, but a link a model
    writes is only words: a click would hand its address (any scheme) to the system's URL launcher."""

    DEFAULT_CSS = """
    StoryBlock {
        margin: 0;
        padding: 0;
        background: transparent;
    }
    """

    def __init__(self, markdown: str = "", *, classes: str | None = None) -> None:
        super().__init__(strip_control(markdown), classes=classes, open_links=False)

    def update(self, markdown: str) -> AwaitComplete:
        return super().update(strip_control(markdown))

    def append(self, markdown: str) -> AwaitComplete:
        return super().append(strip_control(markdown))


class MetaBlock(StoryBlock):
    """The game speaking, not the story: set apart by a rule on the left and a lighter background."""

    DEFAULT_CSS = """
    MetaBlock {
        border-left: outer $secondary;
        background: $boost;
        padding: 0 1;
        margin: 1 0 0 0;
    }
    """
