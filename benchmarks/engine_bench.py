"""Engine figures: offline turns per second (fresh save, and a save with 10k edge versions), and the
time to open a save holding 100k edge versions. The engine's own overhead per turn is what is measured:
the offline narrator does no I/O, so a turn's time is retrieval, narration logic, extraction and commit.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from game.config import load_settings
from game.engine.events import TurnCommitted, TurnFailed
from game.engine.session import GameSession
from game.graph.ports import GraphWrites
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.registry import default_registry
from game.store import bulk_commit
from game.store.database import SaveDatabase

COMMANDS = ["look", "wait", "inventory", "examine me", "listen", "wait", "look"]


async def _bulk_versions(db: SaveDatabase, versions: int) -> None:
    """Add synthetic people and ``versions`` relation versions (about four versions per relation)."""
    index = await db.load_graph_index()
    vocabulary = Vocabulary.default()
    people = max(50, versions // 40)
    batches: list[tuple[GraphWrites, int]] = []
    execution = UpsertExecution(index, vocabulary, 0, rng=random.Random(1))
    for start in range(0, people, 8):
        await execution.run({"nodes": [{"name": f"Bench Person {i}", "summary": f"Synthetic person {i}."}
                                       for i in range(start, min(people, start + 8))]})
    index.apply(execution.writes)
    batches.append((execution.writes, 0))
    rng = random.Random(7)
    written = 0
    turn = 0
    while written < versions:
        turn += 1
        execution = UpsertExecution(index, vocabulary, turn, rng=rng)
        edges = []
        for _ in range(12):
            a = rng.randrange(people)
            b = (a + 1 + rng.randrange(10)) % people
            relation = rng.choice(["TRUSTS", "FEARS", "OWES", "SERVES"])
            strength = round(rng.uniform(-1, 1), 2)
            # Each relation keeps the sign its valence asks for: TRUSTS positive, FEARS negative.
            strength = abs(strength) if relation == "TRUSTS" else -abs(strength) if relation == "FEARS" else strength
            edges.append({"sourceName": f"Bench Person {a}", "targetName": f"Bench Person {b}",
                          "relation": relation, "strength": strength,
                          "fact": f"Bench Person {a} and {b} have history from turn {turn}."})
        outcome = await execution.run({"edges": edges})
        assert outcome.result is not None
        written += outcome.result.edges.created
        index.apply(execution.writes)
        batches.append((execution.writes, turn))
    await bulk_commit.commit_many(db, batches)


async def used_bytes(db: SaveDatabase) -> int:
    """The bytes a save's rows take (its pages in use, the WAL's written back first): what it grows by."""
    await db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rows = await db.conn.execute_fetchall("SELECT (SELECT page_count FROM pragma_page_count) - "
                                          "(SELECT freelist_count FROM pragma_freelist_count), "
                                          "(SELECT page_size FROM pragma_page_size)")
    pages, size = next(iter(rows))
    return int(pages) * int(size)


async def _turns_per_second(settings_dir: Path, extra_versions: int, turns: int) -> tuple[float, float, float]:
    """Turns per second, the median turn in ms, and the bytes the save grew by per turn."""
    settings = load_settings(flags={"saves_dir": settings_dir}, env={})
    name = f"bench{extra_versions}"
    session = await GameSession.open(settings, save=name, new=True)
    if extra_versions:
        # The synthetic history goes into the closed save through the store, as `kith graph import` would.
        path = session.save_path
        await session.close()
        db = await SaveDatabase.open(path, schema=default_registry().schema())
        try:
            await _bulk_versions(db, extra_versions)
        finally:
            await db.close()
        session = await GameSession.open(settings, save=name)
    durations: list[float] = []
    try:
        before = await used_bytes(session._db)
        for i in range(turns):
            started = time.perf_counter()
            async for event in session.play_turn(COMMANDS[i % len(COMMANDS)]):
                if isinstance(event, TurnFailed):
                    raise RuntimeError(event.message)
                if isinstance(event, TurnCommitted):
                    pass
            durations.append(time.perf_counter() - started)
        grown = (await used_bytes(session._db) - before) / turns
    finally:
        await session.close()
    return turns / sum(durations), statistics.median(durations) * 1000, grown


async def _open_time(folder: Path, versions: int) -> float:
    path = folder / "open100k.sqlite"
    db = await SaveDatabase.open(path, schema=default_registry().schema(), create=True, world_id="brinefall")
    await _bulk_versions(db, versions)
    await db.close()
    settings = load_settings(flags={"saves_dir": folder}, env={})
    times = []
    for _ in range(3):
        started = time.perf_counter()
        session = await GameSession.open(settings, save=path)
        times.append(time.perf_counter() - started)
        await session.close()
    return min(times) * 1000


def run(quick: bool = False) -> list[str]:
    """Full: 60 turns on a fresh save and on one with 10k versions, and opening 100k. Quick: tiny sizes."""
    turns, big, huge = (5, 200, 500) if quick else (60, 10_000, 100_000)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        fresh_rate, fresh_median, grown = asyncio.run(_turns_per_second(folder, 0, turns))
        lines.append(f"offline turns/s, fresh save:            {fresh_rate:8.1f}  (median turn {fresh_median:.2f} ms)")
        lines.append(f"save bytes per offline turn (fresh save, {turns} turns): {grown:,.0f}")
        big_rate, big_median, _ = asyncio.run(_turns_per_second(folder, big, turns))
        lines.append(f"offline turns/s, save with {big:,} versions: {big_rate:8.1f}  (median turn {big_median:.2f} ms)")
        open_ms = asyncio.run(_open_time(folder, huge))
        lines.append(f"save open (GameSession.open) at {huge:,} edge versions: {open_ms:.0f} ms")
    return lines
