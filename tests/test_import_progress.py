"""``kith graph import``'s progress line: on a terminal's standard error only, and standard output unchanged.

The command runs as a real process with its standard error on a pseudo-terminal (``pty.openpty``), as a
player's shell gives it, and its standard output on a pipe, so the two can be told apart.
"""

from __future__ import annotations

import io
import json
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from fcntl import ioctl
from pathlib import Path

import pytest
from helpers.interrupt import interruptible

from benchmarks.graph_bench import synthesize
from game.cli import import_progress
from game.cli.import_progress import ImportProgress, fit

ROOT = Path(__file__).resolve().parent.parent
ERASE = "\r\x1b[K"


class Terminal(io.StringIO):
    """What the progress line is drawn on, standing in for a terminal (the class asks only ``isatty``)."""

    def isatty(self) -> bool:
        return True


def write_lines(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def run_import(tmp_path: Path, save: str, source: Path, *extra: str, stderr_on_terminal: bool,
               interrupt_when: Callable[[str], bool] | None = None) -> tuple[int, str, str]:
    """``kith graph import`` in a process of its own: exit code, standard output, standard error (as bytes
    reached the terminal, or the pipe). ``interrupt_when``: Ctrl-C once the terminal shows what it wants."""
    command = [sys.executable, "-m", "game", "--saves-dir", str(tmp_path / "saves"), "graph", "import", *extra,
               "--save", save, str(source)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not stderr_on_terminal:
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
        return done.returncode, done.stdout, done.stderr
    leader, follower = pty.openpty()
    ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 240, 0, 0))  # 240 columns: no label is cut
    shown = bytearray()

    def drain() -> None:  # read as it comes, so a full terminal buffer never stalls the import
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the process ended and the terminal closed
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        process = interruptible(command, stdout=subprocess.PIPE, stderr=follower, text=True, cwd=tmp_path, env=env)
        if interrupt_when is not None:
            deadline = time.monotonic() + 60
            while not interrupt_when(shown.decode(errors="replace")) and process.poll() is None \
                    and time.monotonic() < deadline:
                time.sleep(0.01)
            assert process.poll() is None, "the import ended before it could be interrupted"
            process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=120)
    finally:
        os.close(follower)
        reader.join(timeout=5)
        os.close(leader)
    # The terminal turns each "\n" into "\r\n"; the progress line's own "\r" are kept as they are.
    return process.returncode, out, shown.decode().replace("\r\n", "\n")


