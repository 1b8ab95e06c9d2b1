"""``kith graph import`` throughput, for ``make bench``: edge versions per second into a new save.

The file is ``graph_bench``'s synthetic long game (a few versions per relation, most closed by a later
line, a tenth public, a tenth of the relations outside the vocabulary, hub factions), run through the
real command in a process of its own (``run``), so the figure is the command's: reading and validating every line, the
bulk rules, and the one commit. The target is 50,000 versions/s or more at 100k versions. Each size is
imported several times, each into a new save: the median is the figure, with the best beside it (other
processes on a shared machine only ever make a run slower, so the gap between the two says how busy it was).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.graph_bench import synthesize
from game.__main__ import main as kith_main

TARGET = 50_000


def import_seconds(folder: Path, lines: list[dict[str, object]], name: str) -> float:
    source = folder / f"{name}.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = kith_main(["graph", "import", "--save", str(folder / f"{name}.sqlite"), str(source)])
    elapsed = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"import of the synthetic graph failed with exit code {code}")
    return elapsed


def run(quick: bool = False) -> list[str]:
    """The figures, measured in a process of their own: run after the other benchmarks in one process, the
    100k import came out 8% slower than alone (their leftover heap), which no ``kith graph import`` pays."""
    root = Path(__file__).resolve().parent.parent
    code = f"from benchmarks.import_bench import measure; print(*measure(quick={quick}), sep=chr(10))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root,
                          env={**os.environ, "PYTHONPATH": str(root)})
    return done.stdout.splitlines()


def measure(quick: bool = False) -> list[str]:
    """Full: 10k and 100k versions, five runs each. Quick: 300 versions, once."""
    sizes, runs = ((300,), 1) if quick else ((10_000, 100_000), 5)
    lines = []
    with tempfile.TemporaryDirectory(prefix="kith-import-bench-") as tmp:
        folder = Path(tmp)
        import_seconds(folder, synthesize(30).lines, "warm-up")  # the command's modules, loaded once
        for size in sizes:
            data = synthesize(size)
            seconds = [import_seconds(folder, data.lines, f"import-{size}-{n}") for n in range(runs)]
            median, best = statistics.median(seconds), min(seconds)
            lines.append(f"kith graph import, {data.versions:,} versions ({len(data.lines):,} lines): median {median:.2f} s "
                         f"= {data.versions / median:,.0f} versions/s, best {best:.2f} s = {data.versions / best:,.0f}/s "
                         f"(target >= {TARGET:,})")
    return lines


if __name__ == "__main__":
    for printed in run():
        print(printed, flush=True)
