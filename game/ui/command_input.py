"""The input line: Enter submits, Up/Down walk the command history, a leading '"' is speech."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input

PLACEHOLDER = 'What do you do?  (" to speak · F1 help)'
HISTORY_LIMIT = 200


class CommandInput(Input):
    DEFAULT_CSS = """
    CommandInput {
        dock: bottom;
        margin: 0 0;
    }
    CommandInput.-speech {
        color: $accent;
        text-style: italic;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history_previous", "Previous command", show=False),
        Binding("down", "history_next", "Next command", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder=PLACEHOLDER, id=id)
        self.history: list[str] = []
        self._position: int | None = None
        self._draft = ""

    def remember(self, command: str) -> None:
        """Add a submitted command (not repeating the one just before it)."""
        if command and (not self.history or self.history[-1] != command):
            self.history.append(command)
            del self.history[:-HISTORY_LIMIT]
        self._position = None

    def action_history_previous(self) -> None:
        if not self.history:
            return
        if self._position is None:
            self._draft = self.value
            self._position = len(self.history) - 1
        else:
            self._position = max(0, self._position - 1)
        self._show(self.history[self._position])

    def action_history_next(self) -> None:
        if self._position is None:
            return
        if self._position >= len(self.history) - 1:
            self._position = None
            self._show(self._draft)
            return
        self._position += 1
        self._show(self.history[self._position])

    def _show(self, text: str) -> None:
        self.value = text
        self.cursor_position = len(text)

    def watch_value(self, value: str) -> None:
        self.set_class(value.startswith('"'), "-speech")
