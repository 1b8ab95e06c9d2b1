"""The input line: Enter submits, Up/Down walk the command history, a leading '"' is speech.

Input modes, as players of AI story games know them (Ctrl+T cycles, the placeholder says which):
**Do** sends the line as it is typed; **Say** speaks it (a leading '"'); **Story** adds it to the story as
written (``/story``), told by nobody. Meta commands are sent as typed in every mode. On an empty line
Left and Right flip between the last turn's tellings; with text they move the cursor.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input

from game.text import strip_control

PLACEHOLDER = 'What do you do?  (" to speak · F1 help)'
MODES = ("do", "say", "story")
"""The engine's ``INPUT_MODES`` (``game.engine.meta.read_line`` reads a line in its mode), named again here
so the input line loads without the engine before the first frame."""
PLACEHOLDERS = {
    "do": PLACEHOLDER,
    "say": "Say: what do you say aloud?  (Ctrl+T mode · F1 help)",
    "story": "Story: write what happens, as it will read  (Ctrl+T mode · F1 help)",
}
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
        Binding("ctrl+t", "next_mode", "Input mode", show=False),
        # Input's own, named here because they do more on an empty line: flip the last turn's tellings.
        Binding("left", "cursor_left", "Previous telling", show=False),
        Binding("right", "cursor_right", "Next telling", show=False),
    ]

    mode: reactive[str] = reactive("do")
    """The input mode: ``do``, ``say`` or ``story``."""

    class FlipTelling(Message):
        """Left or Right on an empty line: flip the last turn to its previous or next telling."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder=PLACEHOLDER, id=id)
        self.history: list[str] = []
        self._position: int | None = None
        self._draft = ""

    def type_ahead(self, text: str) -> None:
        """Take the focus with ``text`` typed at the end of the line (a letter typed on the map): the
        focus must not select what is there, or the next letter would replace it."""
        self.value += text
        self.cursor_position = len(self.value)
        self.select_on_focus = False  # until the line is left again (``on_blur``)
        self.focus()

    def on_blur(self, event: events.Blur) -> None:
        self.select_on_focus = True

    def remember(self, command: str) -> None:
        """Add a submitted command (not repeating the one just before it)."""
        if command and (not self.history or self.history[-1] != command):
            self.history.append(command)
            del self.history[:-HISTORY_LIMIT]
        self._position = None

    def action_next_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]

    def watch_mode(self, mode: str) -> None:
        self.placeholder = PLACEHOLDERS[mode]
        self.set_class(mode == "say" or self.value.startswith('"'), "-speech")

    def action_cursor_left(self, select: bool = False) -> None:
        if not self.value and not select:
            self.post_message(self.FlipTelling(-1))
            return
        super().action_cursor_left(select)

    def action_cursor_right(self, select: bool = False) -> None:
        if not self.value and not select:
            self.post_message(self.FlipTelling(1))
            return
        super().action_cursor_right(select)

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

    def validate_value(self, value: str) -> str:
        """A pasted line, or a failed one put back, is shown without escape sequences (``game.ui.plain``)."""
        return strip_control(value)

    def watch_value(self, value: str) -> None:
        self.set_class(value.startswith('"') or self.mode == "say", "-speech")
