"""Bytecode for Kith's modules before a benchmark starts fresh processes.

An installed Kith has its modules compiled (pip compiles them), and Python writes the ``.pyc`` of a
changed module the first time it imports it, unless ``PYTHONDONTWRITEBYTECODE`` is set, as it is in some
CI and sandbox shells. There every fresh process compiled each module edited since its ``.pyc`` was
written, and the launch and CLI figures measured the compiler (2-3 ms a module). Compiling once here
makes them measure what a player's command costs.
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "game"


def compile_kith() -> None:
    """Write any stale ``.pyc`` of the ``game`` package (only those that are out of date)."""
    compileall.compile_dir(PACKAGE, quiet=1)
