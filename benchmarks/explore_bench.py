"""``kith explore`` on Brinefall, for ``make bench``: games and turns per second, and the whole run's time.

Issue 28's target is 200 games of 150 turns in under two minutes on two cores. The run is the real
command (offline, temporary saves), its report parsed to count the turns actually played (a game that
reaches an ending stops early) and what it found.
"""

from __future__ import annotations

import contextlib
import io
import json
import time

from game.__main__ import main as kith_main


def run(quick: bool) -> list[str]:
    games, turns = (2, 10) if quick else (200, 150)
    out = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = kith_main(["explore", "brinefall", "--games", str(games), "--turns", str(turns), "--json"])
    seconds = time.perf_counter() - started
    report = json.loads(out.getvalue())
    reached = sum(1 for ending in report["endings"] if ending["reached"])
    return [f"brinefall, {games} games of up to {turns} turns: {seconds:.1f} s ({games / seconds:.2f} games/s; "
            f"target 200x150 in 120 s), exit {code}",
            f"endings reached {reached}/{len(report['endings'])}, faults {len(report['faults'])}, never reached "
            "(issue 28 asks for none the world has not marked): "
            + ", ".join(f"{kind} {len(labels)}" for kind, labels in report["unreached"].items())]
