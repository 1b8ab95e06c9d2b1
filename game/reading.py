"""Reading a file or a stream the player names, never more than a limit.

``kith graph upsert -``, ``graph import``, ``graph extract``, ``run --transcript`` and ``--config`` once
read their input whole: ``/dev/zero``, a fifo or a runaway pipe grew the process until ``MemoryError``.
Each now reads one byte past its limit at most and refuses an input that has it, so memory stays bounded
whatever is on the other end, and the message says what the limit is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO, TextIO

_CHUNK = 1 << 20


class TooLarge(ValueError):
    """More than ``limit`` bytes (or characters, from a text stream) were on offer; ``words`` completes
    "FILE is ..." for the caller's message."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {size_words(limit)}")
        self.limit = limit
        self.words = str(self)


def size_words(count: int) -> str:
    """``2 MB``, ``16 MiB``, ``512 KiB``: the limits as their constants write them."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    if count >= 1_000_000 and count % 1_000_000 == 0:
        return f"{count // 1_000_000} MB"
    return f"{count:,} bytes"


def read_at_most(handle: BinaryIO, limit: int) -> bytes:
    """Everything ``handle`` holds when that is at most ``limit`` bytes; else ``TooLarge``, having read
    ``limit + 1`` bytes and no more (a pipe's writer is left to find its reader gone)."""
    parts: list[bytes] = []
    held = 0
    while held <= limit:
        part = handle.read(min(_CHUNK, limit + 1 - held))
        if not part:
            return b"".join(parts)
        parts.append(part)
        held += len(part)
    raise TooLarge(limit)


def read_text_at_most(handle: TextIO, limit: int) -> str:
    """``read_at_most`` for a text stream, counted in characters: standard input replaced by a text
    stream (a test's, an embedding program's) has no bytes to count."""
    buffer = getattr(handle, "buffer", None)
    if buffer is not None:
        return read_at_most(buffer, limit).decode("utf-8")
    text = handle.read(limit + 1)
    if len(text) > limit:
        raise TooLarge(limit)
    return text


def read_file_at_most(path: Path, limit: int) -> bytes:
    """``path``'s bytes when there are at most ``limit`` of them; ``TooLarge`` otherwise, decided without
    reading the rest (``/dev/zero`` and fifos included). ``OSError`` is the caller's to word."""
    with path.open("rb") as handle:
        status = os.fstat(handle.fileno())
        if stat.S_ISREG(status.st_mode) and status.st_size > limit:  # a plain file says its size: no read
            raise TooLarge(limit)
        return read_at_most(handle, limit)
