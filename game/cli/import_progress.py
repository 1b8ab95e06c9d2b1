"""A long ``kith graph import``'s progress: one line on a terminal's standard error, updated in place.

A 300k-line file takes tens of seconds; without this the command sat silent the whole time. The line says
how far reading and then applying the lines have got (``importing FILE: 120,000 of 300,000 lines (40%),
1,204,000 versions``), then each phase after the lines as it starts (``building indexes``, ``checking``,
``saving``), and is wiped before anything else is printed, the summary, an error or Ctrl-C's message.

Only ever on a terminal: standard output (the summary, ``--json``) is an exact contract and is never
touched, and when standard error is a file or a pipe (scripts, CI) nothing at all is written. Small
imports, which finish about as soon as they start, print nothing either.

The callers ask ``due`` only every so many lines, and ``due`` reads the clock; a redraw happens at most
``REDRAW_SECONDS`` apart, so a fast import spends next to nothing on its progress.
"""

from __future__ import annotations

import os
import time
from typing import TextIO

from game.text import strip_control

SHOW_FROM_LINES = 20_000
"""A file of at least this many lines shows its progress (internal: tests import a file this long)."""
SHOW_FROM_VERSIONS = 50_000
"""...and so does a shorter file whose lines write at least this many versions (about a second's work)."""
REDRAW_SECONDS = 0.1
"""The least time between two redraws of the line: at most about ten a second."""
CHECK_EVERY_LINES = 256
"""How many lines the callers apply between two asks of ``due`` (a clock read each)."""
_ERASE = "\r\x1b[K"  # back to the line's start, and erase to its end


class ImportProgress:
    """The progress line of one import on ``stream`` (a terminal). Use ``on_terminal`` to get one."""

    def __init__(self, stream: TextIO, label: str, total_lines: int) -> None:
        self._stream = stream
        self._label = strip_control(label)
        self._total = total_lines
        self._shown = total_lines >= SHOW_FROM_LINES
        self._drawn = False  # something is on the line, to wipe before other output
        self._next = 0.0  # the clock time before which ``due`` says no

    @classmethod
    def on_terminal(cls, stream: TextIO | None, label: str, text: str, *, wanted: bool = True) -> ImportProgress | None:
        """Progress for importing ``text`` from ``label``, or None when ``stream`` is not a terminal or the
        output is for a program (``wanted`` is False for ``--json``)."""
        if not wanted or stream is None:
            return None
        try:
            if not stream.isatty():
                return None
        except (AttributeError, ValueError, OSError):  # a closed or replaced stream
            return None
        return cls(stream, label, text.count("\n") + (not text.endswith("\n")))

    def expect(self, lines: int, versions: int) -> None:
        """The file holds ``lines`` calls that write about ``versions`` versions: a short file of long
        lines is shown too."""
        self._total = lines
        self._shown = self._shown or versions >= SHOW_FROM_VERSIONS

    def due(self) -> bool:
        """Whether a redraw is wanted now (one clock read; ask only every ``CHECK_EVERY_LINES`` lines)."""
        if not self._shown:
            return False
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + REDRAW_SECONDS
        return True

    def reading(self, done: int) -> None:
        self._draw(f"reading {self._label}: {done:,} of {self._total:,} lines ({percent(done, self._total)})")

    def importing(self, done: int, versions: int) -> None:
        self._draw(f"importing {self._label}: {done:,} of {self._total:,} lines ({percent(done, self._total)}), "
                   f"{versions:,} versions")

    def phase(self, name: str) -> None:
        """A phase after the lines (``building indexes``, ``checking``, ``saving``) has begun: shown at once."""
        if self._shown:
            self._draw(f"importing {self._label}: {name}")

    def clear(self) -> None:
        """Wipe the line, so what is printed next starts on a clean line. Safe to call more than once."""
        if self._drawn:
            self._drawn = False
            self._write(_ERASE)

    def _draw(self, text: str) -> None:
        self._drawn = True
        self._write(_ERASE + fit(text, self._width()))

    def _width(self) -> int:
        try:
            columns = os.get_terminal_size(self._stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        return columns or 80  # 0: a terminal that never said its size

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a terminal gone away never stops the import
            self._shown = False


def percent(done: int, total: int) -> str:
    return f"{min(100, done * 100 // max(total, 1))}%"


def fit(text: str, columns: int) -> str:
    """``text`` cut to one row short of ``columns``: a line that wrapped could not be redrawn in place."""
    room = max(columns - 1, 10)
    return text if len(text) <= room else text[: room - 1] + "…"
