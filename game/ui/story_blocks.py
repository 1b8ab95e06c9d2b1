"""The story pane's Markdown entries: narration, and the game's own answers (help, inspector commands).

Kept apart from ``story_lines``: this module loads Textual's Markdown (and its parser), which the first
frame does not need. Their looks are the classes' default CSS, parsed when the first block is mounted.
"""

from __future__ import annotations

from textual.widgets import Markdown


class StoryBlock(Markdown):
    """Narration, flush with the pane: no margin, padding or background of its own."""

    DEFAULT_CSS = """
    StoryBlock {
        margin: 0;
        padding: 0;
        background: transparent;
    }
    """


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
