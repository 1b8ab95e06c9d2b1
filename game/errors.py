"""Every error a player or author can see, in one place.

Each carries a plain message and a short title so the CLI can print it on one line and the TUI can show
it in a notification or modal. Anything that is not a ``KithError`` is a bug.
"""

from __future__ import annotations


class KithError(Exception):
    """An error with a message meant for a person, not a traceback."""

    title = "Error"

    def __init__(self, message: str, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if title is not None:
            self.title = title

    def __str__(self) -> str:
        return self.message


class SaveError(KithError):
    """A save that cannot be opened, created or named as asked."""

    title = "Save"


class SaveNotFound(SaveError):
    """The save does not exist and the command does not create saves."""


class ContentError(KithError):
    """A world in ``content/`` that fails validation (the message names the file and field)."""

    title = "World"


class InputError(KithError):
    """Input a user typed or passed in a file that cannot be used as it is."""

    title = "Input"


class NarratorError(KithError):
    """A narrator that could not tell this turn (timeouts, a broken endpoint, a refused request)."""

    title = "Narrator"


class ConfigError(KithError):
    """A setting in flags, environment or ``kith.toml`` that cannot be used."""

    title = "Settings"
