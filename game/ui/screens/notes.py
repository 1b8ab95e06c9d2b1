"""Memory and Author's note: the player's standing words to a model narrator, edited in one place.

The screen only collects the text; the app sends it as ``/memory`` and ``/note`` so a change made here is
the same undoable change as one typed (``game.features.notes``)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static, TextArea

from game.errors import KithError
from game.features.notes.rules import MEMORY, NOTE, cleaned
from game.ui.plain import plain
from game.ui.screens.dialog import Dialog


class NotesScreen(Dialog[tuple[str, str]]):
    """Returns (memory, note) as edited, or None when cancelled."""

    DEFAULT_CSS = """
    NotesScreen #memory {
        height: 8;
    }
    """

    def __init__(self, memory: str, note: str) -> None:
        super().__init__()
        self.memory = memory
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Memory and Author's note", classes="title", markup=False)
            yield Label("Memory: what the narrator should always keep in mind", markup=False)
            yield TextArea(self.memory, id="memory", soft_wrap=True)
            yield Label("Author's note: a short style note (tone, pace), given near the end of the prompt",
                        markup=False)
            yield Input(self.note, placeholder="e.g. grim, terse, rain", id="note")
            yield Static("", id="notes-problem", classes="hint", markup=False)
            yield Static("Both are kept in the save; undo takes a change back. A model narrator reads them; "
                         "the offline story does not.", classes="hint", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#memory", TextArea).focus()

    @on(Input.Submitted, "#note")
    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        memory, note = self.query_one("#memory", TextArea).text, self.query_one("#note", Input).value
        # Checked here, while the words are on screen: refused after the screen closed, they would be lost.
        try:
            cleaned(MEMORY, memory)
            cleaned(NOTE, note)
        except KithError as error:
            self.query_one("#notes-problem", Static).update(plain(error.message))
            return
        self.dismiss((memory, note))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
