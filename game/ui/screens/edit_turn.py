"""Edit the last turn: what the player typed and what the narrator said, replaced as written.

The screen only collects the text; the app sends ``/edit-input`` and ``/edit`` so the turn is re-extracted
and the change is undoable like one typed (``game.features.tellings``)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static, TextArea

from game.errors import KithError
from game.features.tellings.rules import edit_text
from game.ui.plain import plain
from game.ui.screens.dialog import Dialog


class EditTurnScreen(Dialog[tuple[str, str]]):
    """Returns (input, narration) as edited, or None when cancelled."""

    DEFAULT_CSS = """
    EditTurnScreen #narration {
        height: 12;
    }
    """

    def __init__(self, turn: int, player_input: str, narration: str) -> None:
        super().__init__()
        self.turn = turn
        self.player_input = player_input
        self.narration = narration

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"Edit turn {self.turn}", classes="title", markup=False)
            yield Label("What you typed", markup=False)
            yield Input(self.player_input, id="input")
            yield Label("What the narrator said", markup=False)
            yield TextArea(self.narration, id="narration", soft_wrap=True)
            yield Static("", id="edit-problem", classes="hint", markup=False)
            yield Static("The relations are read again from the edited turn; undo takes the edit back.", classes="hint",
                         markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#narration", TextArea).focus()

    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        player_input, narration = self.query_one("#input", Input).value, self.query_one("#narration", TextArea).text
        # Checked here, while the words are on screen: refused after the screen closed, they would be lost.
        # An empty field is left as it was (the app sends nothing for it), so only a non-empty one is checked.
        try:
            for text in (player_input, narration):
                if text.strip():
                    edit_text(text)
        except KithError as error:
            self.query_one("#edit-problem", Static).update(plain(error.message))
            return
        self.dismiss((player_input, narration))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
