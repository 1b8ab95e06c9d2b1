"""Load: every save with its world, turns and when it was last played; delete with confirmation."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Static

from game.errors import KithError
from game.registry import default_registry
from game.store.saves import SaveInfo, delete_save, list_saves
from game.ui.errors import Problem
from game.ui.plain import plain
from game.ui.screens.confirm import ConfirmScreen
from game.ui.screens.dialog import Dialog

COLUMNS = ("Save", "World", "Turns", "Last played")


def when(stamp: str | None) -> str:
    """``2026-11-29T13:05:12...`` as ``2026-11-29 13:05``."""
    if not stamp:
        return "—"
    return stamp.replace("T", " ")[:16]


class LoadScreen(Dialog[str]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("delete,d", "delete", "Delete save"),
    ]

    DEFAULT_CSS = """
    LoadScreen > .dialog {
        width: 96;
    }
    LoadScreen DataTable {
        height: auto;
        max-height: 16;
    }
    """

    def __init__(self, saves_dir: Path, current: str | None = None) -> None:
        super().__init__()
        self.saves_dir = saves_dir
        self.current = current
        self.saves: list[SaveInfo] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Load a game", classes="title", markup=False)
            table: DataTable[str] = DataTable(cursor_type="row", zebra_stripes=True, id="saves")
            yield table
            yield Static("", id="problem", classes="error", markup=False)
            yield Static("Enter loads · d deletes · Esc closes", classes="hint", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Delete", id="delete", variant="error")
                yield Button("Cancel", id="cancel")
                yield Button("Load", id="load", variant="primary")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        table.focus()
        self.refresh_saves()

    @work(exclusive=True, exit_on_error=False)
    async def refresh_saves(self) -> None:
        self.saves = await asyncio.to_thread(list_saves, self.saves_dir, default_registry().schema())
        rows = [self._row(info) for info in self.saves]
        table = self.query_one(DataTable)
        # Each column is given its width with the rows, in the same refresh: a table left to size its
        # columns to the rows does so on a later layout, and drew its header at the labels' widths first.
        table.clear(columns=True)
        for index, label in enumerate(COLUMNS):
            table.add_column(label, width=max([len(label), *(row[index].cell_len for row in rows)]))
        for info, row in zip(self.saves, rows, strict=True):
            table.add_row(*row, key=info.name)
        if not self.saves:
            self._problem(f"There are no saves in {self.saves_dir} yet.")

    def _row(self, info: SaveInfo) -> tuple[Text, Text, Text, Text]:
        """A save's cells; a file put in the folder by hand may have any name, and its error quotes what
        it read, so both are shown as plain text."""
        if info.error:
            return plain(info.name), plain("unreadable"), plain("—"), plain(info.error[:40])
        marker = " (playing)" if info.name == self.current else ""
        return (plain(info.name + marker), plain(info.world or "?"), plain(str(info.turns)),
                plain(when(info.last_played)))

    def worker_failed(self, problem: Problem) -> None:
        self._problem(problem.message)

    def _problem(self, text: str) -> None:
        self.query_one("#problem", Static).update(plain(text))

    def _chosen(self) -> SaveInfo | None:
        table = self.query_one(DataTable)
        if not self.saves or table.cursor_row < 0 or table.cursor_row >= len(self.saves):
            return None
        return self.saves[table.cursor_row]

    @on(DataTable.RowSelected)
    @on(Button.Pressed, "#load")
    def _load(self) -> None:
        info = self._chosen()
        if info is None:
            return
        if info.error:
            self._problem(f"{info.name} cannot be loaded: {info.error}")
            return
        self.dismiss(info.name)

    @on(Button.Pressed, "#delete")
    def action_delete(self) -> None:
        info = self._chosen()
        if info is None:
            return
        if info.name == self.current:
            self._problem(f"{info.name} is the game you are playing; load another game before deleting it.")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._delete(info.name)

        self.app.push_screen(ConfirmScreen(f"Delete the save {info.name!r} for good? This cannot be undone.",
                                           "Delete", danger=True), confirmed)

    @work(exclusive=True, exit_on_error=False)
    async def _delete(self, name: str) -> None:
        try:
            await asyncio.to_thread(delete_save, name, self.saves_dir, default_registry().schema())
        except KithError as error:
            self._problem(error.message)
            return
        self.app.notify(f"Deleted {name}.", title="Saves")
        self._problem("")
        self.refresh_saves()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
