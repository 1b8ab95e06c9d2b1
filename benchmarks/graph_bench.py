"""Graph figures for ``make bench``: retrieval latency, upsert and import throughput, at 1k/10k/100k versions.

Each graph is synthetic but shaped like a long game: a few edge versions per relation (most closed, the
newest open), a steady average degree, hub factions far above the hub threshold, and a tenth of the
relations outside the vocabulary. It is built through the real ``kith graph import`` command, so building
it measures bulk import too. Retrieval is then timed three ways on the same save, in the same process:

- in-process: ``retrieve`` over the session's ``GraphIndex`` (what a turn does);
- one-shot: ``retrieve`` over ``db.graph``, the SQL reader (what ``kith graph retrieve`` does);
- plain: the seed's algorithm, which reads every node and edge from SQLite, derives the adjacency on the
  spot, then walks. Its cost grows with the graph; the point of the index is that ours does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.__main__ import main as kith_main
from game.graph.index import GraphIndex
from game.graph.names import normalize_name
from game.graph.ports import GraphReader
from game.graph.render import sign_mark
from game.graph.retrieve import retrieve
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.registry import default_registry
from game.store.database import SaveDatabase

EDGES_PER_CALL = 12
CALLS_PER_TURN = 4

_SYLLABLES = ("ka", "ri", "mo", "sel", "van", "tor", "li", "bra", "en", "dus", "mar", "ope", "quin", "ha", "zu",
              "fel", "gar", "ni", "os", "tam", "wen", "yr", "cal", "dor", "ist", "lo", "mer", "pa", "rho", "ve")
_KNOWN = ("TRUSTS", "DISTRUSTS", "FEARS", "LOVES", "HATES", "KIN_OF", "ALLY_OF", "RIVAL_OF", "ENEMY_OF", "OWES",
          "KNOWS", "SERVES", "KNOWS_SECRET_OF")
_UNKNOWN = ("ROWS_FOR", "SWORE_VENGEANCE_ON", "SINGS_WITH", "BORROWS_FROM")




@dataclass(frozen=True)
class Scale:
    """How much to measure: the full run of ``make bench``, or the tiny one of ``--quick``."""

    sizes: tuple[int, ...]
    queries: int
    plain_queries: dict[int, int]
    """Queries for the plain algorithm by graph size (it is slow on big graphs); 10 for other sizes."""
    cli_runs: int
    passes: int
    upsert_turns: int


FULL = Scale(sizes=(1_000, 10_000, 100_000), queries=300, plain_queries={1_000: 100, 10_000: 30, 100_000: 10},
             cli_runs=5, passes=3, upsert_turns=40)
QUICK = Scale(sizes=(300,), queries=20, plain_queries={}, cli_runs=1, passes=1, upsert_turns=2)


# ------------------------------------------------------------------------------------------------ data


@dataclass
class Synthetic:
    """A generated graph as import lines, plus the names queries are made of."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    people: list[str] = field(default_factory=list)
    hubs: list[str] = field(default_factory=list)
    versions: int = 0


def _name(rng: random.Random, taken: set[str]) -> str:
    while True:
        first = "".join(rng.choice(_SYLLABLES) for _ in range(2)).capitalize()
        last = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        name = f"{first} {last}"
        if normalize_name(name) not in taken:
            taken.add(normalize_name(name))
            return name


_VOCABULARY = Vocabulary.default()


def _strength(rng: random.Random, relation: str) -> float:
    """A random strength of the sign the relation's valence asks for (a wrong sign is refused)."""
    strength = round(rng.uniform(-1, 1), 2)
    valence = _VOCABULARY.valence(relation)
    if valence == "positive":
        return abs(strength)
    if valence == "negative":
        return -abs(strength)
    return strength


