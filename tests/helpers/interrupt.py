"""Children a test means to interrupt with Ctrl-C (SIGINT).

A process started with SIGINT ignored (``nohup``, a shell's background job, some CI runners) passes the
ignored signal on to every child, and Python then installs no ``KeyboardInterrupt`` handler of its own:
the child finishes normally and a test of "Ctrl-C stops it cleanly" fails for a reason that is not Kith's.
Each interrupted child is therefore started with SIGINT back at its default, whatever the suite inherited.

The reset is done by a small Python that then ``exec``s the command (same process, same PID), not by a
``preexec_fn``: that runs Python between fork and exec, which is unsafe while the test has threads
(the progress tests read a terminal on one).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import Any

RESTORE = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
           "os.execvp(sys.argv[1], sys.argv[1:])")


def interruptible(args: Sequence[str], **options: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args, **options)`` whose child answers SIGINT even when this process ignores it."""
    return subprocess.Popen([sys.executable, "-c", RESTORE, *args], **options)
