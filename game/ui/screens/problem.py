"""A problem the player has to read before going on (a save that will not open, a broken world)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from game.ui.plain import plain
from game.ui.screens.dialog import Dialog


class ProblemScreen(Dialog[None]):
    DEFAULT_CSS = """
    ProblemScreen > .dialog {
        border: thick $error 80%;
    }
    """

    def __init__(self, title: str, message: str, hint: str = "") -> None:
        super().__init__()
        self.problem_title = title
        self.message = message
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(self.problem_title), markup=False, classes="title")
            yield Static(plain(self.message), markup=False, id="message")
            if self.hint:
                yield Static(plain(self.hint), markup=False, classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("OK", id="ok", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self.dismiss(None)
