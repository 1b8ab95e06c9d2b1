"""A progress bar on stderr, only when it is a terminal: piped output and ``--json`` stay clean."""

from __future__ import annotations

from typing import TextIO

from game.explore.explorer import Progress

WIDTH = 30


def progress_bar(stream: TextIO) -> Progress | None:
    """A callback drawing ``[#####     ] 12/200 games``; None when ``stream`` is not a terminal.

    Called with a negative count, it clears its line (the run is over)."""
    if not stream.isatty():
        return None

    def draw(done: int, total: int) -> None:
        if done < 0:
            stream.write("\r" + " " * (WIDTH + 40) + "\r")
        else:
            filled = WIDTH * done // max(total, 1)
            stream.write(f"\r[{'#' * filled}{' ' * (WIDTH - filled)}] {done}/{total} games")
        stream.flush()

    return draw
