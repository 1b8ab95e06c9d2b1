"""Settings: which narrator, which endpoint and model, and the API key.

A key typed here is kept in this process's memory only, unless the player ticks "remember"; it is never
shown (the field is a password field and the report of a connection test names only the variable).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from game.config import Settings, with_endpoint
from game.errors import KithError
from game.ui.errors import Problem
from game.ui.plain import plain
from game.ui.screens.dialog import Dialog

NARRATORS = [("Automatic (a model when an endpoint is set)", "auto"), ("Offline", "offline"),
             ("Model (OpenAI-compatible endpoint)", "openai")]


@dataclass(frozen=True)
class SettingsChoice:
    narrator: str
    base_url: str | None
    model: str | None
    key: str | None
    """A newly typed key, or None to keep the one in use."""
    remember_key: bool

    def apply_to(self, settings: Settings) -> Settings:
        checked = with_endpoint(settings, self.base_url, self.model)
        return checked.model_copy(update={"narrator": self.narrator})


class SettingsScreen(Dialog[SettingsChoice]):
    DEFAULT_CSS = """
    SettingsScreen > .dialog {
        width: 100;
        padding: 0 2;
    }
    SettingsScreen Grid {
        grid-size: 2;
        grid-columns: 22 1fr;
        grid-rows: 3;
        height: auto;
    }
    SettingsScreen Grid > Label {
        height: 3;
        content-align: left middle;
        padding-top: 1;
    }
    SettingsScreen #report {
        height: auto;
        max-height: 5;
        overflow-y: auto;
        margin-top: 1;
    }
    """

    def __init__(self, settings: Settings, key_known: bool, env: dict[str, str]) -> None:
        super().__init__()
        self.settings = settings
        self.key_known = key_known
        self.env = env

    def compose(self) -> ComposeResult:
        llm = self.settings.llm
        with Vertical(classes="dialog"):
            yield Static("Settings", classes="title", markup=False)
            with Grid():
                yield Label("Narrator", markup=False)
                yield Select(NARRATORS, value=self.settings.narrator, allow_blank=False, id="narrator")
                yield Label("Endpoint (base URL)", markup=False)
                yield Input(llm.base_url or "", placeholder="http://localhost:11434/v1", id="base-url")
                yield Label("Model", markup=False)
                yield Input(llm.model or "", placeholder="e.g. llama3.1:8b", id="model")
                yield Label("API key", markup=False)
                placeholder = ("a key is set; type to replace it" if self.key_known
                               else f"read from ${llm.api_key_env}; not needed for a local server")
                yield Input("", placeholder=placeholder, password=True, id="key")
                yield Label("", markup=False)
                yield Checkbox("Remember this key on this computer", id="remember")
            yield Static("Unless remembered, a typed key is forgotten when Kith closes. Settings last for this "
                         "session (kith.toml keeps them).", classes="hint", markup=False)
            yield Static("", id="report", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Test connection", id="test")
                yield Button("Cancel", id="cancel")
                yield Button("Apply", id="apply", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#narrator", Select).focus()

    def _choice(self) -> SettingsChoice:
        narrator = self.query_one("#narrator", Select).value
        base_url = self.query_one("#base-url", Input).value.strip() or None
        model = self.query_one("#model", Input).value.strip() or None
        key = self.query_one("#key", Input).value.strip() or None
        return SettingsChoice(str(narrator), base_url, model, key, self.query_one("#remember", Checkbox).value)

    @on(Button.Pressed, "#test")
    def _test(self) -> None:
        self.query_one("#report", Static).update("Testing the connection…")
        self._run_test(self._choice())

    @work(exclusive=True, exit_on_error=False)
    async def _run_test(self, choice: SettingsChoice) -> None:
        from game.narrator.llm.checkup import doctor

        env = dict(self.env)
        if choice.key:
            env[self.settings.llm.api_key_env] = choice.key
        out = io.StringIO()
        try:
            candidate = choice.apply_to(self.settings)
            code = await doctor(candidate, out, env=env)
        except KithError as error:
            out.write(error.message)
            code = 1
        verdict = "✓ Narration works with these settings." if code == 0 else "✗ Not working yet."
        self.query_one("#report", Static).update(plain(f"{verdict}\n{out.getvalue().strip()}"))

    def worker_failed(self, problem: Problem) -> None:
        self.query_one("#report", Static).update(plain(f"✗ The test could not finish.\n{problem.message}"))

    @on(Button.Pressed, "#apply")
    def _apply(self) -> None:
        choice = self._choice()
        if choice.narrator == "openai" and not (choice.base_url or choice.model):
            self.query_one("#report", Static).update("A model narrator needs an endpoint or a model name.")
            return
        try:
            choice.apply_to(self.settings)  # a bad base URL is told here, with the dialog still open
        except KithError as error:
            self.query_one("#report", Static).update(f"✗ {error.message}")
            return
        self.dismiss(choice)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
