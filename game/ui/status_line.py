"""The line across the top: save, turn, narrator, the last turn's tokens and the context it filled, the
story's clock, and a spinner while work runs.

The left part (which game, which turn) is never cut; the right part (the hour, or what is running) gets
what room is left, so the line fits at every width: the hour is cut at the end of a clause when one fits
("It is early afternoon, grey and cold"), else after a whole word with an ellipsis, never mid-word."""

from __future__ import annotations

import re
from collections.abc import Mapping

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from game.text import strip_control

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
STEPS = (("narrate", "narrate"), ("world-ir", "IR"), ("extract", "extract"))
"""A model turn's steps as the status line names them, in the order they run."""


def short_count(value: int) -> str:
    """1234 as ``1.2k``: the line has little room, and the exact figure is in the save."""
    return str(value) if value < 1000 else f"{value / 1000:.1f}k"


def token_summary(usage: Mapping[str, int], context_size: int) -> str:
    """The last turn's tokens by step, prompt+completion, and how full the narration prompt made the
    context (``narrate 1.2k+310 · IR 900+120 · extract 800+60 · ctx 15% of 8.2k``); "" when none were
    counted (the offline narrator). The fill is a narration request's prompt against ``context_size``."""
    parts = []
    for step, label in STEPS:
        prompt, completion = usage.get(f"{step}.prompt_tokens", 0), usage.get(f"{step}.completion_tokens", 0)
        if prompt or completion:
            parts.append(f"{label} {short_count(prompt)}+{short_count(completion)}")
    if not parts:
        return ""
    calls = usage.get("narrate.calls", 0)
    if calls and context_size > 0:
        fill = usage.get("narrate.prompt_tokens", 0) / calls / context_size
        parts.append(f"ctx {round(fill * 100)}% of {short_count(context_size)}")
    return " · ".join(parts)


def fit_words(text: str, room: int) -> str:
    """``text`` in ``room`` cells: whole, else up to the last clause that fits, else whole words and "…"."""
    if cell_len(text) <= room:
        return text
    clauses = [m.start() for m in re.finditer(r"[.,;:!?](?=\s)", text) if cell_len(text[:m.start()]) <= room]
    if clauses:
        return text[:clauses[-1]]
    words = [m.start() for m in re.finditer(r"\s+", text) if cell_len(text[:m.start()]) + 1 <= room]
    return text[:words[-1]].rstrip(" ,;:") + "…" if words else ""


class StatusLine(Widget):
    # Notices hang from the status line, top right, instead of Textual's bottom right: at 80x24 a notice
    # there covered the input line (issue 27). Unscoped so the rule reaches the screen's toast rack.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    Screen > ToastRack {
        dock: top;
        align: right top;
        margin-top: 1;
        margin-bottom: 0;
    }
    """

    save_name: reactive[str] = reactive("no game open")
    turn: reactive[int | None] = reactive(None)
    narrator: reactive[str] = reactive("")
    activity: reactive[str] = reactive("")
    """What is running now ("telling the turn", "updating relations"); empty when idle."""
    hour: reactive[str] = reactive("")
    """The world's words for the hour by the story clock ("" when the world keeps no time)."""
    relations: reactive[str] = reactive("")
    """How the last turn's relations were read when it was not a full reading ("fast path"); empty otherwise."""
    enriching: reactive[int] = reactive(0)
    """How many earlier turns the model is reading again in the background (0: none); said instead of
    ``relations`` while it lasts."""
    tokens: reactive[str] = reactive("")
    """The last turn's token figures (``token_summary``); "" offline."""
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
        left.append(f" · {strip_control(self.save_name)}")
        if self.turn is not None:
            left.append(f" · turn {self.turn}")
        if self.narrator:
            left.append(f" · {strip_control(self.narrator)}")  # a model's name, as kith.toml or a server wrote it
        if self.enriching:
            turns = f"{self.enriching} earlier turn" + ("" if self.enriching == 1 else "s")
            left.append(f" · relations: reading {turns} with the model", style="italic")
        elif self.relations:
            left.append(f" · relations: {self.relations}", style="italic")
        if self.map_turn is not None:
            left.append(f" · map at turn {self.map_turn}", style="italic")
        room = self.size.width - left.cell_len - 2
        if self.activity:
            right = Text(f"{SPINNER[self._frame]} {self.activity}", style="bold")
        else:
            right = Text(self.tokens)
            if self.tokens and self.hour:
                right.append("  ")
            right.append(fit_words(strip_control(self.hour), room - right.cell_len), style="italic")
        if right.cell_len > room:
            right.truncate(max(0, room), overflow="ellipsis")
        gap = max(1, self.size.width - left.cell_len - right.cell_len)
        return left + Text(" " * gap) + right