def synthesize(target_versions: int, seed: int = 7) -> Synthetic:
    """About ``target_versions`` edge versions: ~3 per relation, average open degree ~8, hubs over 100."""
    rng = random.Random(seed)
    relations = max(30, target_versions // 3)
    people_count = max(24, relations // 4)
    hub_count = max(2, people_count // 200)
    taken: set[str] = set()
    data = Synthetic()
    data.people = [_name(rng, taken) for _ in range(people_count)]
    data.hubs = [f"The {_name(rng, taken).split()[1]} Company" for _ in range(hub_count)]
    node_items = [{"name": p, "summary": f"{p}, who works the harbour."} for p in data.people]
    node_items += [{"name": h, "type": "faction", "summary": f"{h}, a trading house."} for h in data.hubs]
    for start in range(0, len(node_items), 8):
        data.lines.append({"turn": 0, "nodes": node_items[start:start + 8]})

    events: dict[int, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    seen: set[tuple[str, str, str]] = set()
    while data.versions < target_versions:
        source = rng.choice(data.people)
        target = rng.choice(data.hubs) if rng.random() < 0.15 else rng.choice(data.people)
        relation = rng.choice(_UNKNOWN) if rng.random() < 0.1 else rng.choice(_KNOWN)
        low, high = sorted((source, target))
        key = (low, high, relation)  # symmetric relations ignore direction, so one key per pair
        if source == target or key in seen:
            continue
        seen.add(key)
        turn = rng.randint(1, 150)
        for version in range(min(rng.randint(1, 5), target_versions - data.versions)):
            edge: dict[str, Any] = {
                "sourceName": source, "targetName": target, "relation": relation,
                "strength": _strength(rng, relation),
                "fact": f"{source} and {target}: {relation.lower().replace('_', ' ')}, chapter {version + 1}.",
            }
            if rng.random() < 0.1:  # town talk: some facts everyone knows, as a world's public ones
                edge["public"] = True
            events[turn].append(("edges", edge))
            data.versions += 1
            turn += rng.randint(1, 12)
        if rng.random() < 0.1:
            events[turn].append(("closeEdges", {"sourceName": source, "targetName": target, "relation": relation}))
    for turn in sorted(events):
        for kind in ("edges", "closeEdges"):
            items = [item for k, item in events[turn] if k == kind]
            for start in range(0, len(items), EDGES_PER_CALL):
                data.lines.append({"turn": turn, kind: items[start:start + EDGES_PER_CALL]})
    return data


def askers(data: Synthetic, queries: Sequence[str], seed: int = 13) -> list[str]:
    """Who each query's context is scoped to (``retrieve --as``): the person asked, else anyone."""
    rng = random.Random(seed)
    found = []
    for message in queries:
        match = re.match(r"I ask (.+?) what happened", message)
        found.append(match.group(1) if match else rng.choice(data.people))
    return found


def messages(data: Synthetic, count: int, seed: int = 11) -> list[str]:
    """Player messages naming one or two people, and now and then a hub faction directly."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        if index % 10 == 9:
            out.append(f"What does {rng.choice(data.hubs)} want from us?")
        else:
            a, b = rng.sample(data.people, 2)
            out.append(f"I ask {a} what happened to {b} last night.")
    return out


# ------------------------------------------------------------------------------------------------ plain


_WORD = re.compile(r"\w")


def plain_retrieve(path: Path, message: str) -> str:
    """The seed's algorithm: read every node and edge, derive the adjacency on the spot, then walk 2 hops."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        nodes = {row[0]: (row[1], json.loads(row[2])) for row in conn.execute("SELECT id, name, aliases FROM nodes")}
        edges = conn.execute(
            "SELECT id, source, target, relation, strength, fact, valid_at, invalid_at FROM edges").fetchall()
    finally:
        conn.close()
    newest: dict[tuple[str, str, str], tuple[Any, ...]] = {}
    for edge in edges:
        if edge[7] is None:
            key = (edge[1], edge[2], edge[3])
            if key not in newest or (edge[6], edge[0]) > (newest[key][6], newest[key][0]):
                newest[key] = edge
    adjacency: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for edge in newest.values():
        adjacency[edge[1]].append(edge)
        adjacency[edge[2]].append(edge)
    text = normalize_name(message)
    seeds = []
    for node_id, (name, aliases) in nodes.items():
        for candidate in (name, *aliases):
            form = normalize_name(candidate)
            at = text.find(form)
            if at >= 0 and not (at > 0 and _WORD.match(text[at - 1])) and not (
                    at + len(form) < len(text) and _WORD.match(text[at + len(form)])):
                seeds.append(node_id)
                break
    reached, frontier, collected = set(seeds), list(seeds), {}
    for _hop in range(2):
        following = []
        for node_id in frontier:
            for edge in adjacency.get(node_id, ()):
                collected[edge[0]] = edge
                other = edge[2] if edge[1] == node_id else edge[1]
                if other not in reached:
                    reached.add(other)
                    following.append(other)
        frontier = following
    kept = sorted(collected.values(), key=lambda e: (-e[6], -abs(e[4]), e[0]))[:20]
    return "\n".join(f"- {sign_mark(e[4])} **{nodes[e[1]][0]}** → **{nodes[e[2]][0]}** ({e[3]}): {e[5]}"
                     for e in kept if e[1] in nodes and e[2] in nodes)


# ------------------------------------------------------------------------------------------------ timing


def percentiles(samples: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


async def time_retrievals(reader: GraphReader, queries: Sequence[str], passes: int,
                          knowers: Sequence[str] | None = None) -> tuple[list[float], int]:
    """Milliseconds per query: the best of ``passes`` passes over the whole list.

    Whole passes, not one query repeated, so a query never finds its neighbourhood hot in the CPU's
    caches from the run just before; the best pass filters out other processes on a shared machine.
    """
    best = [float("inf")] * len(queries)
    edges = 0
    for _pass in range(passes):
        edges = 0
        for position, message in enumerate(queries):
            started = time.perf_counter()
            found = await retrieve(reader, message, as_knower=knowers[position] if knowers else None)
            best[position] = min(best[position], (time.perf_counter() - started) * 1000)
            edges += found.edge_count
    return best, edges


@dataclass
class SizeFigures:
    versions: int
    build_s: float = 0.0
    import_rate: float = 0.0
    memory_ms: tuple[float, float] = (0.0, 0.0)
    sql_ms: tuple[float, float] = (0.0, 0.0)
    plain_ms: tuple[float, float] = (0.0, 0.0)
    upsert_rate: float = 0.0
    cli_ms: float = 0.0
    mean_edges: float = 0.0
    memory_as_ms: tuple[float, float] = (0.0, 0.0)
    sql_as_ms: tuple[float, float] = (0.0, 0.0)
    mean_edges_as: float = 0.0


def build(path: Path, data: Synthetic, workdir: Path) -> float:
    """Load the graph through ``kith graph import``; returns seconds taken."""
    source = workdir / f"{path.stem}.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in data.lines) + "\n", encoding="utf-8")
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = kith_main(["graph", "import", "--save", str(path), str(source)])
    elapsed = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"import of the synthetic graph failed with exit code {code}")
    return elapsed


async def measure_reads(path: Path, data: Synthetic, figures: SizeFigures, scale: Scale) -> None:
    queries = messages(data, scale.queries)
    async with await SaveDatabase.open(path, schema=default_registry().schema()) as db:
        index = await db.load_graph_index()
        await time_retrievals(index, queries[:20], 1)  # warm-up
        memory, edges = await time_retrievals(index, queries, scale.passes)
        figures.memory_ms = percentiles(memory)
        figures.mean_edges = edges / len(queries)
        sql, _ = await time_retrievals(db.graph, queries, scale.passes)
        figures.sql_ms = percentiles(sql)
        # Scoped to what the person asked knows: the same walk, filtered by their knowledge at each step.
        named = await index.nodes_named([normalize_name(name) for name in askers(data, queries)])
        knowers = [named[normalize_name(name)][0].id for name in askers(data, queries)]
        scoped, scoped_edges = await time_retrievals(index, queries, scale.passes, knowers)
        figures.memory_as_ms = percentiles(scoped)
        figures.mean_edges_as = scoped_edges / len(queries)
        scoped_sql, _ = await time_retrievals(db.graph, queries, scale.passes, knowers)
        figures.sql_as_ms = percentiles(scoped_sql)
        plain_queries = queries[: scale.plain_queries.get(figures.versions, 10)]
        plain = [float("inf")] * len(plain_queries)
        for _pass in range(2):
            for position, message in enumerate(plain_queries):
                started = time.perf_counter()
                plain_retrieve(path, message)
                plain[position] = min(plain[position], (time.perf_counter() - started) * 1000)
        figures.plain_ms = percentiles(plain)


async def measure_upserts(path: Path, data: Synthetic, figures: SizeFigures, scale: Scale) -> None:
    """Turns of 4 calls x 12 changed relations each, through UpsertExecution and one commit per turn."""
    rng = random.Random(5)
    async with await SaveDatabase.open(path, schema=default_registry().schema()) as db:
        index: GraphIndex = await db.load_graph_index()
        vocabulary: Vocabulary = await db.vocabulary()
        names = {node.id: node.name for node in index.nodes.values()}
        open_edges = list(index.open_edges.values())
        turn = 1000
        created = 0
        started = time.perf_counter()
        for _ in range(scale.upsert_turns):
            turn += 1
            execution = UpsertExecution(index, vocabulary, turn, rng=rng)
            for _call in range(CALLS_PER_TURN):
                picked = rng.sample(open_edges, EDGES_PER_CALL)
                outcome = await execution.run({"edges": [
                    {"sourceName": names[e.source], "targetName": names[e.target], "relation": e.relation,
                     "strength": _strength(rng, e.relation), "fact": f"Things changed at turn {turn}, again."}
                    for e in picked
                ]})
                assert outcome.result is not None, outcome.error
                created += outcome.result.edges.created
            await db.commit_graph(execution.writes)  # dated by the versions themselves (valid_at = turn)
            index.apply(execution.writes)
            open_edges = list(index.open_edges.values())
        figures.upsert_rate = created / (time.perf_counter() - started)


def time_cli(path: Path, data: Synthetic, runs: int) -> float:
    """Median wall time of ``kith graph retrieve`` in a fresh process (startup included)."""
    message = messages(data, 1, seed=3)[0]
    command = [sys.executable, "-m", "game", "graph", "retrieve", "--save", str(path), message]
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def time_upsert_calls(workdir: Path, calls: int) -> float:
    """Seconds for one ``kith graph upsert`` of ``calls`` calls (a node and an edge each) on a new save.

    Each call reads what the earlier ones buffered; that must cost the same however many came before
    (a copy of the whole buffer per call once made 16k calls take 77 s).
    """
    source = workdir / f"upsert-{calls}.json"
    source.write_text(json.dumps([
        {"nodes": [{"name": f"Person {i}", "summary": "Someone in town."}],
         "edges": [{"sourceName": f"Person {i}", "targetName": f"Person {max(0, i - 1)}", "relation": "KNOWS",
                    "strength": 0.5, "fact": "They met at the market once."}]}
        for i in range(calls)
    ]), encoding="utf-8")
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = kith_main(["graph", "upsert", "--save", str(workdir / f"upsert-{calls}.sqlite"), str(source)])
    if code != 0:
        raise RuntimeError(f"upsert of {calls} calls failed with exit code {code}")
    return time.perf_counter() - started


def upsert_scaling_line(workdir: Path, calls: int) -> str:
    """One upsert of N calls and one of 4N: linear work takes about 4x as long, quadratic 16x."""
    small = time_upsert_calls(workdir, calls)
    large = time_upsert_calls(workdir, calls * 4)
    return (f"kith graph upsert, one execution: {calls:,} calls {small:.2f} s, {calls * 4:,} calls {large:.2f} s "
            f"({_ratio(large, small)} for 4x the calls; linear ~4x, target < 8x)")


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "-"


def run(quick: bool = False, sizes: Sequence[int] = ()) -> list[str]:
    scale = QUICK if quick else FULL
    sizes = sizes or scale.sizes
    lines: list[str] = []
    results: list[SizeFigures] = []
    with tempfile.TemporaryDirectory(prefix="kith-graph-bench-") as tmp:
        workdir = Path(tmp)
        # A first tiny import pays for loading the CLI's modules, so the figures below are the command's.
        build(workdir / "warm-up.sqlite", synthesize(30), workdir)
        for size in sizes:
            data = synthesize(size)
            path = workdir / f"bench-{size}.sqlite"
            figures = SizeFigures(versions=data.versions)
            figures.build_s = build(path, data, workdir)
            figures.import_rate = data.versions / figures.build_s
            asyncio.run(measure_reads(path, data, figures, scale))
            figures.cli_ms = time_cli(path, data, scale.cli_runs)
            asyncio.run(measure_upserts(path, data, figures, scale))
            results.append(figures)
            lines.append(
                f"{figures.versions:>7,} versions ({len(data.people) + len(data.hubs):,} nodes, "
                f"{len(data.hubs)} hubs): import {figures.build_s:.1f} s = {figures.import_rate:,.0f} versions/s"
            )
            lines.append(
                f"   retrieval p50/p95 ms: in-process {figures.memory_ms[0]:.3f}/{figures.memory_ms[1]:.3f}, "
                f"one-shot SQL {figures.sql_ms[0]:.3f}/{figures.sql_ms[1]:.3f}, "
                f"plain {figures.plain_ms[0]:.1f}/{figures.plain_ms[1]:.1f} "
                f"(plain/in-process {_ratio(figures.plain_ms[0], figures.memory_ms[0])}, "
                f"plain/SQL {_ratio(figures.plain_ms[0], figures.sql_ms[0])}); "
                f"{figures.mean_edges:.1f} facts per context"
            )
            lines.append(
                f"   retrieval --as (what the person asked knows) p50/p95 ms: in-process "
                f"{figures.memory_as_ms[0]:.3f}/{figures.memory_as_ms[1]:.3f}, one-shot SQL "
                f"{figures.sql_as_ms[0]:.3f}/{figures.sql_as_ms[1]:.3f}; {figures.mean_edges_as:.1f} facts per context"
            )
            lines.append(
                f"   upsert (turns of 4x12 changed relations, committed per turn): {figures.upsert_rate:,.0f} "
                f"versions/s; kith graph retrieve (fresh process): {figures.cli_ms:.0f} ms"
            )
        lines.append(upsert_scaling_line(workdir, max(25, min(500, min(sizes) // 2))))
    if len(results) > 1:
        small, large = results[0], results[-1]
        lines.append(
            f"scaling {small.versions:,} -> {large.versions:,} versions: in-process p50 "
            f"{_ratio(large.memory_ms[0], small.memory_ms[0])} (target <= 2x), one-shot SQL p50 "
            f"{_ratio(large.sql_ms[0], small.sql_ms[0])}, CLI {_ratio(large.cli_ms, small.cli_ms)} (target <= 1.5x), "
            f"plain p50 {_ratio(large.plain_ms[0], small.plain_ms[0])}; at {large.versions:,} plain is "
            f"{_ratio(large.plain_ms[0], large.memory_ms[0])} slower than in-process (target >= 20x)"
        )
    return lines


if __name__ == "__main__":
    for printed in run(sizes=[int(arg) for arg in sys.argv[1:]]):
        print(printed, flush=True)
