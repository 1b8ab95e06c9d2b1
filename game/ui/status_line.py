"""The line across the top: save, turn, narrator, the story's clock, and a spinner while work runs.

The left part (which game, which turn) is never cut; the right part (the hour, or what is running) gets
what room is left and is shortened with an ellipsis, so the line fits at every width."""

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
    hour: reactive[str] = reactive("")
    """The world's words for the hour by the story clock ("" when the world keeps no time)."""
    memory: reactive[str] = reactive("")
    """How the last turn's memory was read when it was not a full reading ("fast path"); empty otherwise."""
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
        if self.memory:
            left.append(f" · memory: {self.memory}", style="italic")
        if self.map_turn is not None:
            left.append(f" · map at turn {self.map_turn}", style="italic")
        if self.activity:
            right = Text(f"{SPINNER[self._frame]} {self.activity}", style="bold")
        else:
            right = Text(self.hour, style="italic")
        room = self.size.width - left.cell_len - 2
        if right.cell_len > room:
            right.truncate(max(0, room), overflow="ellipsis")
        gap = max(1, self.size.width - left.cell_len - right.cell_len)
        return left + Text(" " * gap) + right
