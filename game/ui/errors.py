"""One place that turns an exception into what the player reads.

A ``KithError`` already carries a plain message and a title. Anything else is a bug: the player is told
so in plain words, that their save is intact (every committed turn is on disk), and the traceback goes
to the Textual log rather than the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from game.errors import KithError

if TYPE_CHECKING:
    from textual.app import App


@dataclass(frozen=True)
class Problem:
    title: str
    message: str


def describe(error: BaseException) -> Problem:
    if isinstance(error, KithError):
        return Problem(error.title, error.message)
    return Problem(
        "Something went wrong",
        f"Kith hit an unexpected error ({type(error).__name__}: {error}). Your save is intact; "
        "every finished turn is already on disk.",
    )


def notify_problem(app: App[Any], error: BaseException) -> None:
    """The notification every screen uses for an error that does not block play."""
    problem = describe(error)
    if not isinstance(error, KithError):
        app.log.error(f"unexpected {type(error).__name__}: {error!r}")
    app.notify(problem.message, title=problem.title, severity="error", timeout=10)
