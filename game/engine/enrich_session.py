"""A game's enrichment: the queue of turns its narrator could not read, read again now or in the background.

``GameSession`` owns one ``SessionEnrichment`` and asks it; it reads through the session's one connection
and pipeline (the same one-writer store as the turns), so a turn and a reading never commit at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from game.engine.enrich import Extractor, Reading, drain
from game.engine.enrich_background import DEFAULT_DELAY, BackgroundEnricher
from game.engine.rebuild import Rebuilt, rebuild
from game.engine.turn import TurnPipeline
from game.store import enrichment
from game.store.database import SaveDatabase


class SessionEnrichment:
    """The queue of one open game: rebuilt at once, drained turn by turn, or drained between turns."""

    def __init__(self, db: SaveDatabase, pipeline: TurnPipeline) -> None:
        self._db = db
        self._pipeline = pipeline
        self._background: BackgroundEnricher | None = None

    async def rebuild(self, extractor: Extractor = "model") -> Rebuilt:
        """Read every queued turn again with ``extractor``, committed together (``kith graph rebuild``)."""
        return await rebuild(self._db, self._pipeline, extractor)

    def enrich(self, extractor: Extractor = "model") -> AsyncIterator[Reading]:
        """Read the queued turns one by one, each committed on its own (``kith graph enrich``)."""
        return drain(self._db, self._pipeline, extractor)

    def in_background(self, delay: float = DEFAULT_DELAY, on_read: Callable[[Reading], None] | None = None,
                      on_progress: Callable[[int], None] | None = None) -> BackgroundEnricher | None:
        """Drain the queue between turns while the player reads (see ``GameSession.enrich_in_background``)."""
        if not self._model_reads():
            return None
        if self._background is None:
            self._background = BackgroundEnricher(self._walk, delay, queued=self._queued_count)
        self._background.delay = delay
        self._background.on_read = on_read
        self._background.on_progress = on_progress
        self._background.wake()
        return self._background

    async def pause(self) -> None:
        """The queue stops before the game changes under it (a turn, undo, restore, a new narrator)."""
        if self._background is not None:
            await self._background.pause()

    def wake(self) -> None:
        """A turn has finished: the background reading may go on after its delay."""
        if self._background is not None:
            self._background.wake()

    async def _walk(self) -> AsyncIterator[Reading]:
        """The queue read by the narrator of the moment; none when it cannot read in the background."""
        if not self._model_reads():
            return
        async for reading in drain(self._db, self._pipeline):
            yield reading

    async def _queued_count(self) -> int:
        return len(await enrichment.pending_extraction(self._db))

    def _model_reads(self) -> bool:
        """Whether the narrator now can read queued turns between turns: a live model, not the offline
        story engine, and not a recorded session (replayed or being recorded), whose exchanges must stay
        the turns' own, in order."""
        from game.narrator.offline import OfflineNarrator

        narrator = self._pipeline.narrator
        if isinstance(narrator, OfflineNarrator):
            return False
        return not (getattr(narrator, "replaying", False) or getattr(narrator, "recording", False))
