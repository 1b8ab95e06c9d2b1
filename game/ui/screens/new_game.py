"""New game: which world, and what to call the save."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select, Static

from game.errors import KithError
from game.store.saves import resolve_save, validate_save_name
from game.ui.errors import Problem
from game.ui.plain import plain
from game.ui.screens.dialog import Dialog

if TYPE_CHECKING:
    from collections.abc import Callable

    from game.world import WorldInfo


@dataclass(frozen=True)
class NewGame:
    world: str
    save_name: str


class NewGameScreen(Dialog[NewGame]):
    def __init__(self, content_dir: Path, saves_dir: Path, suggested_name: str = "",
                 default_world: str | None = None, worlds_dir: Path | None = None) -> None:
        super().__init__()
        self.default_world = default_world
        self.content_dir = content_dir
        self.worlds_dir = worlds_dir
        """The player's own worlds, offered after the shipped ones (a shipped id hides one of theirs)."""
        self.saves_dir = saves_dir
        self.suggested_name = suggested_name
        self.worlds: list[WorldInfo] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("New game", classes="title", markup=False)
            yield Label("World", markup=False)
            yield Select[str]([], prompt="Loading worlds…", id="world", allow_blank=True)
            yield Static("", id="summary", classes="hint", markup=False)
            yield Label("Save name", markup=False)
            yield Input(self.suggested_name, placeholder="letters, digits, - and _", id="name")
            yield Static("", id="problem", classes="error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Start", id="start", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()
        self._load_worlds()

    @work(exclusive=True, exit_on_error=False)
    async def _load_worlds(self) -> None:
        from game.world import list_worlds

        self.worlds = await asyncio.to_thread(self._list_worlds, list_worlds)
        select = self.query_one("#world", Select)
        playable = [w for w in self.worlds if w.error is None]
        select.set_options([(plain(w.title), w.id) for w in playable])  # a player's own world may have any title
        if playable:
            ids = [w.id for w in playable]
            preferred = [world for world in (self.default_world, "brinefall") if world in ids]
            select.value = preferred[0] if preferred else ids[0]
        else:
            self._problem(f"No playable world in {self.content_dir}.")
        broken = [w for w in self.worlds if w.error]
        if broken:
            self.query_one("#summary", Static).update(
                plain("Not listed (broken): " + "; ".join(f"{w.id}: {w.error}" for w in broken)))

    def _list_worlds(self, list_worlds: Callable[[Path], list[WorldInfo]]) -> list[WorldInfo]:
        """Every world in the shipped folder, then the player's own whose id is not taken (``kith worlds``)."""
        found = list_worlds(self.content_dir)
        if self.worlds_dir is not None and self.worlds_dir != self.content_dir:
            taken = {w.id for w in found}
            found += [w for w in list_worlds(self.worlds_dir) if w.id not in taken]
        return found

    def worker_failed(self, problem: Problem) -> None:
        self.query_one("#world", Select).prompt = "No worlds"
        self._problem(f"The worlds could not be listed: {problem.message}")

    @on(Select.Changed, "#world")
    def _world_chosen(self, event: Select.Changed) -> None:
        info = next((w for w in self.worlds if w.id == event.value), None)
        if info is not None:
            self.query_one("#summary", Static).update(plain(info.summary))

    def _problem(self, text: str) -> None:
        self.query_one("#problem", Static).update(plain(text))

    @on(Input.Submitted, "#name")
    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        world = self.query_one("#world", Select).value
        name = self.query_one("#name", Input).value.strip()
        if not isinstance(world, str):
            self._problem("Choose a world first.")
            return
        try:
            path = resolve_save(validate_save_name(name), self.saves_dir)
        except KithError as error:
            self._problem(error.message)
            return
        if path.exists():
            self._problem(f"A save named {name!r} already exists. Choose another name, or load it instead.")
            return
        self.dismiss(NewGame(world, name))

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
