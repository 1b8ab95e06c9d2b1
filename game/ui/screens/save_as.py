"""Save as: keep a copy of this moment under a new name (the game goes on in the current save)."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from game.errors import KithError
from game.store.saves import resolve_save, validate_save_name
from game.ui.plain import plain
from game.ui.screens.confirm import ConfirmScreen
from game.ui.screens.dialog import Dialog


class SaveAsScreen(Dialog[str]):
    def __init__(self, saves_dir: Path, current: str, turn: int) -> None:
        super().__init__()
        self.saves_dir = saves_dir
        self.current = current
        self.turn = turn

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Save as", classes="title", markup=False)
            yield Static(f"Keeps turn {self.turn} of {self.current} under a new name. Load it later to come "
                         "back to this moment; your game goes on as it is.", classes="hint", markup=False)
            yield Label("Name", markup=False)
            yield Input(f"{self.current}-turn-{self.turn}"[:64], placeholder="letters, digits, - and _", id="name")
            yield Static("", id="problem", classes="error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    @on(Input.Submitted, "#name")
    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        try:
            path = resolve_save(validate_save_name(name), self.saves_dir)
        except KithError as error:
            self.query_one("#problem", Static).update(plain(error.message))
            return
        if name == self.current:
            self.query_one("#problem", Static).update(
                f"{name} is the game you are playing; it is saved after every turn already.")
            return
        if path.exists():
            def overwrite(yes: bool | None) -> None:
                if yes:
                    self.dismiss(name)

            self.app.push_screen(ConfirmScreen(f"A save named {name!r} exists. Replace it with this moment?",
                                               "Replace", danger=True), overwrite)
            return
        self.dismiss(name)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
