"""``SettingsFlow``: the app's settings, the API key narrators read, and the settings screen (F5) that swaps
the narrator of the open game.

It owns the validated ``Settings`` (validated after the first frame, in a thread, so pydantic does not
delay the screen: issue 15), and the environment narrators read their key from: the one Kith started in,
plus a key the player typed or asked Kith to remember. That is kept here rather than written into
``os.environ``, which every library and child process would read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from game.errors import ConfigError, KithError
from game.ui.keys import KeyStore, environment_with_key

if TYPE_CHECKING:
    from game.config import Settings
    from game.ui.host import Host
    from game.ui.screens.settings import SettingsChoice


class SettingsFlow:
    """The settings in force and the key narrators are given."""

    def __init__(self, app: Host, settings: Settings | Callable[[], Settings], key_store: KeyStore,
                 environment: Mapping[str, str], reopen: Callable[[], None]) -> None:
        self._app = app
        # Settings may come as a function that validates them: called as the game opens (``load``).
        self._settings: Settings | None = None if callable(settings) else settings
        self._load: Callable[[], Settings] | None = settings if callable(settings) else None
        self.key_store = key_store
        self.environment: dict[str, str] = dict(environment)
        self._reopen = reopen
        """Open the game that was asked for again: settings that were missing when it failed may be set now."""

    @property
    def settings(self) -> Settings:
        """The validated settings; validated now if the game has not opened yet (a key pressed at once)."""
        if self._settings is None:
            assert self._load is not None
            self._settings = self._load()
            self.remembered_key()
        return self._settings

    @property
    def validated(self) -> bool:
        return self._settings is not None

    async def validate(self) -> None:
        """Validate settings given as a function, in a thread so the screen keeps drawing."""
        if self._settings is None and self._load is not None:
            self._settings = await asyncio.to_thread(self._load)
            self.remembered_key()

    def remembered_key(self) -> None:
        """A key the player asked Kith to remember stands in for an unset environment variable."""
        variable = self.settings.llm.api_key_env
        if not self.environment.get(variable):
            try:
                key = self.key_store.load(variable)
            except KithError as error:
                self._app.report(error)
                return
            self.environment = environment_with_key(self.environment, variable, key)

    def open_screen(self) -> None:
        """F5: narrator, endpoint, model and API key; what is chosen applies to the open game at once."""
        known = bool(self.environment.get(self.settings.llm.api_key_env))

        def chosen(choice: SettingsChoice | None) -> None:
            if choice is not None:
                self._app.run_worker(self._apply(choice), name="apply_settings", group="settings",
                                     exclusive=True, exit_on_error=False)

        from game.ui.screens.settings import SettingsScreen

        self._app.push_screen(SettingsScreen(self.settings, known, dict(self.environment)), chosen)

    async def _apply(self, choice: SettingsChoice) -> None:
        from game.narrator.factory import make_narrator

        settings = choice.apply_to(self.settings)
        variable = settings.llm.api_key_env
        if choice.key:  # a typed key replaces the one in use, even one from the environment
            self.environment = {**self.environment, variable: choice.key}
            if choice.remember_key:
                try:
                    await asyncio.to_thread(self.key_store.save, variable, choice.key)
                except KithError as error:
                    self._app.report(error)
        self._settings = settings
        session = self._app.session
        if session is None:
            self._reopen()
            return
        try:
            narrator = make_narrator(settings, session.world, env=self.environment)
        except ConfigError as error:
            self._app.report(error)
            return
        try:
            await session.swap_narrator(narrator, settings)  # closing the previous one may fail; it is told
        except Exception as error:
            self._app.report(error)
        self._app.show_status()
        self._app.notify(f"Narrator: {narrator.label}.", title="Settings")
