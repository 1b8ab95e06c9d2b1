"""``KithApp``: the full-screen game. It sends the player's lines to a ``GameSession`` and renders the
events that come back; it decides nothing about the story.

The app lays out the screen, holds the key bindings and the command palette, and composes the parts that
each own one thing: ``Games`` (the open game; opening, saving, loading), ``Turns`` (the line being told
and its worker, which posts the engine's events as messages for ``StoryEventHandlers`` to show),
``MapControl`` (the map's glue), ``SettingsFlow`` (settings, the API key, swapping the narrator) and
``game.ui.telling`` (retry, continue, tellings, edits, notes). The parts reach the app only through ``game.ui.host.Host``. Widgets are touched
only from the event loop: slow synchronous work (map layout, listing saves) runs in a thread through
``asyncio.to_thread`` and its result is applied back on the loop.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from game.errors import KithError
from game.text import strip_control
from game.ui.command_input import CommandInput
from game.ui.games import Games, OpenRequest
from game.ui.host import RECOVER_HINT
from game.ui.keys import KeyStore
from game.ui.map_control import MapControl
from game.ui.map_pane import MapPane
from game.ui.settings_flow import SettingsFlow
from game.ui.status_line import StatusLine
from game.ui.story_events import StoryEventHandlers
from game.ui.story_log import StoryLog
from game.ui.turns import Turns

if TYPE_CHECKING:
    from game.config import Settings
    from game.engine.meta import PlayerLine
    from game.engine.session import GameSession
    from game.narrator.base import Narrator

__all__ = ["KithApp", "OpenRequest", "run_app"]


class KithApp(StoryEventHandlers, App[int]):
    """Story on the left, relationship map on the right, status above, keys below. The engine's events
    reach it as Textual messages, shown by ``StoryEventHandlers``' ``on_...`` handlers."""

    TITLE = "Kith"

    # The status line, the key bar and the map are split off the screen's edges and the story pane takes
    # what is left: no row container between them, whose styling, layout and render the first frame would
    # wait for (issue 15). The key bar is mounted before the map so that it, not the map, runs full width.
    CSS = """
    StatusLine {
        split: top;
    }
    Footer {
        split: bottom;
    }
    MapPane {
        split: right;
    }
    #story-pane {
        width: 1fr;
        border: round $primary;
        border-title-color: $text;
    }
    #story-pane:focus-within {
        border: round $accent;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("ctrl+z", "undo", "Undo"),
        Binding("ctrl+s", "save_as", "Save as"),
        Binding("ctrl+o", "load", "Load"),
        Binding("ctrl+n", "new_game", "New game", show=False),
        Binding("f1", "help", "Help"),
        Binding("f2", "toggle_map", "Map"),
        Binding("f3", "resize_map(-1)", "Narrower map", show=False),
        Binding("f4", "resize_map(1)", "Wider map", show=False),
        Binding("f5", "settings", "Settings", show=False),
        Binding("ctrl+r", "retry", "Retry", show=False),
        Binding("ctrl+g", "continue_turn", "Continue", show=False),
        Binding("f6", "notes", "Memory", show=False),
        Binding("f7", "edit_turn", "Edit turn", show=False),
    ]

    def __init__(self, settings: Settings | Callable[[], Settings], save: str | None = None, new: bool = False,
                 world: str | None = None, narrator: Narrator | None = None, *, key_store: KeyStore | None = None,
                 environment: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.preferences = SettingsFlow(self, settings, key_store or KeyStore(),
                                        os.environ if environment is None else environment,
                                        reopen=lambda: self.open_game(self.games.pending))
        self.map_control = MapControl(self)
        self.turns = Turns(self, self.map_control.travel)
        self.games = Games(self, self.preferences, self.map_control, self.turns.idle,
                           OpenRequest(save, new, world, narrator))

    # ------------------------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Vertical(id="story-pane"):
            yield StoryLog(id="log")
            yield CommandInput(id="command")
        yield MapPane(id="map-pane")

    def on_mount(self) -> None:
        self.query_one("#story-pane").border_title = "Story"
        self.command.focus()
        if self.preferences.validated:
            self.preferences.remembered_key()
        # After the first frame: the player sees the screen at once; the key bar, the map's contents, then
        # the game come into it (issue 15). Map keys pressed meanwhile do nothing (``map_pane.filled``).
        self.call_after_refresh(self._after_first_frame)

    async def _after_first_frame(self) -> None:
        from game.ui import terminal_watch

        terminal_watch.leave_with_the_terminal(self)
        # The key bar follows the first frame too: its keys work from the start, and while the story pane
        # is still empty the line it takes back from it moves nothing the player can see.
        from textual.widgets import Footer

        panes = self.query(MapPane)
        await self.mount(Footer(), before=panes.first() if panes else None)
        if not panes or not await panes.first().fill():
            return  # the app is closing already (it may exit in its first frame)
        self.map_control.watch_history()
        self.open_game(self.games.pending)

    # ------------------------------------------------------------------------------------ what the parts share

    @property
    def settings(self) -> Settings:
        """The validated settings; validated now if the game has not opened yet (a key pressed at once)."""
        return self.preferences.settings

    @property
    def session(self) -> GameSession | None:
        return self.games.session

    @property
    def log_view(self) -> StoryLog:
        return self.query_one(StoryLog)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def map_pane(self) -> MapPane:
        return self.query_one(MapPane)

    @property
    def command(self) -> CommandInput:
        return self.query_one(CommandInput)

    @property
    def turn_running(self) -> bool:
        return self.turns.running

    @property
    def turn_worker(self) -> Worker[None] | None:
        return self.turns.worker

    def open_game(self, request: OpenRequest) -> None:
        self.games.open(request)

    def submit(self, line: str | PlayerLine) -> bool:
        """Start a turn (or meta command) unless one is running; False when it was not started."""
        return self.turns.submit(line)

    def show_status(self) -> None:
        self.games.show_status()

    async def refresh_map(self) -> None:
        await self.map_control.refresh()

    def needs_game(self) -> GameSession | None:
        if self.session is None:
            self.notify("No game is open. " + RECOVER_HINT, title="No game", severity="warning")
        return self.session

    # ------------------------------------------------------------------------------------ errors

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Plain text whoever asks (widgets ask for markup by default): Kith writes none (``game.ui.plain``)."""
        super().notify(strip_control(message), title=strip_control(title), severity=severity, timeout=timeout,
                       markup=False)

    def report(self, error: BaseException, *, modal: bool = False) -> None:
        """Show an error the way the player can act on it: a notification, or a modal when it blocks play."""
        from game.ui.errors import describe, notify_problem  # loaded with the first problem, if any

        if modal:
            from game.ui.screens.problem import ProblemScreen

            problem = describe(error)
            if not isinstance(error, KithError):
                self.log.error(f"unexpected {type(error).__name__}: {error!r}")
            self.push_screen(ProblemScreen(problem.title, problem.message, RECOVER_HINT))
        else:
            notify_problem(self, error)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.turns.worker:
            self.refresh_bindings()
        # Workers run with exit_on_error=False so a bug ends one task, not the game; this is where such a
        # bug is told (screens that own workers do the same in Dialog).
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            if event.worker.group == "session":
                self.status.activity = ""
                self.show_status()
            self.report(event.worker.error)

    # ------------------------------------------------------------------------------------ input and keys

    @on(CommandInput.Submitted, "#command")
    def _submitted(self, event: CommandInput.Submitted) -> None:
        # Only the command line: Enter in a dialog's field (Save as) bubbles up here as the same message.
        text = event.value.strip()
        if not text:
            return
        from game.engine.meta import read_line  # loaded with the first line, not before the first frame

        command = self.command
        if self.submit(read_line(text, command.mode)):
            command.remember(text)
            command.value = ""

    def action_cancel_turn(self) -> None:
        if self.turn_running:
            self.workers.cancel_group(self, "turn")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_turn":
            return True if self.turn_running else None
        return True

    def action_undo(self) -> None:
        if self.needs_game():
            self.submit("undo")

    # Telling the last turn again and steering the model (game/ui/telling.py).
    def action_retry(self) -> None:
        from game.ui import telling

        telling.retry(self)

    def action_continue_turn(self) -> None:
        from game.ui import telling

        telling.continue_turn(self)

    def action_notes(self) -> None:
        from game.ui import telling

        telling.edit_notes(self)

    def action_edit_turn(self) -> None:
        from game.ui import telling

        telling.edit_turn(self)

    @on(CommandInput.FlipTelling)
    def _flip_telling(self, event: CommandInput.FlipTelling) -> None:
        from game.ui import telling

        telling.flip(self, event.step)

    def action_save_as(self) -> None:
        self.games.save_as()

    def action_load(self) -> None:
        self.games.load()

    def action_new_game(self) -> None:
        self.games.new_game()

    def action_settings(self) -> None:
        if self.turns.idle():
            self.preferences.open_screen()

    def action_help(self) -> None:
        from game.ui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def on_resize(self, event: events.Resize) -> None:
        self.map_control.resized(event.size.width)

    def action_toggle_map(self) -> None:
        self.map_control.toggle()

    def action_resize_map(self, direction: int) -> None:
        self.map_control.resize(direction, self.size.width)

    def action_toggle_closed(self) -> None:
        self.map_control.toggle_closed()

    def action_focus_character(self) -> None:
        from game.ui.palette import focus_character

        focus_character(self, self.map_pane)

    def action_time_travel(self) -> None:
        session = self.needs_game()
        if session is not None:
            self.map_control.choose_turn(session)

    def on_relationship_map_leave(self) -> None:  # RelationshipMap.Leave, by name: that module loads later
        self.command.focus()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield SystemCommand("New game", "Start a new game in a world of your choice", self.action_new_game)
        yield SystemCommand("Load game", "Open another save", self.action_load)
        yield SystemCommand("Save as", "Keep this moment under a new name", self.action_save_as)
        yield SystemCommand("Undo", "Take back the last turn", self.action_undo)
        yield SystemCommand("Toggle map", "Show or hide the relationship map", self.action_toggle_map)
        yield SystemCommand("Show closed relations", "Show or hide ended relations on the map (dashed)",
                            self.action_toggle_closed)
        yield SystemCommand("Focus a character", "Select someone on the map and read their details",
                            self.action_focus_character)
        yield SystemCommand("Time travel", "Show the map as it stood at an earlier turn", self.action_time_travel)
        yield SystemCommand("Settings", "Narrator, endpoint, model and API key", self.action_settings)
        yield SystemCommand("Help", "Commands and keys", self.action_help)
        yield SystemCommand("Screenshot", "Save an SVG picture of the screen in the saves folder",
                            lambda: self.set_timer(0.1, self.action_screenshot))
        # Textual's own Screenshot writes to ~/Downloads and fails when that folder does not exist.
        yield from (command for command in super().get_system_commands(screen) if command.title != "Screenshot")

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """Save the screen as SVG in the saves folder (made if missing) and say where, or say why not."""
        folder = Path(path) if path else self.settings.saves_dir
        try:
            folder.mkdir(parents=True, exist_ok=True)
            saved = self.save_screenshot(filename, str(folder))
        except OSError as error:
            self.notify(f"Could not save a screenshot in {folder}: {error.strerror or error}.",
                        title="Screenshot", severity="error")
            return
        self.notify(f"Saved a screenshot to {saved}", title="Screenshot")

    # ------------------------------------------------------------------------------------ leaving

    def action_confirm_quit(self) -> None:
        self.turns.confirm_quit()

    async def action_quit(self) -> None:
        self.exit(0)

    async def on_unmount(self) -> None:
        self.workers.cancel_group(self, "turn")
        await self.games.close()


def run_app(settings: Settings | Callable[[], Settings], save: str | None = None, new: bool = False, world: str | None = None,
            narrator: Narrator | None = None) -> int:
    """Play full-screen until the player leaves; the exit code for ``kith play``."""
    app = KithApp(settings, save, new, world, narrator)
    code = app.run()
    return code if isinstance(code, int) else app.return_code or 0
