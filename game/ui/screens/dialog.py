"""The look every modal shares: a bordered box in the middle of a dimmed screen; Esc closes it. Also what
every modal does when its own background task breaks: tell the player, and stay usable."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.worker import Worker, WorkerState

from game.ui.errors import Problem, describe, notify_problem

ResultType = TypeVar("ResultType")


class Dialog(ModalScreen[ResultType]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        background: $background 60%;
    }
    Dialog > .dialog {
        width: 72;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        border: thick $primary 80%;
        background: $surface;
        padding: 1 2;
    }
    Dialog .title {
        text-style: bold;
        width: 1fr;
        margin-bottom: 1;
    }
    Dialog .hint {
        color: $text-muted;
        margin-top: 1;
    }
    Dialog .error {
        color: $text-error;
        height: auto;
    }
    Dialog .buttons {
        height: auto;
        margin-top: 1;
        align-horizontal: right;
    }
    Dialog .buttons Button {
        margin-left: 2;
    }
    """

    def action_close(self) -> None:
        self.dismiss(None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # A screen's worker messages do not bubble to the app, so its unexpected errors are told here.
        error = event.worker.error
        if event.state == WorkerState.ERROR and error is not None:
            notify_problem(self.app, error)
            self.worker_failed(describe(error))

    def worker_failed(self, problem: Problem) -> None:
        """Put the dialog back in a state the player can act on after its background task broke."""
