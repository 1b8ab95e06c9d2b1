"""Command start-up for ``make bench``: ``kith graph dump``, ``kith graph retrieve`` and ``kith --version``
on a small save, each in a fresh process, against ``python -c "import sqlite3"`` plus the same query.

The target (issue 15) is within 2x of that floor: a one-shot command should cost its imports and its
query, not the whole program's. The save is a short game of the shipped world, played through
``kith run --transcript``; the query floor reads its nodes and edges with plain SQL.
"""

from __future__ import annotations

import contextlib
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from game.__main__ import main as kith_main

COMMANDS = "look\nask hob about the bell\nnorth\n"
FLOOR = ("import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
         "db.execute('select * from nodes').fetchall(); db.execute('select * from edges').fetchall(); db.close()")


def _median_ms(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, timeout=60)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def run(quick: bool = False) -> list[str]:
    """Quick: one run of each; full: the median of seven."""
    repeat = 1 if quick else 7
    with tempfile.TemporaryDirectory(prefix="kith-cli-bench-") as tmp:
        saves = Path(tmp)
        commands = saves / "commands.txt"
        commands.write_text(COMMANDS, encoding="utf-8")
        with contextlib.redirect_stdout(io.StringIO()):
            kith_main(["--saves-dir", str(saves), "run", "--transcript", "--save", "small", str(commands)])
        kith = [sys.executable, "-m", "game", "--saves-dir", str(saves)]
        floor = _median_ms([sys.executable, "-c", FLOOR, str(saves / "small.sqlite")], repeat)
        figures = {
            "graph dump": _median_ms([*kith, "graph", "dump", "--save", "small"], repeat),
            "graph retrieve": _median_ms([*kith, "graph", "retrieve", "--save", "small", "Hob"], repeat),
            "--version": _median_ms([*kith, "--version"], repeat),
        }
    lines = [f"python -c 'import sqlite3' + the query: {floor:5.0f} ms (the floor)"]
    lines += [f"kith {name:<15} {ms:5.0f} ms ({ms / floor:.1f}x the floor; target 2x)" for name, ms in figures.items()]
    return lines
