"""A damaged save gets one message naming the save and what is wrong, never a traceback.

Rows are trusted on the way out for speed (``graph_repo``), so a flipped bit shows up as a JSON, type or
text-decoding error wherever a row is decoded. ``reads`` wraps every reading method of the store so that
any of those becomes a ``SaveError`` pointing at ``kith saves check``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sqlite3
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from game.errors import SaveError

# What decoding a damaged row raises: bad JSON or text, a value of the wrong type, a missing column.
# pydantic's ValidationError is a ValueError, so it is caught without importing pydantic here: the
# one-shot read commands (``kith graph dump``) open saves without it.
DECODE_ERRORS: tuple[type[Exception], ...] = (
    ValueError, TypeError, KeyError, IndexError, AttributeError, UnicodeDecodeError, json.JSONDecodeError,
)


READ_ERRORS: tuple[type[Exception], ...] = (sqlite3.DatabaseError, *DECODE_ERRORS)


class Named(Protocol):
    name: str  # the save's name, for the message


def brief(error: BaseException) -> str:
    """An error as one short line: SQLite quotes whole damaged schema statements, newlines included."""
    text = " ".join(str(error).split())
    return (text[:157] + "...") if len(text) > 160 else (text or type(error).__name__)


def damaged(label: str, error: BaseException) -> SaveError:
    """The message for a save whose content cannot be read as Kith wrote it."""
    if isinstance(error, sqlite3.OperationalError) and not _is_damage(error):
        return SaveError(f"{label} could not be read ({brief(error)})")
    return SaveError(f"{label} is damaged ({brief(error)}); `kith saves check {label}` lists what is wrong")


def _is_damage(error: sqlite3.Error) -> bool:
    text = str(error).lower()
    return any(word in text for word in ("malformed", "no such column", "no such table", "decode", "corrupt"))


P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound=Named)


def reads(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """Turn damage met while reading rows into one ``SaveError`` naming the save."""

    @functools.wraps(method)
    async def guarded(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(self, *args, **kwargs)
        except SaveError:
            raise
        except READ_ERRORS as error:
            raise damaged(self.name, error) from error

    return guarded


@contextlib.contextmanager
def reading(label: str) -> Iterator[None]:
    """``reads`` for a block: damage met reading rows of the save ``label`` becomes one ``SaveError``."""
    try:
        yield
    except SaveError:
        raise
    except READ_ERRORS as error:
        raise damaged(label, error) from error


def write_failure(label: str, error: BaseException) -> SaveError:
    """Why a write transaction was rolled back: a read-only file, SQLite's refusal, or damage met on the way."""
    text = str(error)
    if isinstance(error, sqlite3.DatabaseError) and ("readonly" in text or "read-only" in text):
        return SaveError(f"{label} is read-only here ({brief(error)}); nothing was saved")
    if isinstance(error, sqlite3.OperationalError) and not _is_damage(error):
        return SaveError(f"{label} could not be written ({brief(error)}); nothing was saved")
    if isinstance(error, sqlite3.DatabaseError) and not _is_damage(error):
        # A broken constraint (a foreign key, a CHECK): the writer's fault, and nothing was written.
        return SaveError(f"{label} could not be written ({brief(error)}); nothing was saved")
    # A row read inside the transaction (an undo's before-image) did not decode, or the file is damaged.
    return SaveError(f"{damaged(label, error).message}; nothing was changed")
