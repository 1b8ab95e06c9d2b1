"""One writer per save: an advisory ``flock`` on the save file itself, held while a game is open.

Two processes writing one save interleave turns and undo each other's. SQLite's own locks
only cover one transaction at a time, so a game takes this lock when it opens and keeps it until it
closes; a second game, or a ``kith graph`` write, is refused with a clear message. Within one process the
lock is shared (counted): the TUI opens the next game before closing the current one, which may be the
same save, and a process's own sessions are sequenced by its one event loop. Readers take no lock,
so ``kith saves list`` and the graph's read commands work beside an open game. ``flock`` is released by
the kernel when a process dies, so a killed game never leaves a save locked. The lock is on the file's
inode, so a save built under a temporary name and renamed into place stays locked across the rename.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from game.errors import SaveError

# (device, inode) -> [descriptor holding the flock, how many SaveLocks of this process share it]
_HELD: dict[tuple[int, int], list[int]] = {}


class SaveLock:
    """An exclusive lock on one save file; ``release`` (or process exit) ends it."""

    def __init__(self, key: tuple[int, int]) -> None:
        self._key: tuple[int, int] | None = key

    @classmethod
    def acquire(cls, path: Path, label: str | None = None) -> SaveLock:
        """The lock, or ``SaveError`` when another process holds it (never waits)."""
        name = label or path.stem
        try:
            # O_NONBLOCK: a FIFO or device under a save's name must never hang the open.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as error:
            raise SaveError(f"{name} cannot be opened: {error.strerror or error}") from error
        info = os.fstat(fd)
        key = (info.st_dev, info.st_ino)
        if key in _HELD:
            os.close(fd)
            _HELD[key][1] += 1
            return cls(key)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            raise SaveError(
                f"{name} is open in another Kith process (a game or a graph command is using it); close it "
                "there first. Nothing was changed."
            ) from error
        _HELD[key] = [fd, 1]
        return cls(key)

    @property
    def held(self) -> bool:
        return self._key is not None

    def release(self) -> None:
        key, self._key = self._key, None
        if key is None or key not in _HELD:
            return
        _HELD[key][1] -= 1
        if _HELD[key][1] == 0:
            fd = _HELD.pop(key)[0]
            with contextlib.suppress(OSError):
                os.close(fd)  # closing the descriptor ends the flock
