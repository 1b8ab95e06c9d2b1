"""``kith explore`` on Brinefall, for ``make bench``: games and turns per second, the whole run's time, and
issue 28's verdict.

Issue 28's target is 200 games of 150 turns in under two minutes on two cores, every ending reached, and a
report that lists nothing the world's authors have not fixed or marked (exit 0). The run is the real
command (offline, temporary saves), its report parsed for what it reached and found. The processor time
of this process and its workers is printed beside the wall time: on a machine other work shares, the wall
time grows while the processor time, about twice what two free cores would take, does not.
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import time

from game.__main__ import main as kith_main

TARGET_SECONDS = 120.0


def _cpu_seconds() -> float:
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def run(quick: bool) -> list[str]:
    games, turns = (2, 10) if quick else (200, 150)
    out = io.StringIO()
    started, cpu = time.perf_counter(), _cpu_seconds()
    with contextlib.redirect_stdout(out):
        code = kith_main(["explore", "brinefall", "--games", str(games), "--turns", str(turns), "--json"])
    seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    report = json.loads(out.getvalue())
    reached = sum(1 for ending in report["endings"] if ending["reached"])
    unreached = sum(len(labels) for labels in report["unreached"].values())
    lines = [f"brinefall, {games} games of up to {turns} turns: {seconds:.1f} s ({games / seconds:.2f} games/s; "
             f"target 200x150 in {TARGET_SECONDS:.0f} s), {cpu:.1f} s of processor time, exit {code}",
             f"endings reached {reached}/{len(report['endings'])}, faults {len(report['faults'])}, never reached "
             "(issue 28 asks for none the world has not marked): "
             + ", ".join(f"{kind} {len(labels)}" for kind, labels in report["unreached"].items())]
    if not quick:
        met = (seconds < TARGET_SECONDS, reached == len(report["endings"]), unreached == 0, code == 0)
        lines.append(f"issue 28 verdict: {'met' if all(met) else 'NOT met'} (under {TARGET_SECONDS:.0f} s: "
                     f"{met[0]}, every ending: {met[1]}, nothing unreached: {met[2]}, no fault: {met[3]})")
    return lines
