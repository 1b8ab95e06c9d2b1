"""Command start-up for ``make bench``: ``kith graph dump``, ``kith graph retrieve`` and ``kith --version``
on a small save, each in a fresh process, against ``python -c "import sqlite3"`` plus the same query.

The target (issue 15) is within 2x of that floor: a one-shot command should cost its imports and its
query, not the whole program's. The save is a short game of the shipped world, played through
``kith run --transcript``; the query floor reads its nodes and edges with plain SQL.

Every process runs with compiled bytecode, as an installed copy has (pip compiles it) and a checkout
keeps in ``__pycache__``: a session that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise time Kith
compiling its own modules on every run, which no player pays. The caches go to a temporary
``PYTHONPYCACHEPREFIX``, filled by one untimed run of each command. Wall time is reported, and the CPU
time the processes spent, which other work on a shared machine barely moves.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bytecode import compile_kith
from game.__main__ import main as kith_main

COMMANDS = "look\nask hob about the bell\nnorth\n"
FLOOR = ("import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
         "db.execute('select * from nodes').fetchall(); db.execute('select * from edges').fetchall(); db.close()")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_ms(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one run in a fresh process."""
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run(command, check=True, capture_output=True, timeout=60, env=env)
    return (time.perf_counter() - started) * 1000, (_children_cpu() - cpu) * 1000


def run(quick: bool = False) -> list[str]:
    """Quick: one run of each; full: the median of eleven, the commands taken in turns."""
    compile_kith()
    repeat = 1 if quick else 11
    with tempfile.TemporaryDirectory(prefix="kith-cli-bench-") as tmp:
        saves = Path(tmp)
        commands = saves / "commands.txt"
        commands.write_text(COMMANDS, encoding="utf-8")
        with contextlib.redirect_stdout(io.StringIO()):
            kith_main(["--saves-dir", str(saves), "run", "--transcript", "--save", "small", str(commands)])
        env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(saves / "pycache")
        kith = [sys.executable, "-m", "game", "--saves-dir", str(saves)]
        runs = {
            "floor": [sys.executable, "-c", FLOOR, str(saves / "small.sqlite")],
            "graph dump": [*kith, "graph", "dump", "--save", "small"],
            "graph retrieve": [*kith, "graph", "retrieve", "--save", "small", "Hob"],
            "--version": [*kith, "--version"],
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        for turn in range(repeat + 1):  # the first turn only fills the bytecode caches
            for name, command in runs.items():
                figures = _run_ms(command, env)
                if turn:
                    times[name].append(figures)
    lines = []
    for at, what in ((0, "wall"), (1, "CPU")):
        medians = {name: statistics.median(run[at] for run in runs) for name, runs in times.items()}
        floor = medians.pop("floor")
        lines.append(f"{what}: python -c 'import sqlite3' + the query: {floor:5.0f} ms (the floor)")
        lines += [f"{what}: kith {name:<15} {ms:5.0f} ms ({ms / floor:.1f}x the floor; target 2x)"
                  for name, ms in medians.items()]
    return lines
