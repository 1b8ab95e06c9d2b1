"""The fast path in play and in imports, for ``make bench``: what it costs a turn and a story.

A turn whose model extractor failed pays for one fast-path reading of its narration before it commits
(``fast_fallback``); ``kith import-story`` pays that plus a whole stored turn per paragraph. Measured on
Brinefall's graph with the 50-paragraph story the tests import (``tests/data/stories/lantern-tide.md``);
``quick`` reads its first ten paragraphs. No target is asserted: the figures say whether the fallback is
small beside a model's own memory step (seconds), and how long an import of a long story takes.

Third: finding a queued turn's fast versions when a model reads it again, on a save of 100k versions
opened for play (lazily). Before, enrichment went through every open version of the session's graph
(which on a lazily opened game first loads them all); now it reads them from the save by their evidence
marks through an index (``game.store.enrichment.fast_reading``). Both are timed on the same save.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from game.config import Settings
from game.engine.enrich_fallback import fast_fallback
from game.engine.enrich_import import import_story, split_story
from game.graph.fast_extract.marks import fast_from
from game.graph.index import GraphIndex
from game.graph.upsert import UpsertExecution
from game.registry import default_registry
from game.store import enrichment
from game.world import World, load_world

ROOT = Path(__file__).resolve().parent.parent
STORY = ROOT / "tests" / "data" / "stories" / "lantern-tide.md"
CONTENT = ROOT / "content"


async def _graph(world: World) -> GraphIndex:
    execution = UpsertExecution(GraphIndex(), world.vocabulary, 0, rng=random.Random(0))
    for call in world.initial_graph_calls():
        await execution.run(call)
    graph = GraphIndex()
    graph.apply(execution.writes)
    return graph


async def _measure(quick: bool) -> list[str]:
    world = load_world(CONTENT, "brinefall")
    turns = split_story(STORY.read_text(encoding="utf-8"))[: 10 if quick else None]
    graph = await _graph(world)
    player = sorted(graph.player_ids)
    costs: list[float] = []
    kept = 0
    for number, turn in enumerate(turns, 1):
        started = time.perf_counter()
        fallback = await fast_fallback(graph, world.vocabulary, number, turn.narration,
                                       rng=random.Random(number), witnesses=player)
        costs.append((time.perf_counter() - started) * 1000)
        kept += fallback.opened
    with tempfile.TemporaryDirectory(prefix="kith-enrich-bench-") as folder:
        settings = Settings(saves_dir=Path(folder), content_dir=CONTENT)
        started = time.perf_counter()
        imported = await import_story(settings, Path(folder) / "story.sqlite", world, turns)
        elapsed = (time.perf_counter() - started) * 1000
    return [
        f"fast-path fallback per turn over {len(turns)} narrations: median {statistics.median(costs):.1f} ms, "
        f"max {max(costs):.1f} ms ({kept} relations kept; the first reading compiles the patterns)",
        f"import-story of {imported.turns} paragraphs: {elapsed:.0f} ms ({elapsed / max(imported.turns, 1):.1f} ms "
        f"a turn, each its own transaction; {imported.relations} relations read)",
    ]


FAST_TURN = 7
MARKED = 5
"""Versions marked as the fast path's reading of turn ``FAST_TURN`` on the big save."""


def _mark(path: Path) -> None:
    """Make ``MARKED`` versions of the save the fast path's reading of ``FAST_TURN`` (as a turn would)."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT id, evidence FROM edges WHERE invalid_at IS NULL ORDER BY seq DESC LIMIT ?",
                            (MARKED,)).fetchall()
        conn.executemany("UPDATE edges SET evidence = ? WHERE id = ?",
                         [(json.dumps([*json.loads(evidence), f"fast:turn-{FAST_TURN}"]), edge_id)
                          for edge_id, evidence in rows])


async def _lookups(path: Path, runs: int) -> tuple[float, float, int]:
    """Best of ``runs`` for each way of finding the turn's fast versions, in ms, on a save opened afresh."""
    from game.store.database import SaveDatabase

    scans, reads, found = [], [], 0
    for _ in range(runs):
        async with await SaveDatabase.open(path, schema=default_registry().schema()) as db:
            graph = await db.load_graph_index()  # lazily, as a game opens it
            started = time.perf_counter()
            scanned = [e for e in graph.open_edges.values() if fast_from(e) == FAST_TURN]
            scans.append((time.perf_counter() - started) * 1000)
        async with await SaveDatabase.open(path, schema=default_registry().schema()) as db:
            await db.load_graph_index()
            started = time.perf_counter()
            read = (await enrichment.fast_reading(db, FAST_TURN)).opened
            reads.append((time.perf_counter() - started) * 1000)
        if {e.id for e in read} != {e.id for e in scanned}:
            raise RuntimeError("the indexed lookup and the scan disagree")
        found = len(read)
    return min(scans), min(reads), found


def _measure_lookup(quick: bool) -> list[str]:
    from benchmarks.open_bench import build

    versions, runs = (300, 1) if quick else (100_000, 3)
    with tempfile.TemporaryDirectory(prefix="kith-enrich-bench-") as folder:
        path = build(Path(folder), versions)
        _mark(path)
        scan, read, found = asyncio.run(_lookups(path, runs))
    return [f"a queued turn's fast versions on a save of {versions:,} versions (lazily opened, best of {runs}): "
            f"scan of every open version (before) {scan:.1f} ms, indexed read by mark (now) {read:.2f} ms "
            f"({found} found)"]


def run(quick: bool = False) -> list[str]:
    return [*asyncio.run(_measure(quick)), *_measure_lookup(quick)]
