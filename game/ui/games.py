"""``Games``: the open game, and opening, saving and loading one: the app's Save as, Load and New game
flows and their screens, the status line's account of the game, and the model's background reading of
earlier turns while the player reads.

It owns the open ``GameSession`` (one at a time: the one that is replaced is closed) and the game asked
for that has not opened yet, which the settings screen may open once what it lacked is set. The engine,
store, world and narrator modules load in a thread as the first game opens, so the screen keeps drawing.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

    from game.engine.enrich import Reading
    from game.engine.session import GameSession
    from game.narrator.base import Narrator
    from game.ui.host import Host
    from game.ui.map_control import MapControl
    from game.ui.screens.new_game import NewGame
    from game.ui.settings_flow import SettingsFlow


class OpenRequest(NamedTuple):
    save: str | None = None
    new: bool = False
    world: str | None = None
    narrator: Narrator | None = None


class Games:
    """The game open on the screen, if any."""

    def __init__(self, app: Host, preferences: SettingsFlow, map_control: MapControl, idle: Callable[[], bool],
                 request: OpenRequest) -> None:
        self._app = app
        self._preferences = preferences
        self._map = map_control
        self._idle = idle
        """Whether no turn is being told (and if one is, the player was told to wait)."""
        self.session: GameSession | None = None
        self.pending = request
        """The game asked for and not open yet: opened once the map is mounted, or again after the settings."""

    def open(self, request: OpenRequest) -> None:
        self._app.run_worker(self._open(request), name="open_game", group="session", exclusive=True,
                             exit_on_error=False)

    async def _open(self, request: OpenRequest) -> None:
        app = self._app
        self.pending = request
        app.status.activity = "opening the game"
        try:
            await self._preferences.validate()
            # The engine, store, world and narrator modules load in a thread, so the loop keeps drawing.
            engine = await asyncio.to_thread(importlib.import_module, "game.engine.session")
            session = await engine.GameSession.open(app.settings, request.save, new=request.new, world=request.world,
                                                    narrator=request.narrator, env=self._preferences.environment)
        except Exception as error:
            app.status.activity = ""
            app.report(error, modal=True)
            return
        self.pending = OpenRequest()
        await self.close()
        await app.map_pane.fill()  # at once, unless a game opens before the first frame's follow-up ran
        self.session = session
        await self._map.open(session)
        await app.log_view.clear()
        await app.log_view.add_story(session.opening_text())
        self.show_status()
        from game.ui import telling  # the turn's telling, loaded with the first game after the first frame

        await telling.show_tokens(app)
        app.status.activity = ""
        # Turns a model could not record are read again while the player reads; the map follows.
        session.enrich_in_background(on_read=lambda reading: app.call_later(self._after_enrichment, reading),
                                     on_progress=self._enrichment_progress)
        try:
            await app.refresh_map()
        except Exception as error:
            app.report(error)

    async def close(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            try:
                await session.close()
            except Exception as error:
                self._app.report(error)

    def show_status(self) -> None:
        status, session = self._app.status, self.session
        if session is None:
            status.save_name = "no game open"
            status.turn = None
            status.narrator = ""
            status.hour = ""
            return
        status.save_name = session.save_name
        status.turn = session.turn
        status.narrator = session.narrator_label
        status.hour = session.time_of_day()

    def _enrichment_progress(self, left: int) -> None:
        """The background reading's progress on the status line ("relations: reading 3 earlier turns...")."""
        if self._app.status.is_attached:
            self._app.status.enriching = left

    async def _after_enrichment(self, reading: Reading) -> None:
        """A queued turn was read again by the model: one quiet line in the story log saying what it made
        of the fast reading, and the map redrawn (a turn under way redraws it anyway)."""
        app = self._app
        if app.turn_running or self.session is None:
            return
        note = reading.story_note()
        if note:
            await app.log_view.add_changes([note])
        if reading.number == self.session.turn:
            app.status.relations = ""  # the last turn's relations are a model's reading now
        try:
            await app.refresh_map()
        except Exception as error:
            app.report(error)

    # ------------------------------------------------------------------------------------ the screens

    def save_as(self) -> None:
        session = self._app.needs_game()
        if session is None:
            return

        def chosen(name: str | None) -> None:
            if name:
                self._app.submit(f"save {name}")

        from game.ui.screens.save_as import SaveAsScreen

        self._app.push_screen(SaveAsScreen(self._app.settings.saves_dir, session.save_name, session.turn), chosen)

    def load(self) -> None:
        if not self._idle():
            return

        def chosen(name: str | None) -> None:
            if name and (self.session is None or name != self.session.save_name):
                self.open(OpenRequest(save=name))

        from game.ui.screens.load_game import LoadScreen

        current = self.session.save_name if self.session else None
        self._app.push_screen(LoadScreen(self._app.settings.saves_dir, current), chosen)

    def new_game(self) -> None:
        if not self._idle():
            return

        def chosen(choice: NewGame | None) -> None:
            if choice is not None:
                self.open(OpenRequest(save=choice.save_name, new=True, world=choice.world))

        from game.engine.opening import generated_save_name
        from game.ui.screens.new_game import NewGameScreen

        settings = self._app.settings
        world = self.session.world.id if self.session else settings.world
        self._app.push_screen(NewGameScreen(settings.content_dir, settings.saves_dir,
                                            generated_save_name(world or "kith"), world, settings.worlds_dir),
                              chosen)
