"""``KithApp``: the full-screen game. It sends the player's lines to a ``GameSession`` and renders the
events that come back; it decides nothing about the story.

Each line runs in one async worker (``run_turn``, exclusive, ``exit_on_error=False``), so typing never
waits for the model, the database or the map layout, Esc cancels the worker (and the engine then writes
nothing of the turn), and an error becomes a message instead of the end of the game. Widgets are only
touched from the event loop: slow synchronous work (map layout, listing saves) runs in a thread through
``asyncio.to_thread`` and its result is applied back on the loop.

It is one piece (over 600 lines) on purpose: it is the only owner of the open session and of the
workers that use it, so the rule "one turn at a time, widgets only from the loop" is kept in one class;
widgets, screens and the map renderer live in their own modules.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, cast

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from game.errors import ConfigError, KithError
from game.text import strip_control
from game.ui.command_input import CommandInput, in_mode
from game.ui.keys import KeyStore, environment_with_key
from game.ui.map_pane import FOLD_BELOW, WIDTH_STEP, MapPane
from game.ui.status_line import StatusLine
from game.ui.story_log import StoryLog

if TYPE_CHECKING:
    from textual.widgets.markdown import MarkdownStream

    from game.config import Settings
    from game.engine.enrich import Reading
    from game.engine.events import ConfirmRequested, Event, TurnReplaced
    from game.engine.session import GameSession
    from game.graph.map import Position
    from game.narrator.base import Narrator
    from game.ui.screens.new_game import NewGame
    from game.ui.screens.settings import SettingsChoice
    from game.ui.screens.time_travel import TurnChoice

RECOVER_HINT = "Ctrl+N starts a new game, Ctrl+O loads another, F5 opens the settings."


class OpenRequest(NamedTuple):
    save: str | None = None
    new: bool = False
    world: str | None = None
    narrator: Narrator | None = None


class KithApp(App[int]):
    """Story on the left, relationship map on the right, status above, keys below."""

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
        # Settings may come as a function that validates them: called after the first frame (in a thread,
        # as the game opens), so pydantic does not delay the screen (issue 15).
        self._settings: Settings | None = None if callable(settings) else settings
        self._load_settings: Callable[[], Settings] | None = settings if callable(settings) else None
        self.session: GameSession | None = None
        self.key_store = key_store or KeyStore()
        self.environment: dict[str, str] = dict(os.environ if environment is None else environment)
        """Where narrators read their API key: the environment Kith started in, plus a key the player typed
        or remembered. Kept here rather than written into ``os.environ``, which every library and child
        process would read."""
        self._pending = OpenRequest(save, new, world, narrator)
        self._turn_worker: Worker[None] | None = None
        self._positions: dict[str, Position] = {}
        self._stream: MarkdownStream | None = None
        self._told: list[Widget] = []
        """This turn's narration blocks, taken back if the turn ends without being saved."""
        self._outcome = _Outcome()
        self._history_drawn = False
        """Whether the map holds every edge version (from the save) rather than the open ones (memory)."""
        self._folded = False
        """Whether the map was folded away because the terminal is too narrow (not hidden by the player)."""

    # ------------------------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Vertical(id="story-pane"):
            yield StoryLog(id="log")
            yield CommandInput(id="command")
        yield MapPane(id="map-pane")

    def on_mount(self) -> None:
        self.query_one("#story-pane").border_title = "Story"
        self.query_one(CommandInput).focus()
        if self._settings is not None:
            self._remembered_key()
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
        graph = self.map_pane.map
        for attribute in ("show_closed", "at_turn", "selected"):
            self.watch(graph, attribute, self._history_wanted, init=False)
        self.open_game(self._pending)

    @property
    def settings(self) -> Settings:
        """The validated settings; validated now if the game has not opened yet (a key pressed at once)."""
        if self._settings is None:
            assert self._load_settings is not None
            self._settings = self._load_settings()
            self._remembered_key()
        return self._settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self._settings = settings

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
    def turn_running(self) -> bool:
        return self._turn_worker is not None and not self._turn_worker.is_finished

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

    # ------------------------------------------------------------------------------------ opening games

    def _remembered_key(self) -> None:
        """A key the player asked Kith to remember stands in for an unset environment variable."""
        variable = self.settings.llm.api_key_env
        if not self.environment.get(variable):
            try:
                key = self.key_store.load(variable)
            except KithError as error:
                self.report(error)
                return
            self.environment = environment_with_key(self.environment, variable, key)

    @work(exclusive=True, group="session", exit_on_error=False)
    async def open_game(self, request: OpenRequest) -> None:
        self._pending = request
        self.status.activity = "opening the game"
        try:
            if self._settings is None and self._load_settings is not None:
                self._settings = await asyncio.to_thread(self._load_settings)
                self._remembered_key()
            # The engine, store, world and narrator modules load in a thread, so the loop keeps drawing.
            engine = await asyncio.to_thread(importlib.import_module, "game.engine.session")
            session = await engine.GameSession.open(self.settings, request.save, new=request.new, world=request.world,
                                                    narrator=request.narrator, env=self.environment)
        except Exception as error:
            self.status.activity = ""
            self.report(error, modal=True)
            return
        self._pending = OpenRequest()
        await self._close_session()
        await self.map_pane.fill()  # at once, unless a game opens before the first frame's follow-up ran
        self.session = session
        self._positions = await session.map_layout()
        await self.log_view.clear()
        await self.log_view.add_story(session.opening_text())
        self.map_pane.map.at_turn = None
        self.map_pane.map.select(None)
        self._show_status()
        from game.ui import telling  # the turn's telling, loaded with the first game after the first frame

        await telling.show_tokens(self)
        self.status.activity = ""
        # Turns a model could not record are read again while the player reads; the map follows.
        session.enrich_in_background(on_read=lambda reading: self.call_later(self._after_enrichment, reading),
                                     on_progress=self._enrichment_progress)
        try:
            await self.refresh_map()
        except Exception as error:
            self.report(error)

    async def _close_session(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            try:
                await session.close()
            except Exception as error:
                self.report(error)

    def _show_status(self) -> None:
        session = self.session
        if session is None:
            self.status.save_name = "no game open"
            self.status.turn = None
            self.status.narrator = ""
            self.status.hour = ""
            return
        self.status.save_name = session.save_name
        self.status.turn = session.turn
        self.status.narrator = session.narrator_label
        self.status.hour = session.time_of_day()

    def _needs_history(self) -> bool:
        """Ended relations, the past and a name's history need every version of every edge."""
        graph = self.map_pane.map
        return graph.show_closed or graph.at_turn is not None or graph.selected is not None

    def _enrichment_progress(self, left: int) -> None:
        """The background reading's progress on the status line ("relations: reading 3 earlier turns...")."""
        if self.status.is_attached:
            self.status.enriching = left

    async def _after_enrichment(self, reading: Reading) -> None:
        """A queued turn was read again by the model: one quiet line in the story log saying what it made
        of the fast reading, and the map redrawn (a turn under way redraws it anyway)."""
        if self.turn_running or self.session is None:
            return
        note = reading.story_note()
        if note:
            await self.log_view.add_changes([note])
        if reading.number == self.session.turn:
            self.status.relations = ""  # the last turn's memory is a model's reading now
        try:
            await self.refresh_map()
        except Exception as error:
            self.report(error)

    async def refresh_map(self) -> None:
        """Draw the graph and lay out any newcomer off the UI thread.

        The session holds the current graph in memory, so the map after a turn costs no reads; every
        version is read from the save only while the map or the details show history."""
        session = self.session
        if session is None:
            return
        from game.engine.player_view import player_view
        from game.graph.map import compute_layout
        from game.graph.map.known import known_graph

        self._history_drawn = self._needs_history()
        if self._history_drawn:
            nodes = await session.all_nodes()
            edges = await session.all_edges()
        else:
            nodes = sorted(session.graph.nodes.values(), key=lambda n: (n.first_seen_turn, n.id))
            edges = list(session.graph.open_edges.values())
        new = [node.id for node in nodes if node.id not in self._positions]
        if new:
            # Laid out whole, so a person keeps the place they will have once the player learns of them.
            laid_out = await asyncio.to_thread(compute_layout, nodes, edges, self._positions)
            await session.save_map_layout({node_id: laid_out[node_id] for node_id in new})
            self._positions.update(laid_out)
        # Drawn: only what the player knows, the people met or heard of and the relations learned, as revealed.
        nodes, edges = known_graph(nodes, edges, player_view(session.world, session.scene, session.graph))
        self.map_pane.set_graph(nodes, edges, self._positions, await session.stage_at(self.map_pane.map.at_turn))

    def _history_wanted(self) -> None:
        if self.session is not None and self._needs_history() and not self._history_drawn:
            self._load_history()

    @work(exclusive=True, group="history", exit_on_error=False)
    async def _load_history(self) -> None:
        await self.refresh_map()

    # ------------------------------------------------------------------------------------ turns

    @on(CommandInput.Submitted, "#command")
    def _submitted(self, event: CommandInput.Submitted) -> None:
        # Only the command line: Enter in a dialog's field (Save as) bubbles up here as the same message.
        text = event.value.strip()
        if not text:
            return
        if self.submit(in_mode(self.query_one(CommandInput).mode, text)):
            command = self.query_one(CommandInput)
            command.remember(text)
            command.value = ""

    def submit(self, text: str) -> bool:
        """Start a turn (or meta command) unless one is running; False when it was not started."""
        if self.session is None:
            self.notify("No game is open. " + RECOVER_HINT, title="No game", severity="warning")
            return False
        if self.turn_running:
            self.notify("A turn is still being told. Wait for it, or press Esc to cancel it.",
                        title="One moment", severity="warning")
            return False
        self._turn_worker = self.run_turn(text)
        self.refresh_bindings()
        return True

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self, text: str) -> None:
        session = self.session
        if session is None:
            return
        log = self.log_view
        before = session.turn
        last_told = session.history[-1] if session.history else None
        self._stream = None
        self._told = []
        self._outcome = _Outcome()
        command_line = await log.add_command(text)
        from game.engine.meta import parse_meta  # loaded with the first turn, not before the first frame
        from game.ui import telling

        if parse_meta(text) is None:
            self.status.activity = "telling the turn"
        try:
            events = cast("AsyncGenerator[Event, None]", session.play_turn(text))
            async with aclosing(events):
                async for event in events:
                    await self._show(event)
        except asyncio.CancelledError:
            await self._end_stream()
            # A retold turn (retry, continue, an edit) stored before Esc reached it keeps its number.
            retold = session.turn == before and bool(session.history) and session.history[-1] != last_told
            saved = session.turn != before or retold
            if retold:  # the turn as the save keeps it, in place of its earlier telling
                await telling.show_kept(self, command_line, self._told)
            if not saved:
                await log.discard(self._told)
            await log.add_cancelled("Stopped after the turn was saved." if saved
                                    else "Cancelled: nothing of that turn was saved.")
            self.status.activity = ""
            if saved:
                log.belongs_to(session.turn, command_line)
                self._show_status()
                await self.refresh_map()
            raise
        except Exception as error:
            await self._end_stream()
            if session.turn == before:
                await log.discard(self._told)
            from game.ui.errors import describe

            await log.add_failure(describe(error).message)
            self.report(error)
            self._outcome.failed = True
        finally:
            self.status.activity = ""
        await self._end_stream()
        if self._outcome.failed:
            command = self.query_one(CommandInput)
            if not command.value:
                command.value = text  # so the player can try again with Enter
                command.cursor_position = len(text)
        if session is self.session and self._outcome.replaced is not None:
            await telling.show_replaced(self, self._outcome.replaced, command_line, self._told)
        elif session is self.session and session.turn > before and not self._outcome.reset:
            log.belongs_to(session.turn, command_line)
        if session is self.session and self._outcome.reset:
            if self._outcome.reset == "undo":
                await log.take_back(session.turn)
            else:
                log.forget_turns()
        if session is self.session and (session.turn != before or self._outcome.reset or self._outcome.replaced):
            self._show_status()
            await telling.show_tokens(self)
            if self.map_pane.map.at_turn is not None and self.map_pane.map.at_turn > session.turn:
                self._travel(None)
            try:
                await self.refresh_map()
            except Exception as error:
                self.report(error)
        if self._outcome.quit:
            self.action_confirm_quit()
        elif self._outcome.confirm is not None:
            self._confirm_command(self._outcome.confirm)

    async def _end_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.stop()

    async def _show(self, event: Event) -> None:
        # The engine's events load with the first turn: the first frame does not need them.
        from game.engine.events import (
            AttitudeChanged,
            ConfirmRequested,
            GameEnded,
            GraphChanged,
            GraphUpdating,
            MetaOutput,
            NarrationDelta,
            NarrationDone,
            Notice,
            QuitRequested,
            SessionReset,
            TurnCommitted,
            TurnFailed,
            TurnReplaced,
        )

        log = self.log_view
        if isinstance(event, NarrationDelta):
            if self._stream is None:
                block, self._stream = await log.start_story()
                self._told.append(block)
            await self._stream.write(event.text)
        elif isinstance(event, NarrationDone):
            if self._stream is None:
                self._told.append(await log.add_story(event.text))
            await self._end_stream()
        elif isinstance(event, MetaOutput):
            await log.add_meta(event.text)
        elif isinstance(event, GraphUpdating):
            self.status.activity = "updating relations"
        elif isinstance(event, GraphChanged):
            await log.add_changes([change.text for change in event.changes])
        elif isinstance(event, AttitudeChanged):
            if event.line:
                self._told.append(await log.add_story(event.line))
        elif isinstance(event, TurnCommitted):
            self.status.turn = event.turn
            self.status.activity = ""
            # Said until the next turn: this turn's memory is only what the narration plainly states.
            self.status.relations = "fast path" if event.extraction == "fast" else ""
        elif isinstance(event, TurnFailed):
            await self._end_stream()
            await log.discard(self._told)
            await log.add_failure(event.message)
            self.notify(event.message, title=event.title, severity="error", timeout=10)
            self._outcome.failed = True
        elif isinstance(event, Notice):
            if event.level != "information":
                await log.add_warning(event.text)
            self.notify(event.text, severity=event.level, timeout=8)
        elif isinstance(event, GameEnded):
            await log.add_ending(event.title)
            self.notify(f"The story has reached an ending: {event.title}.", title="The end")
        elif isinstance(event, SessionReset):
            self._outcome.reset = event.reason
        elif isinstance(event, TurnReplaced):
            self._outcome.replaced = event
        elif isinstance(event, QuitRequested):
            self._outcome.quit = True
        elif isinstance(event, ConfirmRequested):
            self._outcome.confirm = event

    def action_cancel_turn(self) -> None:
        if self.turn_running:
            self.workers.cancel_group(self, "turn")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_turn":
            return True if self.turn_running else None
        return True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self._turn_worker:
            self.refresh_bindings()
        # Workers run with exit_on_error=False so a bug ends one task, not the game; this is where such a
        # bug is told (screens that own workers do the same in Dialog).
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            if event.worker.group == "session":
                self.status.activity = ""
                self._show_status()
            self.report(event.worker.error)

    # ------------------------------------------------------------------------------------ actions

    def _needs_game(self) -> GameSession | None:
        if self.session is None:
            self.notify("No game is open. " + RECOVER_HINT, title="No game", severity="warning")
        return self.session

    def _idle(self) -> bool:
        if self.turn_running:
            self.notify("A turn is still being told. Wait for it, or press Esc to cancel it.",
                        title="One moment", severity="warning")
            return False
        return True

    def action_undo(self) -> None:
        if self._needs_game():
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

    @on(CommandInput.Swipe)
    def _swipe(self, event: CommandInput.Swipe) -> None:
        from game.ui import telling

        telling.swipe(self, event.step)

    def action_save_as(self) -> None:
        session = self._needs_game()
        if session is None:
            return

        def chosen(name: str | None) -> None:
            if name:
                self.submit(f"save {name}")

        from game.ui.screens.save_as import SaveAsScreen

        self.push_screen(SaveAsScreen(self.settings.saves_dir, session.save_name, session.turn), chosen)

    def action_load(self) -> None:
        if not self._idle():
            return

        def chosen(name: str | None) -> None:
            if name and (self.session is None or name != self.session.save_name):
                self.open_game(OpenRequest(save=name))

        from game.ui.screens.load_game import LoadScreen

        current = self.session.save_name if self.session else None
        self.push_screen(LoadScreen(self.settings.saves_dir, current), chosen)

    def action_new_game(self) -> None:
        if not self._idle():
            return

        def chosen(choice: NewGame | None) -> None:
            if choice is not None:
                self.open_game(OpenRequest(save=choice.save_name, new=True, world=choice.world))

        from game.engine.opening import generated_save_name
        from game.ui.screens.new_game import NewGameScreen

        world = self.session.world.id if self.session else self.settings.world
        self.push_screen(NewGameScreen(self.settings.content_dir, self.settings.saves_dir,
                                       generated_save_name(world or "kith"), world, self.settings.worlds_dir),
                         chosen)

    def action_help(self) -> None:
        from game.ui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def on_resize(self, event: events.Resize) -> None:
        """Below ``FOLD_BELOW`` columns the map folds away so the story keeps the screen; F2 brings it back.
        Widening again unfolds a map that was folded, never one the player hid."""
        narrow = event.size.width < FOLD_BELOW
        pane = self.map_pane
        if narrow and not self._folded and not pane.has_class("-hidden"):
            self._folded = True
            pane.add_class("-hidden")
            self.notify("The terminal is narrow, so the map is folded away. F2 brings it back.", title="Map")
        elif not narrow and self._folded:
            self._folded = False
            pane.remove_class("-hidden")

    def action_toggle_map(self) -> None:
        pane = self.map_pane
        self._folded = False
        pane.toggle_class("-hidden")
        if pane.has_class("-hidden") and pane.has_focus_within:
            self.query_one(CommandInput).focus()

    def action_resize_map(self, direction: int) -> None:
        pane = self.map_pane
        pane.remove_class("-hidden")
        pane.resize_by(direction * WIDTH_STEP, self.size.width)

    def action_toggle_closed(self) -> None:
        if not self.map_pane.filled:
            return  # a key pressed before the map was mounted (just after the first frame)
        graph = self.map_pane.map
        graph.show_closed = not graph.show_closed
        self.notify("Ended relations are shown, dashed." if graph.show_closed else "Ended relations are hidden.",
                    title="Map")

    def action_focus_character(self) -> None:
        from game.ui.palette import focus_character

        focus_character(self, self.map_pane)

    def action_time_travel(self) -> None:
        if self._needs_game():
            self._choose_turn()

    @work(exclusive=True, group="dialog", exit_on_error=False)
    async def _choose_turn(self) -> None:
        session = self.session
        if session is None:
            return
        turns = [(record.number, record.input) for record in await session.turns()]

        def chosen(choice: TurnChoice | None) -> None:
            if choice is not None:
                self._travel(choice.turn)

        from game.ui.screens.time_travel import TimeTravelScreen

        self.push_screen(TimeTravelScreen([(0, ""), *turns], session.turn), chosen)

    def _travel(self, turn: int | None) -> None:
        graph = self.map_pane.map
        graph.at_turn, self.status.map_turn = turn, turn
        self._load_history()  # that turn's stage, and every version of the graph
        self.map_pane.remove_class("-hidden")
        self.map_pane.refresh_details()

    def action_settings(self) -> None:
        if not self._idle():
            return
        known = bool(self.environment.get(self.settings.llm.api_key_env))

        def chosen(choice: SettingsChoice | None) -> None:
            if choice is not None:
                self._apply_settings(choice)

        from game.ui.screens.settings import SettingsScreen

        self.push_screen(SettingsScreen(self.settings, known, dict(self.environment)), chosen)

    @work(exclusive=True, group="settings", exit_on_error=False)
    async def _apply_settings(self, choice: SettingsChoice) -> None:
        from game.narrator.factory import make_narrator

        settings = choice.apply_to(self.settings)
        variable = settings.llm.api_key_env
        if choice.key:  # a typed key replaces the one in use, even one from the environment
            self.environment = {**self.environment, variable: choice.key}
            if choice.remember_key:
                try:
                    await asyncio.to_thread(self.key_store.save, variable, choice.key)
                except KithError as error:
                    self.report(error)
        self.settings = settings
        session = self.session
        if session is None:
            self.open_game(self._pending)
            return
        try:
            narrator = make_narrator(settings, session.world, env=self.environment)
        except ConfigError as error:
            self.report(error)
            return
        try:
            await session.swap_narrator(narrator, settings)  # closing the previous one may fail; it is told
        except Exception as error:
            self.report(error)
        self._show_status()
        self.notify(f"Narrator: {narrator.label}.", title="Settings")

    def on_relationship_map_leave(self) -> None:  # RelationshipMap.Leave, by name: that module loads later
        self.query_one(CommandInput).focus()

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
        session = self.session
        where = f" Your game is saved as {session.save_name} at turn {session.turn}." if session else ""

        def chosen(yes: bool | None) -> None:
            if yes:
                self.exit(0)

        from game.ui.screens.confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(f"Leave Kith?{where}", "Leave"), chosen)

    def _confirm_command(self, asked: ConfirmRequested) -> None:
        """A command that asks first (``restore``): Yes plays it again, which the session takes as the answer."""
        def chosen(yes: bool | None) -> None:
            if yes:
                self.submit(asked.command)
            elif self.session is not None:
                from game.engine.meta_commands import withdraw_question

                withdraw_question(self.session)

        from game.ui.screens.confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(asked.question, asked.yes, danger=True), chosen)

    async def action_quit(self) -> None:
        self.exit(0)

    async def on_unmount(self) -> None:
        self.workers.cancel_group(self, "turn")
        await self._close_session()


class _Outcome:
    """What one line's events asked of the screen after they are shown."""

    def __init__(self) -> None:
        self.failed = False
        self.reset = ""
        """Why the session now shows another state (``SessionReset.reason``); empty when it does not."""
        self.quit = False
        self.confirm: ConfirmRequested | None = None
        """A command that asked to be confirmed: the modal asks once the turn's events are shown."""
        self.replaced: TurnReplaced | None = None
        """The last turn told another way (retry, continue, an edit, a swipe): shown in place of the old."""


def run_app(settings: Settings | Callable[[], Settings], save: str | None = None, new: bool = False, world: str | None = None,
            narrator: Narrator | None = None) -> int:
    """Play full-screen until the player leaves; the exit code for ``kith play``."""
    app = KithApp(settings, save, new, world, narrator)
    code = app.run()
    return code if isinstance(code, int) else app.return_code or 0
