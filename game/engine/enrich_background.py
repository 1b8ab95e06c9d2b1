"""The enrichment queue drained in the background of a game, while the player reads.

One asyncio task at a time, started when a turn (or meta command) has finished and cancelled when the
next one starts or the game closes, so it never blocks a turn: the player's next line waits only for a
commit already under way (each queued turn commits on its own, shielded, through the session's one
connection: the same one-writer store as the turns). It waits ``delay`` seconds first, the time a
player takes to read, and stops at the first turn it cannot read (a model that is down is not asked
over and over); the next wake tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from game.engine.enrich import Reading

DEFAULT_DELAY = 2.0
"""Seconds after a turn before the queue is worked: a player reading the turn is not competing with it."""


class BackgroundEnricher:
    """Runs ``drain`` (a fresh queue walk each time) between turns; ``pause`` cancels it cleanly."""

    def __init__(self, drain: Callable[[], AsyncIterator[Reading]], delay: float = DEFAULT_DELAY,
                 on_read: Callable[[Reading], None] | None = None,
                 queued: Callable[[], Awaitable[int]] | None = None,
                 on_progress: Callable[[int], None] | None = None) -> None:
        self._drain = drain
        self.delay = delay
        self.on_read = on_read
        """Called (on the loop, between commits) after each turn read: a front end redraws its map."""
        self._queued = queued
        self.on_progress = on_progress
        """Called with ``left`` whenever it changes: a front end's status line says what is being read."""
        self.left = 0
        """Turns still to read while a walk reads them (the queue's length when it starts, less each turn
        read); 0 when no walk is reading. Counted only when ``queued`` is given."""
        self._task: asyncio.Task[None] | None = None
        self.read: list[Reading] = []
        """Every turn read so far in this game (the newest last), for the status line and tests."""
        self.error: str | None = None
        """Why the last walk stopped early, if it did."""

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def wake(self) -> None:
        """Start working the queue after ``delay`` unless already at it."""
        if not self.running:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="kith-enrich")

    async def pause(self) -> None:
        """Stop now (a turn is starting, or the game closing): returns once nothing is in flight."""
        task, self._task = self._task, None
        if task is None or task.done():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def idle(self) -> None:
        """Wait until the current walk (if any) has finished by itself (tests, and `kith run --wait`)."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._task)

    def _progress(self, left: int) -> None:
        if left != self.left:
            self.left = left
            if self.on_progress is not None:
                self.on_progress(left)

    async def _run(self) -> None:
        self.error = None
        try:
            await asyncio.sleep(self.delay)
            if self._queued is not None:
                self._progress(await self._queued())
            async for reading in self._drain():
                self.read.append(reading)
                if reading.ok:
                    self._progress(max(0, self.left - 1))
                if reading.ok and self.on_read is not None:
                    self.on_read(reading)
                if not reading.ok:
                    self.error = reading.line
                    return
        except asyncio.CancelledError:
            raise
        except Exception as error:  # never let a background walk take the game down: say why it stopped
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self._progress(0)  # stopped, paused or done: nothing is being read now
