"""Undo figures: taking back a turn that journaled a bulk load, and an ordinary offline turn.

An import into a save with played turns (``kith graph import``, ``commit_many``) is journaled at the current
turn, one entry per row it wrote: undoing that turn puts back tens of thousands of rows. An ordinary turn
journals a few dozen. Both are timed at the store (``SaveDatabase.undo_last_turn``: the journal read and
put back, one transaction) and the ordinary one also as the player's ``undo`` (the store's undo plus the
game read again).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.engine_bench import COMMANDS, _bulk_versions
from game.config import load_settings
from game.engine.events import TurnFailed
from game.engine.session import GameSession
from game.store.database import SaveDatabase


async def _play(session: GameSession, text: str) -> float:
    started = time.perf_counter()
    async for event in session.play_turn(text):
        if isinstance(event, TurnFailed):
            raise RuntimeError(event.message)
    return (time.perf_counter() - started) * 1000


async def _bulk_undo(folder: Path, versions: int) -> tuple[int, float]:
    """Journal entries of a turn that imported ``versions`` versions into a played save, and ms to undo it."""
    settings = load_settings(flags={"saves_dir": folder}, env={})
    name = f"undo{versions}"
    session = await GameSession.open(settings, save=name, new=True)
    try:
        await _play(session, "look")
        path = session.save_path
    finally:
        await session.close()
    async with await SaveDatabase.open(path) as db:
        await _bulk_versions(db, versions)  # journaled at turn 1: the save has a played turn
        rows = await db.conn.execute_fetchall("SELECT count(*) FROM journal WHERE turn = 1")
        entries = int(next(iter(rows))[0])
        started = time.perf_counter()
        await db.undo_last_turn()
        return entries, (time.perf_counter() - started) * 1000


async def _ordinary_undo(folder: Path, turns: int) -> tuple[float, float, float]:
    """Median journal entries of an offline turn, ms of the store's undo, and ms of the player's ``undo``."""
    settings = load_settings(flags={"saves_dir": folder}, env={})
    session = await GameSession.open(settings, save="ordinary", new=True)
    player: list[float] = []
    try:
        for i in range(turns):  # the player's undo: a turn played, then taken back
            await _play(session, COMMANDS[i % len(COMMANDS)])
            player.append(await _play(session, "undo"))
        for i in range(turns):
            await _play(session, COMMANDS[i % len(COMMANDS)])
        path = session.save_path
    finally:
        await session.close()
    store: list[float] = []
    async with await SaveDatabase.open(path) as db:
        rows = await db.conn.execute_fetchall("SELECT count(*) FROM journal WHERE turn > 0 GROUP BY turn")
        entries = statistics.median(int(row[0]) for row in rows)
        for _ in range(turns):
            started = time.perf_counter()
            await db.undo_last_turn()
            store.append((time.perf_counter() - started) * 1000)
    return entries, statistics.median(store), statistics.median(player)


def run(quick: bool = False) -> list[str]:
    """Full: undo of imports of 10k and 100k versions, and of 30 offline turns. Quick: tiny."""
    sizes, turns = ((200,), 3) if quick else ((10_000, 100_000), 30)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for versions in sizes:
            entries, ms = asyncio.run(_bulk_undo(Path(tmp), versions))
            lines.append(f"undo of a turn that imported {versions:,} versions ({entries:,} journal entries): {ms:,.0f} ms")
        entries_per_turn, store, player = asyncio.run(_ordinary_undo(Path(tmp), turns))
        lines.append(f"undo of an offline turn ({entries_per_turn:.0f} journal entries, median): store {store:.2f} ms, "
                     f"the player's undo {player:.1f} ms")
    return lines
