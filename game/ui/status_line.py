"""The line across the top: save, turn, narrator, and a spinner while the memory update runs."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class StatusLine(Widget):
    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    """

    save_name: reactive[str] = reactive("no game open")
    turn: reactive[int | None] = reactive(None)
    narrator: reactive[str] = reactive("")
    activity: reactive[str] = reactive("")
    """What is running now ("telling the turn", "updating memory"); empty when idle."""
    map_turn: reactive[int | None] = reactive(None)
    """The turn the map shows when travelling back in time."""
    _frame: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer: Timer | None = None

    def watch_activity(self, activity: str) -> None:
        if activity and self._timer is None:
            self._timer = self.set_interval(0.1, self._spin)
        elif not activity and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _spin(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)

    def render(self) -> Text:
        left = Text()
        left.append("Kith", style="bold")
        left.append(f" · {self.save_name}")
        if self.turn is not None:
            left.append(f" · turn {self.turn}")
        if self.narrator:
            left.append(f" · {self.narrator}")
        if self.map_turn is not None:
            left.append(f" · map at turn {self.map_turn}", style="italic")
        right = Text(f"{SPINNER[self._frame]} {self.activity}" if self.activity else "", style="bold")
        gap = max(1, self.size.width - left.cell_len - right.cell_len)
        return left + Text(" " * gap) + right
