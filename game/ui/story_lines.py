"""The story pane's one-line entries: the player's command and the game's own notes, each a widget class
with its own look.

Each look is the class's default CSS, which Textual parses when the first entry of that kind is mounted.
The story pane is empty in the first frame, so the launch does not wait for any of it (issue 15).
Every line is plain text (``markup=False``) without escape sequences: a command or a model's words may hold
square brackets, or bytes that would retitle or clear the terminal (``game.ui.plain``).
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static

from game.text import strip_control


class StoryLine(Static):
    """A line of plain text in the story pane."""

    def __init__(self, text: str, *, classes: str | None = None) -> None:
        super().__init__(strip_control(text), markup=False, classes=classes)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """A line told again (a retold turn's command) is kept as plain as the first."""
        super().update(strip_control(content) if isinstance(content, str) else content, layout=layout)


class CommandLine(StoryLine):
    """What the player typed, as ``> text``."""

    DEFAULT_CSS = """
    CommandLine {
        color: $text-accent;
        text-style: bold;
        margin: 1 0 0 0;
    }
    """


class ChangeLine(StoryLine):
    """One change to who-is-what-to-whom, quiet beside the story."""

    DEFAULT_CSS = """
    ChangeLine {
        color: $text-muted;
        text-style: italic;
    }
    """


class FailureLine(StoryLine):
    """Something went wrong with the turn (an error the player can act on)."""

    DEFAULT_CSS = """
    FailureLine {
        color: $text-error;
        border-left: outer $error;
        padding: 0 1;
        margin: 1 0 0 0;
    }
    """


class WarningLine(StoryLine):
    """A warning kept with its turn: relations not updated, a close refused."""

    DEFAULT_CSS = """
    WarningLine {
        color: $text-warning;
        border-left: outer $warning;
        padding: 0 1;
        margin: 1 0 0 0;
    }
    """


class CancelledLine(StoryLine):
    """A turn the player stopped."""

    DEFAULT_CSS = """
    CancelledLine {
        color: $text-warning;
        text-style: italic;
    }
    """


class EndingLine(StoryLine):
    """The story's ending, centred."""

    DEFAULT_CSS = """
    EndingLine {
        color: $text-success;
        text-style: bold;
        text-align: center;
        margin: 1 0;
    }
    """