@pytest.fixture(scope="module")
def long_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file big enough to show its progress (its lines write more than ``SHOW_FROM_VERSIONS`` versions), and
    quick: about a second."""
    data = synthesize(import_progress.SHOW_FROM_VERSIONS, seed=7)
    assert data.versions >= import_progress.SHOW_FROM_VERSIONS
    return write_lines(tmp_path_factory.mktemp("progress") / "long.jsonl", data.lines)


def test_a_long_import_on_a_terminal_shows_its_progress_and_the_same_summary(tmp_path: Path, long_file: Path) -> None:
    code, out, err = run_import(tmp_path, "shown", long_file, stderr_on_terminal=True)
    piped_code, piped_out, piped_err = run_import(tmp_path, "piped", long_file, stderr_on_terminal=False)
    assert code == piped_code == 0
    # Standard output is the same to the byte, whether or not progress was shown beside it.
    assert out == piped_out and out.startswith("Imported ") and out.count("\n") == 1
    assert piped_err == "", "with standard error on a pipe, nothing at all is written there"
    total = len(long_file.read_text(encoding="utf-8").splitlines())
    assert f"{ERASE}importing long.jsonl: " not in err  # the label is the file as given
    assert f"{ERASE}importing {long_file}: " in err
    assert f" of {total:,} lines (" in err and " versions" in err
    # The steps after the lines, each as it begins, in order; then the line is wiped and nothing follows.
    phases = [err.index(f"{ERASE}importing {long_file}: {phase}") for phase in ("checking", "building indexes", "saving")]
    assert phases == sorted(phases)
    assert err.endswith(f"saving{ERASE}")
    assert "\n" not in err, "the progress is one line, redrawn in place"


def test_progress_is_for_people_only_json_and_small_files_show_none(tmp_path: Path, long_file: Path) -> None:
    code, out, err = run_import(tmp_path, "json", long_file, "--json", stderr_on_terminal=True)
    assert code == 0 and json.loads(out)["rejected"] == 0
    assert err == ""
    small = write_lines(tmp_path / "small.jsonl", synthesize(2_000, seed=7).lines)
    code, out, err = run_import(tmp_path, "small", small, stderr_on_terminal=True)
    assert code == 0 and out.startswith("Imported ")
    assert err == ""


@pytest.mark.slow
def test_ctrl_c_wipes_the_progress_line_before_its_message(tmp_path: Path) -> None:
    big = write_lines(tmp_path / "big.jsonl", synthesize(150_000, seed=4).lines)
    code, out, err = run_import(tmp_path, "s", big, stderr_on_terminal=True,
                                interrupt_when=lambda shown: " versions" in shown)
    assert code == 130 and out == ""
    assert "importing " in err and "Traceback" not in err
    assert f"{ERASE}kith: interrupted; nothing from {big} was imported, and the save is as it was\n" in err
    assert not (tmp_path / "saves" / "s.sqlite").exists()


def test_the_line_is_redrawn_at_most_ten_times_a_second_and_wiped_once() -> None:
    terminal = Terminal()
    progress = ImportProgress.on_terminal(terminal, "people.jsonl", "{}\n" * import_progress.SHOW_FROM_LINES)
    assert progress is not None
    assert progress.due()
    progress.importing(256, 1_204_000)
    # Asked again at once (the next run of lines), it says no: the clock decides, not the line count.
    assert not progress.due()
    assert terminal.getvalue() == f"{ERASE}importing people.jsonl: 256 of 20,000 lines (1%), 1,204,000 versions"
    progress.clear()
    progress.clear()
    assert terminal.getvalue().endswith(f"versions{ERASE}") and terminal.getvalue().count(ERASE) == 2


def test_no_progress_off_a_terminal_or_for_a_short_file() -> None:
    assert ImportProgress.on_terminal(io.StringIO(), "a.jsonl", "{}\n" * 50_000) is None
    assert ImportProgress.on_terminal(Terminal(), "a.jsonl", "{}\n" * 50_000, wanted=False) is None
    terminal = Terminal()
    short = ImportProgress.on_terminal(terminal, "a.jsonl", "{}\n" * 100)
    assert short is not None
    short.expect(100, 1_000)  # a hundred lines of ten versions: over before anyone would look
    assert not short.due()
    short.phase("saving")
    short.clear()
    assert terminal.getvalue() == ""
    short.expect(100, import_progress.SHOW_FROM_VERSIONS)  # a hundred very long lines are shown
    assert short.due()


def test_a_long_label_is_cut_to_the_terminal_row() -> None:
    assert fit("importing x: 1 of 2 lines", 80) == "importing x: 1 of 2 lines"
    cut = fit("importing " + "very/" * 40 + "long.jsonl: 1 of 2 lines", 40)
    assert len(cut) == 39 and cut.endswith("…")


def test_a_refused_file_wipes_the_progress_line_before_its_error(tmp_path: Path) -> None:
    """A line that is not JSON, found after reading has shown progress: the error starts on a clean line."""
    lines = import_progress.SHOW_FROM_LINES + 10
    source = tmp_path / "broken.jsonl"
    source.write_text('{"turn": 0}\n' * lines + "{not json\n", encoding="utf-8")
    code, out, err = run_import(tmp_path, "s", source, stderr_on_terminal=True)
    assert code == 2 and out == ""
    assert f"{ERASE}reading {source}: 256 of {lines + 1:,} lines (1%)" in err
    assert f"{ERASE}kith: {source}, line {lines + 1}: not valid JSON" in err
    assert not (tmp_path / "saves" / "s.sqlite").exists()
