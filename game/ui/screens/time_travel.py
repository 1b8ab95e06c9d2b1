"""Time travel: pick a turn and the map shows the graph as it stood then (the story is untouched)."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from game.ui.plain import plain
from game.ui.screens.dialog import Dialog


@dataclass(frozen=True)
class TurnChoice:
    turn: int | None
    """None means "now"."""


class TimeTravelScreen(Dialog[TurnChoice]):
    DEFAULT_CSS = """
    TimeTravelScreen OptionList {
        height: auto;
        max-height: 20;
    }
    """

    def __init__(self, turns: list[tuple[int, str]], current: int) -> None:
        super().__init__()
        self.turns = turns
        self.current = current

    def compose(self) -> ComposeResult:
        options = [Option(f"Now (turn {self.current})", id="now")]
        for number, text in sorted(self.turns, reverse=True):
            if number == self.current:
                continue
            label = "the beginning" if number == 0 else text
            options.append(Option(plain(f"Turn {number}: {label}"[:80]), id=f"turn-{number}"))
        with Vertical(classes="dialog"):
            yield Static("Show the map as it stood after…", classes="title", markup=False)
            yield OptionList(*options, id="turns", markup=False)  # a turn is what the player typed
            yield Static("The story and the save are not changed; choose Now to come back.", classes="hint",
                         markup=False)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or "now"
        self.dismiss(TurnChoice(None if option_id == "now" else int(option_id.removeprefix("turn-"))))
