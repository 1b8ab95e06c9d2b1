"""Launch to first frame for ``make bench``: ``kith play`` against an empty Textual app (issue 15's
target: within 1.2x).

Both run in fresh interpreters on a pseudo-terminal (so ``kith play`` takes its full-screen path, as for
a player), both headless at the same size (120x36), both timed from the first line of the script to
Textual's ``Ready`` (the first frame), in wall time and in the CPU time the process spent (which other
work on a shared machine barely moves, so it is the steadier figure). Kith's side is the real command: ``game.__main__.main`` parses the
command line, reads the settings and opens the app, as ``kith play`` does; the only change is a subclass
of the app that reports ``Ready`` and runs headless. The two are launched in turns, median of each. A game is then opened into
the screen (after the frame), which the figure rightly leaves out.
"""

from __future__ import annotations

import os
import pty
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from benchmarks.bytecode import compile_kith

ROOT = Path(__file__).resolve().parent.parent
SIZE = (120, 36)

EMPTY_APP = f"""
import time
started, cpu = time.perf_counter(), time.process_time()
import sys
from textual.app import App

class Empty(App):
    def on_ready(self) -> None:
        print(f"{{(time.perf_counter() - started) * 1000:.1f}} {{(time.process_time() - cpu) * 1000:.1f}}",
              file=sys.stderr)
        self.exit()

Empty().run(headless=True, size={SIZE})
"""

KITH_PLAY = f"""
import time
started, cpu = time.perf_counter(), time.process_time()
import sys
import game.ui.app

class Timed(game.ui.app.KithApp):
    def on_ready(self) -> None:
        print(f"{{(time.perf_counter() - started) * 1000:.1f}} {{(time.process_time() - cpu) * 1000:.1f}}",
              file=sys.stderr)
        self.exit()

    def run(self, *args, **kwargs):
        return super().run(headless=True, size={SIZE})

game.ui.app.KithApp = Timed
from game.__main__ import main
main(sys.argv[1:])
"""


def _launch_ms(code: str, *args: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds from the script's first line to the first frame."""
    leader, follower = pty.openpty()  # stdin and stdout are a terminal, as when a player types kith
    try:
        result = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], stdin=follower,
                                stdout=follower, stderr=subprocess.PIPE, text=True, cwd=env["HOME"],
                                env=env, check=True, timeout=60)
    finally:
        os.close(follower)
        os.close(leader)
    wall, cpu = result.stderr.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def launch(repeat: int) -> list[str]:
    compile_kith()
    content = ROOT / "content"
    if not any(content.glob("*/*.toml")):
        content = ROOT / "tests" / "fixtures" / "worlds"
    with tempfile.TemporaryDirectory(prefix="kith-launch-bench-") as home:
        # A fresh player: no kith.toml, no endpoint in the environment, saves in a folder of their own.
        env = {"HOME": home, "PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color",
               "PYTHONPATH": str(ROOT)}
        kith_args = ("--saves-dir", str(Path(home) / "saves"), "--content-dir", str(content), "play", "--save", "bench")
        # Taken in turns, so a machine busy with something else slows both alike.
        empties, kiths = [], []
        for _ in range(repeat):
            empties.append(_launch_ms(EMPTY_APP, env=env))
            kiths.append(_launch_ms(KITH_PLAY, *kith_args, env=env))
    lines = []
    for at, what in ((0, "wall"), (1, "CPU")):
        empty = statistics.median(run[at] for run in empties)
        kith = statistics.median(run[at] for run in kiths)
        lines.append(f"launch to first frame ({what}): kith play {kith:.0f} ms, empty Textual app {empty:.0f} ms "
                     f"({kith / empty:.2f}x; target 1.2x), both {SIZE[0]}x{SIZE[1]}, median of {repeat}")
    return lines


def run(quick: bool = False) -> list[str]:
    """Quick: one launch of each; full: the median of eleven (a shared machine's figures scatter)."""
    return launch(repeat=1 if quick else 11)


if __name__ == "__main__":
    print("\n".join(run()))
