"""Yes or no, for anything that cannot be taken back (deleting a save, overwriting one, quitting)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from game.ui.plain import plain
from game.ui.screens.dialog import Dialog


class ConfirmScreen(Dialog[bool]):
    def __init__(self, question: str, yes: str = "Yes", no: str = "Cancel", *, danger: bool = False) -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(self.question), markup=False, classes="title")
            with Horizontal(classes="buttons"):
                yield Button(self.no, id="no")
                yield Button(self.yes, id="yes", variant="error" if self.danger else "primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        self.dismiss(False)

    def action_close(self) -> None:
        self.dismiss(False)
