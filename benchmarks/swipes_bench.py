"""Retry and swipe figures: what telling the last turn again and flipping between tellings cost, on a
fresh save and on one with many edge versions, and what keeping every telling adds to a save.

A retry reads the game as it stood before the turn (the turn undone inside a transaction that is rolled
back), tells the turn, and swaps the new telling in (undo plus write, one transaction); a swipe is the swap
alone. Both then re-read the game, as undo does, so they grow with the save like undo.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.engine_bench import _bulk_versions
from game.config import load_settings
from game.engine.events import TurnFailed
from game.engine.session import GameSession
from game.registry import default_registry
from game.store.database import SaveDatabase


async def _timed(session: GameSession, text: str) -> float:
    started = time.perf_counter()
    async for event in session.play_turn(text):
        if isinstance(event, TurnFailed):
            raise RuntimeError(event.message)
    return (time.perf_counter() - started) * 1000


async def _figures(folder: Path, versions: int, rounds: int) -> tuple[float, float, float, float]:
    """Median ms of a turn, a retry and a swipe, and the bytes of a turn's stored telling."""
    settings = load_settings(flags={"saves_dir": folder}, env={})
    name = f"swipes{versions}"
    session = await GameSession.open(settings, save=name, new=True)
    if versions:
        path = session.save_path
        await session.close()
        db = await SaveDatabase.open(path, schema=default_registry().schema())
        try:
            await _bulk_versions(db, versions)
        finally:
            await db.close()
        session = await GameSession.open(settings, save=name)
    turns, retries, swipes = [], [], []
    try:
        for _ in range(rounds):
            turns.append(await _timed(session, "talk to hob"))
            retries.append(await _timed(session, "retry"))
            swipes.append(await _timed(session, "/swipe <"))
        rows = await session._db.conn.execute_fetchall(
            "SELECT avg(length(payload)) FROM swipes WHERE idx = 0")
        payload = float(next(iter(rows))[0] or 0)
    finally:
        await session.close()
    return statistics.median(turns), statistics.median(retries), statistics.median(swipes), payload


def run(quick: bool = False) -> list[str]:
    """Full: 20 rounds (turn, retry, swipe) on a fresh save and on one with 10k versions. Quick: tiny."""
    rounds, big = (2, 200) if quick else (20, 10_000)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for versions in (0, big):
            turn, retry, swipe, payload = asyncio.run(_figures(Path(tmp), versions, rounds))
            where = "fresh save" if not versions else f"save with {versions:,} versions"
            lines.append(f"{where}: turn {turn:.1f} ms, retry {retry:.1f} ms, swipe {swipe:.1f} ms "
                         f"(median); a telling kept: {payload:,.0f} bytes")
    return lines
