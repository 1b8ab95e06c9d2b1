"""Opening a long game for play, for ``make bench``: a save of 100k edge versions and 200k knower rows.

``GameSession.open`` reads the nodes and leaves the rest for when it is reached (``game.graph.index``);
the target is under 300 ms. Beside it: the same graph loaded whole (what opening cost before, and what a
bulk import still loads), the first turn after opening (which pays for the neighbourhood it reads), and
retrieval p50 over the lazily opened index, cold (each node read from the save the first time) and warm,
against the index loaded whole: the lazy index may not make retrieval more than 10% slower once warm.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import tempfile
import time
from pathlib import Path

from benchmarks.graph_bench import messages, percentiles, synthesize, time_retrievals
from game.__main__ import main as kith_main
from game.config import load_settings
from game.engine.events import TurnFailed
from game.engine.session import GameSession
from game.registry import default_registry
from game.store.database import SaveDatabase

TARGET_MS = 300


async def create(path: Path) -> None:
    db = await SaveDatabase.open(path, schema=default_registry().schema(), create=True, world_id="brinefall")
    await db.close()


def build(folder: Path, versions: int) -> Path:
    """A save of the world Brinefall holding a synthetic long game's graph (loaded by ``graph import``)."""
    path = folder / "long-game.sqlite"
    asyncio.run(create(path))
    source = folder / "long-game.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in synthesize(versions).lines), encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        if kith_main(["graph", "import", "--save", str(path), str(source)]) != 0:
            raise RuntimeError("import of the synthetic graph failed")
    return path


async def open_ms(path: Path, runs: int) -> tuple[float, float]:
    """Best ``GameSession.open`` and best first turn after it, in milliseconds."""
    settings = load_settings(flags={"saves_dir": path.parent}, env={})
    opened, turned = [], []
    for _ in range(runs):
        started = time.perf_counter()
        session = await GameSession.open(settings, save=path)
        opened.append(time.perf_counter() - started)
        try:
            started = time.perf_counter()
            async for event in session.play_turn("look"):
                if isinstance(event, TurnFailed):
                    raise RuntimeError(event.message)
            turned.append(time.perf_counter() - started)
            await session.undo()  # the next run opens the same game
        finally:
            await session.close()
    return min(opened) * 1000, min(turned) * 1000


async def loads(path: Path, queries: int, passes: int) -> list[str]:
    async with await SaveDatabase.open(path, schema=default_registry().schema()) as db:
        started = time.perf_counter()
        eager = await db.load_graph_index(lazy=False)
        whole_ms = (time.perf_counter() - started) * 1000
        people = sorted(node.name for node in eager.nodes.values())
        asked = messages_for(people, queries)
        lazy = await db.load_graph_index()
        cold, _ = await time_retrievals(lazy, asked, 1)
        warm, _ = await time_retrievals(lazy, asked, passes)
        whole, _ = await time_retrievals(eager, asked, passes)
    cold_p50, warm_p50, whole_p50 = percentiles(cold)[0], percentiles(warm)[0], percentiles(whole)[0]
    return [
        f"graph loaded whole (load_graph_index(lazy=False)): {whole_ms:.0f} ms",
        f"retrieval p50 ms: lazy cold {cold_p50:.3f}, lazy warm {warm_p50:.3f}, loaded whole {whole_p50:.3f} "
        f"(warm/whole {warm_p50 / whole_p50:.2f}x, target <= 1.10x)",
    ]


def messages_for(people: list[str], count: int) -> list[str]:
    from benchmarks.graph_bench import Synthetic

    return messages(Synthetic(people=people, hubs=people[:2]), count)


def run(quick: bool = False) -> list[str]:
    """Full: 100k versions, best of 3 opens, 300 queries. Quick: 300 versions, once, 20 queries."""
    versions, runs, queries, passes = (300, 1, 20, 1) if quick else (100_000, 3, 300, 3)
    with tempfile.TemporaryDirectory(prefix="kith-open-bench-") as tmp:
        path = build(Path(tmp), versions)
        opened, first_turn = asyncio.run(open_ms(path, runs))
        lines = [f"GameSession.open at {versions:,} edge versions: {opened:.0f} ms (target < {TARGET_MS}); "
                 f"first turn after it: {first_turn:.0f} ms"]
        lines += asyncio.run(loads(path, queries, passes))
    return lines


if __name__ == "__main__":
    for printed in run():
        print(printed, flush=True)
