"""``kith graph map`` on a 9,000-person save, in bounded memory and time.

The all-pairs layout needed n x n arrays: 4,000 nodes took 17 s and 833 MB, and 9,000 under a memory
limit died with NumPy's ``_ArrayMemoryError``. The map runs here in a child process whose address space
is capped at 400 MB (the old weight matrix alone was 648 MB) and must finish in a time the quadratic
layout (about 90 s at this size, unloaded) cannot meet.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.maps import import_lines

from game.__main__ import main

MEMORY_LIMIT = 400 * 2**20
TIME_LIMIT = 40.0
SIZE = 9000

CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from game.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_9000_person_map_is_drawn_in_bounded_memory_and_time(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "cast.jsonl"
    source.write_text("\n".join(import_lines(SIZE)) + "\n", encoding="utf-8")
    assert main(["--saves-dir", str(tmp_path), "graph", "import", "--save", "big", str(source)]) == 0
    assert f"{SIZE} node(s) created" in capsys.readouterr().out
    # One BLAS thread: each extra thread reserves address space of its own, which is not the map's.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(limit=MEMORY_LIMIT), "--saves-dir", str(tmp_path), "graph", "map",
         "--save", "big", "--all", "--width", "100", "--height", "30", "--color", "never"],
        capture_output=True, text=True, env=env, timeout=TIME_LIMIT * 3, check=False)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-2000:]
    assert elapsed < TIME_LIMIT, f"{elapsed:.1f} s"
    drawn = done.stdout
    assert f"of {SIZE} drawn" in drawn, "the map says it draws a part of the cast"
    assert drawn.count("(") >= 10, "and draws a readable part of it"


def _children_cpu() -> float:
    """Seconds of CPU used so far by this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
