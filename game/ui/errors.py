"""One place that turns an exception into what the player reads.

A ``KithError`` already carries a plain message and a title. Anything else is a bug: the player is told
so in plain words, that their save is intact (every committed turn is on disk), and the traceback goes
to the Textual log rather than the screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.errors import KithError


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
