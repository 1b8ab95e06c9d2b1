"""Meta-paths for ``make bench``: do they earn their place (issue 13)?

Two figures decide it, both printed with meta-paths off and on:

- **recall** on the probe worlds (``tests/data/probes/*.json``, made by ``make_probes.py`` there): of the
  relations each probe needs, the share retrieval keeps within its 20 places. Half the probes need a
  two-hop fact along a default pattern, half need what a raised fact could push out (the person's newest
  relations, a friend's trust along a path no pattern names), so a pattern that only moves places around
  shows up as no gain. ``[retrieval] metapaths`` is on by default only because "on" recalls more.
- **cost**: retrieval p50 over ``graph_bench``'s synthetic long game (10k versions; 300 with ``--quick``),
  off and on, in alternating passes on the same in-memory graph. Goal: on is at most 10% slower.

A third recall figure adds what discovery (``kith graph patterns --discover``) keeps on each probe world,
as ``[retrieval] discovered_patterns = true`` would: the issue keeps discovered patterns off unless a
save's author turns them on, and this shows what turning them on is worth.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.graph_bench import messages, percentiles, synthesize
from game.graph.index import GraphIndex
from game.graph.metapaths import DEFAULT_PATTERNS, active_patterns
from game.graph.metapaths_discover import discover
from game.graph.ports import GraphReader
from game.graph.retrieve import RetrievalSettings, retrieve
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary

PROBES = Path(__file__).resolve().parent.parent / "tests" / "data" / "probes"
OFF = RetrievalSettings(patterns=())
ON = RetrievalSettings(patterns=DEFAULT_PATTERNS)
SLOWER_GOAL = 1.10


@dataclass
class Recall:
    """Needed relations kept within the places, overall and by kind of probe."""

    needed: int = 0
    kept: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    @property
    def share(self) -> float:
        return self.kept / self.needed if self.needed else 1.0

    def kind_share(self, kind: str) -> float:
        kept, needed = self.by_kind[kind]
        return kept / needed if needed else 1.0


def probe_worlds() -> list[dict[str, Any]]:
    worlds: list[dict[str, Any]] = []
    for path in sorted(PROBES.glob("*.json")):
        worlds.append(json.loads(path.read_text(encoding="utf-8")))
    return worlds


async def load_graph(lines: Sequence[dict[str, Any]], vocabulary: Vocabulary | None = None) -> GraphIndex:
    """A probe world's import lines applied turn by turn through the real upsert, into memory."""
    vocabulary = vocabulary or Vocabulary.default()
    index = GraphIndex()
    for number, line in enumerate(lines):
        call = {key: value for key, value in line.items() if key != "turn"}
        execution = UpsertExecution(index, vocabulary, int(line["turn"]), rng=random.Random(number))
        outcome = await execution.run(call)
        if outcome.error:
            raise RuntimeError(f"probe line {number + 1} was refused: {outcome.error}")
        index.apply(execution.writes)
    return index


async def recall(index: GraphIndex, probes: Sequence[dict[str, Any]], settings: RetrievalSettings) -> Recall:
    """How much of what each probe needs retrieval keeps, with these settings."""
    names = {node.id: node.name for node in index.nodes.values()}
    score = Recall()
    for probe in probes:
        found = await retrieve(index, probe["message"], (), settings)
        kept = {(names[e.source], names[e.target], e.relation) for e in found.edges}
        for need in probe["needs"]:
            hit = (need["source"], need["target"], need["relation"]) in kept
            score.needed += 1
            score.kept += hit
            tally = score.by_kind[probe["kind"]]
            tally[0] += hit
            tally[1] += 1
    return score


async def compare() -> list[tuple[str, Recall, Recall]]:
    """Each probe world's recall, off and on."""
    rows = []
    for world in probe_worlds():
        index = await load_graph(world["lines"])
        rows.append((world["world"], await recall(index, world["probes"], OFF),
                     await recall(index, world["probes"], ON)))
    return rows


async def with_discovered() -> list[tuple[str, Recall, int]]:
    """Each probe world's recall with the defaults and what ``kith graph patterns --discover`` keeps on it
    (``discovered_patterns = true``), and how many patterns that was."""
    rows = []
    for world in probe_worlds():
        index = await load_graph(world["lines"])
        found = discover(index.open_edges.values(), known=DEFAULT_PATTERNS)
        settings = RetrievalSettings(patterns=active_patterns(True, (), found.kept))
        rows.append((world["world"], await recall(index, world["probes"], settings), len(found.kept)))
    return rows


async def timings(reader: GraphReader, queries: Sequence[str], passes: int) -> tuple[list[float], list[float]]:
    """Milliseconds per query off and on: the best of ``passes`` alternating passes, so load on a
    shared machine falls on both alike."""
    best = {False: [float("inf")] * len(queries), True: [float("inf")] * len(queries)}
    for _pass in range(passes):
        for on in (False, True):
            settings = ON if on else OFF
            for position, message in enumerate(queries):
                started = time.perf_counter()
                await retrieve(reader, message, (), settings)
                best[on][position] = min(best[on][position], (time.perf_counter() - started) * 1000)
    return best[False], best[True]


async def cost(quick: bool) -> tuple[float, float, float]:
    """Retrieval p50 off and on (ms), and seconds for one discovery over the same graph."""
    data = synthesize(300 if quick else 10_000)
    index = await load_graph(data.lines)
    queries = messages(data, 20 if quick else 300)
    await timings(index, queries[:20], 1)  # warm-up
    off, on = await timings(index, queries, 1 if quick else 5)
    started = time.perf_counter()
    discover(index.open_edges.values(), known=DEFAULT_PATTERNS)
    return percentiles(off)[0], percentiles(on)[0], time.perf_counter() - started


def run(quick: bool = False) -> list[str]:
    lines = []
    total_off, total_on = Recall(), Recall()
    for world, off, on in asyncio.run(compare()):
        kinds = sorted(on.by_kind)
        lines.append(f"probe world {world}: recall within 20 places, meta-paths off {off.share:.3f}, "
                     f"on {on.share:.3f} ({off.needed} needed relations)")
        lines.append("   by kind (off -> on): " + ", ".join(
            f"{kind} {off.kind_share(kind):.2f}->{on.kind_share(kind):.2f}" for kind in kinds))
        for total, part in ((total_off, off), (total_on, on)):
            total.needed += part.needed
            total.kept += part.kept
    verdict = "helps" if total_on.share > total_off.share else "does NOT help"
    lines.append(f"all probes: recall off {total_off.share:.3f}, on {total_on.share:.3f}: meta-paths {verdict}")
    found = asyncio.run(with_discovered())
    kept = sum(score.kept for _, score, _ in found) / max(1, sum(score.needed for _, score, _ in found))
    lines.append("on + discovered patterns (discovered_patterns = true): " + ", ".join(
        f"{world} {score.share:.3f} ({count} kept)" for world, score, count in found) + f"; all probes {kept:.3f}")
    p50_off, p50_on, discovery_s = asyncio.run(cost(quick))
    ratio = p50_on / p50_off if p50_off else 1.0
    goal = "within" if ratio <= SLOWER_GOAL else "OVER"
    lines.append(f"retrieval p50 ({'300' if quick else '10k'} versions, in memory): off {p50_off:.3f} ms, "
                 f"on {p50_on:.3f} ms, x{ratio:.2f} ({goal} the 10% goal)")
    lines.append(f"pattern discovery over the same graph (kith graph patterns --discover): {discovery_s:.2f} s")
    return lines
