"""Help: the commands the story understands, and the keys of the screen."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from game.engine.meta import help_text
from game.ui.screens.dialog import Dialog

KEYS = """\
**Keys.**

| Key | What it does |
| --- | --- |
| Enter | Send what you typed |
| Up / Down | Earlier commands |
| Esc | Cancel the turn being told (nothing of it is saved) |
| Tab | Move between the story and the map; on the map, select the next name |
| Click a name | Select it on the map and read its details |
| + / - | Zoom the map in and out around the selected name |
| c | On the map: show or hide ended relations (dashed) |
| F2 | Show or hide the map |
| F3 / F4 | Narrower / wider map |
| F5 | Settings: narrator, endpoint, model, key |
| Ctrl+Z | Undo the last turn (an edit or a continuation first) |
| Ctrl+R | Retry: tell the last turn again (every telling is kept) |
| Left / Right | On an empty input line: the last turn's previous / next telling |
| Ctrl+G | Continue: the narrator writes on from where it stopped |
| F7 | Edit the last turn: what you typed and what the narrator said |
| F6 | Memory and Author's note: what a model narrator is always told |
| Ctrl+T | Input mode: Do, Say (spoken aloud), Story (your words, as written) |
| Ctrl+S | Save as |
| Ctrl+O | Load a game |
| Ctrl+N | New game |
| Ctrl+P | Command palette: time travel, focus a character, theme and more |
| Ctrl+Q | Quit (every finished turn is already saved) |
"""


class HelpScreen(Dialog[None]):
    DEFAULT_CSS = """
    HelpScreen > .dialog {
        width: 100;
        height: 90%;
    }
    HelpScreen VerticalScroll {
        height: 1fr;
    }
    """

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown

        with Vertical(classes="dialog"):
            yield Static("Help", classes="title", markup=False)
            with VerticalScroll():
                yield Markdown(help_text() + "\n" + KEYS, id="help-text")
            with Horizontal(classes="buttons"):
                yield Button("Close", id="close", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus()

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)
