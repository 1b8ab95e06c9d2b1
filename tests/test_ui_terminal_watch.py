"""A game whose terminal is closed under it notices and ends (it would otherwise spin on a dead pty)."""

from __future__ import annotations

import os
import pty

from game.ui.terminal_watch import terminal_lost


def test_a_live_terminal_is_kept_and_a_hung_up_one_is_noticed() -> None:
    controller, terminal = pty.openpty()
    try:
        assert not terminal_lost(terminal)
        os.close(controller)  # the window closes: the kernel hangs the pty up
        assert terminal_lost(terminal)
    finally:
        os.close(terminal)


def test_something_that_is_not_a_terminal_counts_as_lost() -> None:
    reader, writer = os.pipe()
    try:
        assert terminal_lost(reader)
    finally:
        os.close(reader)
        os.close(writer)
