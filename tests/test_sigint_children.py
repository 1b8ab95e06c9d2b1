"""The Ctrl-C tests hold when the suite itself runs with SIGINT ignored (issue 21).

Under ``nohup`` or as a shell's background job, SIGINT is ignored, every child inherits that, and the
five tests that interrupt a kith child saw it finish normally instead. They start the child through
``helpers.interrupt.interruptible``; these tests prove that it restores the signal (and that without it
the child would inherit it ignored), and that every test sending SIGINT uses it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.interrupt import interruptible

TESTS = Path(__file__).parent
SHOW = "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"


@pytest.fixture
def sigint_ignored() -> Iterator[None]:
    """This process as ``nohup`` or a background job starts it: SIGINT ignored."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_plain_child_inherits_sigint_ignored(sigint_ignored: None) -> None:
    shown = subprocess.run([sys.executable, "-c", SHOW], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "True"


def test_an_interruptible_child_answers_sigint_with_keyboard_interrupt(sigint_ignored: None) -> None:
    process = interruptible([sys.executable, "-c", SHOW + "; import time; time.sleep(30)"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "False"
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "KeyboardInterrupt" in err


def test_every_test_that_sends_sigint_starts_its_child_interruptible() -> None:
    senders = [path for path in sorted(TESTS.glob("test_*.py"))
               if path.name != Path(__file__).name and "send_signal(signal.SIGINT)" in path.read_text("utf-8")]
    assert len(senders) >= 4, senders  # test_cli_play, test_enrich_rebuild, test_graph_bulk, test_import_progress
    for path in senders:
        assert "interruptible(" in path.read_text("utf-8"), path.name
