"""Noticing that the player's terminal is gone, so the game does not outlive it.

When a terminal window closes, or an ssh session drops, the kernel hangs up its pty. A game started
straight from a shell gets SIGHUP and ends; one started through another program (``make play``) may not
get it, and Textual then keeps reading a dead pty, spinning a CPU core forever. Every turn is already in
the save, so leaving is safe: the app only has to notice.
"""

from __future__ import annotations

import sys
import termios
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

CHECK_SECONDS = 1.0
"""How often the app looks: a hung-up pty costs nothing to ask about, and a second is soon enough."""


def terminal_fd() -> int | None:
    """The game's terminal (standard input) when it is a live terminal, else None (tests, pipes)."""
    try:
        fd = sys.__stdin__.fileno() if sys.__stdin__ is not None else -1
        termios.tcgetattr(fd)
    except (OSError, ValueError, termios.error):
        return None
    return fd


def leave_with_the_terminal(app: App[Any]) -> None:
    """Check the app's terminal every ``CHECK_SECONDS`` and end the app once it is gone (not in tests)."""
    terminal = None if app.is_headless else terminal_fd()
    if terminal is not None:
        app.set_interval(CHECK_SECONDS, lambda: app.exit() if terminal_lost(terminal) else None)


def terminal_lost(fd: int) -> bool:
    """Whether the terminal behind ``fd`` has been hung up (its attributes can no longer be read)."""
    try:
        termios.tcgetattr(fd)
    except (OSError, termios.error):
        return True
    return False
