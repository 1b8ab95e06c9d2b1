"""The in-game ``transcript``: every command and its output appended to a plain-text file."""

from __future__ import annotations

from pathlib import Path


class Transcript:
    """Where the transcript goes, when one is being written."""

    def __init__(self) -> None:
        self.path: Path | None = None

    def start(self, path: Path) -> None:
        self.path = path

    def stop(self) -> None:
        self.path = None

    def write(self, text: str) -> None:
        if self.path is None:
            return
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(text)
