"""The fast path in play and in imports, for ``make bench``: what it costs a turn and a story.

A turn whose model extractor failed pays for one fast-path reading of its narration before it commits
(``fast_fallback``); ``kith import-story`` pays that plus a whole stored turn per paragraph. Measured on
Brinefall's graph with the 50-paragraph story the tests import (``tests/data/stories/lantern-tide.md``);
``quick`` reads its first ten paragraphs. No target is asserted: the figures say whether the fallback is
small beside a model's own memory step (seconds), and how long an import of a long story takes.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from game.config import Settings
from game.engine.enrich_fallback import fast_fallback
from game.engine.enrich_import import import_story, split_story
from game.graph.memory import GraphIndex
from game.graph.upsert import UpsertExecution
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
        imported = await import_story(settings, Path(folder) / "story.sqlite", world, turns, find_names=False)
        elapsed = (time.perf_counter() - started) * 1000
    return [
        f"fast-path fallback per turn over {len(turns)} narrations: median {statistics.median(costs):.1f} ms, "
        f"max {max(costs):.1f} ms ({kept} relations kept; the first reading compiles the patterns)",
        f"import-story of {imported.turns} paragraphs: {elapsed:.0f} ms ({elapsed / max(imported.turns, 1):.1f} ms "
        f"a turn, each its own transaction; {imported.relations} relations read)",
    ]


def run(quick: bool = False) -> list[str]:
    return asyncio.run(_measure(quick))
