"""The in-game ``transcript``: every command and its output appended to a plain-text file.

A transcript is a convenience beside the save, never a reason to lose a turn: a path that cannot be
written (a folder, a full or read-only disk) is told to the player and play goes on. What is written is
plain text: narration and names can come from a model, so terminal escape sequences are stripped before
they reach a file someone will ``cat``.
"""

from __future__ import annotations

from pathlib import Path

from game.errors import KithError
from game.text import strip_control


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
                handle.write(strip_control(text))
        except OSError as error:
            self.path = None
            return (f"The transcript stopped: {path} could not be written ({_reason(error)}). "
                    "Your game is saved as usual; type `transcript on` to try again.")
        return None
