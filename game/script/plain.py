"""The game's events as plain text: what line mode prints and what script checks read.

Narration and meta output are Markdown for the TUI. On a plain terminal, a pipe or a screen reader the
emphasis marks are noise, so they are dropped here, and the same text is what a script's checks see:
an author can copy a line from ``kith play --plain`` into a check and it will match.

Narration, names and failure messages come from a model or a save: untrusted text. Everything printed
here goes through ``strip_control`` first, so no escape sequence in it reaches the terminal (clearing the
screen, retitling the window, writing to the clipboard).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TextIO

from game.engine.events import (
    AttitudeChanged,
    Event,
    GameEnded,
    MetaOutput,
    NarrationDelta,
    NarrationDone,
    Notice,
    TurnFailed,
    TurnReplaced,
)
from game.engine.transcript import plain
from game.text import strip_control


def event_text(event: Event) -> str | None:
    """The text an event adds to a command's output (deltas are covered by ``NarrationDone``)."""
    if isinstance(event, NarrationDone | MetaOutput | Notice):
        return plain(event.text)
    if isinstance(event, TurnFailed):
        return strip_control(f"{event.title}: {event.message}")
    if isinstance(event, GameEnded):
        return f"*** {strip_control(event.title)} ***"
    if isinstance(event, AttitudeChanged):
        return plain(event.line) if event.line else None
    if isinstance(event, TurnReplaced):
        return plain(telling_line(event))
    return None


def telling_line(event: TurnReplaced) -> str:
    """Which telling of the turn is kept now (its text came with the ``NarrationDone`` before it)."""
    if event.count < 2:
        return f"(Turn {event.turn} is told anew.)"
    return f"(Telling {event.index + 1} of {event.count} of turn {event.turn}: `/swipe <` and `/swipe >` flip.)"


def collect_text(events: Iterable[Event]) -> str:
    """One command's whole output, each event's text on its own paragraph."""
    parts: list[str] = []
    streamed: list[str] = []
    for event in events:
        if isinstance(event, NarrationDelta):
            streamed.append(event.text)
            continue
        if isinstance(event, NarrationDone):
            streamed = []
        text = event_text(event)
        if text:
            parts.append(text.strip("\n"))
    if streamed:  # a turn that failed after streaming part of its prose still showed that prose
        parts.insert(0, plain("".join(streamed)).strip("\n"))
    return "\n\n".join(p for p in parts if p)


class DeltaStream:
    """Narration deltas in printable pieces: cut at white space, so a mark split across deltas is whole."""

    def __init__(self) -> None:
        self._pending = ""
        self.started = False

    def feed(self, delta: str) -> str:
        self._pending += delta
        cut = max(self._pending.rfind(" "), self._pending.rfind("\n"))
        if cut < 0:
            return ""
        ready, self._pending = self._pending[: cut + 1], self._pending[cut + 1:]
        self.started = True
        return plain(ready)

    def flush(self) -> str:
        rest, self._pending = self._pending, ""
        return plain(rest)


def terminal_width(out: TextIO) -> int:
    """The width to wrap ``out`` at: its terminal's columns ($COLUMNS first), or 0 (no wrapping) when
    ``out`` is a pipe or a file, so logs and scripts read the lines exactly as written."""
    if not out.isatty():
        return 0
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        return int(columns)
    try:
        return os.get_terminal_size(out.fileno()).columns
    except (OSError, ValueError):
        return 0


_PIECES = re.compile(r"(\n| )")


class Wrapper:
    """Word-wraps text written in pieces (narration streams in), remembering the column between pieces.

    Wraps one column short of the width: a line exactly as wide as the terminal makes some terminals
    add a blank line. A word longer than a line is left whole on its own line.
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self._column = 0
        self._spaces = 0  # spaces seen but not yet written: they become a line break if the next word does not fit

    def __call__(self, text: str) -> str:
        if self.width <= 0:
            return text
        out: list[str] = []
        for piece in _PIECES.split(text):
            if piece == "\n":
                out.append("\n")
                self._column = self._spaces = 0
            elif piece == " ":
                self._spaces += 1
            elif piece:
                if self._column > 0 and self._column + self._spaces + len(piece) > self.width - 1:
                    out.append("\n")
                    self._column = 0
                else:
                    out.append(" " * self._spaces)
                    self._column += self._spaces
                self._spaces = 0
                out.append(piece)
                self._column += len(piece)
        return "".join(out)


class PlainPrinter:
    """Prints a turn's events as they arrive, narration streamed: line mode and ``kith run --transcript``.

    On a terminal the text is wrapped to its width (``width`` overrides it; 0 never wraps)."""

    def __init__(self, out: TextIO, width: int | None = None) -> None:
        self.out = out
        self._stream = DeltaStream()
        self._wrote = False  # anything shown for this command yet (a notice after prose is set apart)
        self._wrap = Wrapper(terminal_width(out) if width is None else width)

    def paragraph(self, markdown: str) -> None:
        """A block of game text (the opening) as plain text, wrapped, with a blank line after it."""
        self._write(plain(markdown).strip("\n") + "\n\n")

    def _write(self, text: str) -> None:
        text = self._wrap(text)
        if text:
            self.out.write(text)
            self.out.flush()
            self._wrote = True

    def show(self, event: Event) -> None:
        if isinstance(event, NarrationDelta):
            self._write(self._stream.feed(event.text))
            return
        if isinstance(event, NarrationDone):
            if self._stream.started:
                self._write(self._stream.flush().rstrip("\n") + "\n")
            else:
                self._write(plain(event.text).strip("\n") + "\n")
            self._stream = DeltaStream()
            return
        if isinstance(event, TurnFailed) and self._stream.started:
            self._write(self._stream.flush() + "\n")  # keep what was shown of the broken turn on its own line
            self._stream = DeltaStream()
        text = event_text(event)
        if text is None:
            return
        if isinstance(event, Notice):
            text = f"({text})"
        apart = "\n" if self._wrote and not isinstance(event, MetaOutput) else ""
        self._write(apart + text.strip("\n") + "\n")

    def end_command(self) -> None:
        """A blank line after a command's output, so the next prompt stands apart."""
        if self._stream.started:
            self._write(self._stream.flush() + "\n")
            self._stream = DeltaStream()
        self._write("\n")
        self._wrote = False
