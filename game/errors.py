"""Every error a player or author can see, in one place.

Each carries a plain message and a short title so the CLI can print it on one line and the TUI can show
it in a notification or modal. Anything that is not a ``KithError`` is a bug.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


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
    retry_helps = True
    """Whether telling the turn again may work (False for a model that cannot narrate at all)."""


class ConfigError(KithError):
    """A setting in flags, environment or ``kith.toml`` that cannot be used."""

    title = "Settings"


def describe_validation_error(error: ValidationError, limit: int = 6) -> str:
    """A short message a model or author can act on: ``edges[1].strength: ...; nodes[0].type: ...``."""
    parts: list[str] = []
    for item in error.errors()[:limit]:
        path = ""
        for loc in item["loc"]:
            path += f"[{loc}]" if isinstance(loc, int) else (f".{loc}" if path else str(loc))
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown field"
        got = item.get("input")
        shown = "" if item["type"] in {"missing", "extra_forbidden"} or isinstance(got, dict | list) else f" (got {got!r})"
        parts.append(f"{path or 'call'}: {message}{shown}")
    more = len(error.errors()) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)
