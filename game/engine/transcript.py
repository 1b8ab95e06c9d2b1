"""The in-game ``transcript``: every command and its output appended to a plain-text file.

A transcript is a convenience beside the save, never a reason to lose a turn: a path that cannot be
written (a folder, a full or read-only disk) is told to the player and play goes on. What is written is
plain text: the screen's Markdown marks are dropped (``plain``, which line mode and script checks use too),
and, since narration and names can come from a model, terminal escape sequences are stripped before they
reach a file someone will ``cat``.
"""

from __future__ import annotations

import re
from pathlib import Path

from game.engine.events import AttitudeChanged, Event, MetaOutput, NarrationDone, Notice, TurnFailed
from game.errors import KithError
from game.text import strip_control

_STRONG = re.compile(r"\*\*|__|`")
# A single * that opens or closes emphasis: touching a word on one side and not on the other. A bullet
# ("* item") or arithmetic ("2 * 3") has spaces on both sides and stays.
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])|(?<=[^\s*])\*(?![\w*])")
_HEADING = re.compile(r"^#{1,6}\s+", re.MULTILINE)


def plain(text: str) -> str:
    """The player's view of game text off the screen (a transcript, line mode, script checks): the screen's
    Markdown emphasis, code marks, heading marks and terminal control removed; the rest as written."""
    return _HEADING.sub("", _EMPHASIS.sub("", _STRONG.sub("", strip_control(text))))


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


class Transcript:
    """Where the transcript goes, when one is being written."""

    def __init__(self) -> None:
        self.path: Path | None = None

    def start(self, path: Path) -> None:
        """Write to ``path`` from now on; refused with a message when it cannot be opened for appending."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8"):
                pass
        except OSError as error:
            raise KithError(f"The transcript could not be started: {path} cannot be written ({_reason(error)}).",
                            title="Transcript") from None
        self.path = path

    def stop(self) -> None:
        self.path = None

    def write(self, text: str) -> str | None:
        """Append ``text``; on failure the transcript stops and the returned sentence says why."""
        path = self.path
        if path is None:
            return None
        try:
            with path.open("a", encoding="utf-8") as handle:
                handle.write(plain(text))  # plain text, as line mode prints it: no Markdown marks
        except OSError as error:
            self.path = None
            return (f"The transcript stopped: {path} could not be written ({_reason(error)}). "
                    "Your game is saved as usual; type `transcript on` to try again.")
        return None

    def log(self, event: Event) -> str | None:
        """Log what the player saw of ``event``; a sentence when the transcript had to stop."""
        if isinstance(event, NarrationDone | MetaOutput | Notice):
            return self.write(f"{event.text}\n\n")
        if isinstance(event, AttitudeChanged) and event.line:
            return self.write(f"{event.line}\n\n")
        if isinstance(event, TurnFailed):
            return self.write(f"{event.message}\n\n")
        return None
