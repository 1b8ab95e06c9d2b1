"""Undo figures: taking back a turn that journaled a bulk load, and an ordinary offline turn.

An import into a save with played turns (``kith graph import``, ``commit_many``) is journaled at the current
turn, one entry per row it wrote: undoing that turn puts back tens of thousands of rows. An ordinary turn
journals about a dozen. The import's undo is timed at the store (``SaveDatabase.undo_last_turn``: the
journal read and put back, one transaction); the ordinary turn's both at the store (``undo.undo_turn`` in a
transaction rolled back each round) and as the player's ``undo`` (the store's undo, the game read again).
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
from game.store import undo
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
    async with await SaveDatabase.open(path, schema=default_registry().schema()) as db:
        await _bulk_versions(db, versions)  # journaled at turn 1: the save has a played turn
        rows = await db.conn.execute_fetchall("SELECT count(*) FROM journal WHERE turn = 1")
        entries = int(next(iter(rows))[0])
        started = time.perf_counter()
        await db.undo_last_turn()
        return entries, (time.perf_counter() - started) * 1000


class _TakenBack(Exception):
    """Raised to roll back a timed undo, so the same turn is undone again in the next round."""


async def _ordinary_undo(folder: Path, rounds: int) -> tuple[int, float, float]:
    """Journal entries of an offline turn that talks to someone (memories, attitudes, knowledge and gossip
    written), median ms of the store's undo of it, and of the player's ``undo`` of it."""
    settings = load_settings(flags={"saves_dir": folder}, env={})
    session = await GameSession.open(settings, save="ordinary", new=True)
    player: list[float] = []
    try:
        await _play(session, "look")
        for _ in range(rounds):  # the player's undo: the turn played, then taken back (the game read again)
            await _play(session, "talk to hob")
            player.append(await _play(session, "undo"))
        await _play(session, "talk to hob")
        path = session.save_path
    finally:
        await session.close()
    store: list[float] = []
    async with await SaveDatabase.open(path, schema=default_registry().schema()) as db:
        turn = await db.current_turn()
        rows = await db.conn.execute_fetchall("SELECT count(*) FROM journal WHERE turn = ?", (turn,))
        entries = int(next(iter(rows))[0])
        for _ in range(rounds * 10):
            try:
                async with db.transaction() as conn:
                    started = time.perf_counter()
                    await undo.undo_turn(conn, turn)
                    store.append((time.perf_counter() - started) * 1000)
                    raise _TakenBack
            except _TakenBack:
                pass
    return entries, statistics.median(store), statistics.median(player)


def run(quick: bool = False) -> list[str]:
    """Full: undo of imports of 10k and 100k versions, and of an offline turn (30 rounds). Quick: tiny."""
    sizes, turns = ((200,), 3) if quick else ((10_000, 100_000), 30)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for versions in sizes:
            entries, ms = asyncio.run(_bulk_undo(Path(tmp), versions))
            lines.append(f"undo of a turn that imported {versions:,} versions ({entries:,} journal entries): {ms:,.0f} ms")
        entries, store, player = asyncio.run(_ordinary_undo(Path(tmp), turns))
        lines.append(f"undo of an offline turn ({entries} journal entries, median): store {store:.2f} ms, "
                     f"the player's undo {player:.1f} ms")
    return lines
