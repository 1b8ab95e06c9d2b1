"""Saves on disk: names and paths, listing, copying and deleting.

A save name is a plain word (letters, digits, ``-``, ``_``; at most 64) and lives in the saves folder as
``NAME.sqlite``. Anything containing ``/`` or ending in ``.sqlite`` is taken as a path. Nothing else is
accepted, so a name can never reach outside the saves folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from game.errors import SaveError, SaveNotFound

if TYPE_CHECKING:
    import sqlite3

    from game.store.schema import Schema

# Checking and resolving a save's name is all ``kith graph dump`` and ``retrieve`` need from here, so the
# connection, lock and damage modules (and sqlite3) are imported by the functions that use them, and
# ``SaveInfo`` is a NamedTuple rather than a dataclass: the dataclasses module alone costs those one-shot
# commands a quarter of their floor (issue 15).

MAX_NAME = 64
SAVE_NAME = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_NAME}}}")
SUFFIX = ".sqlite"


def is_path_like(value: str) -> bool:
    return "/" in value or value.endswith(SUFFIX)


def validate_save_name(name: str) -> str:
    if not SAVE_NAME.fullmatch(name):
        raise SaveError(
            f"{name!r} is not a save name: use 1 to 64 letters, digits, '-' or '_' (no spaces, dots or slashes)"
        )
    return name


def snapshot_name(save: str, purpose: str) -> str:
    """The name of the snapshot ``purpose`` keeps of ``save`` (``game-before-restart``).

    Always a valid save name and never ``save`` itself: a name too long for the suffix is shortened,
    and a name that already ends with the suffix gets a second marker, so a snapshot can never
    overwrite the game it keeps (a 64-character name once restarted into itself).
    """
    for suffix in (f"-{purpose}", f"-{purpose}-2"):
        candidate = f"{save[:MAX_NAME - len(suffix)]}{suffix}"
        if candidate != save:
            return candidate
    raise AssertionError("unreachable: a name cannot end with both suffixes")  # pragma: no cover


def resolve_save(value: str, saves_dir: Path) -> Path:
    """The file a ``--save`` value means: a path as given, or ``saves_dir/NAME.sqlite`` for a name."""
    if is_path_like(value):
        return Path(value).expanduser()
    return saves_dir / f"{validate_save_name(value)}{SUFFIX}"


class SaveInfo(NamedTuple):
    """One save as ``kith saves list`` shows it; ``error`` is set for a file that cannot be read."""

    name: str
    path: Path
    world: str | None
    turns: int
    last_played: str | None
    size: int
    error: str | None = None
    fast: int = 0
    """Turns whose relations only the fast path read (no model yet): ``kith graph enrich`` reads them."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    """Tokens a model narrator spent on the save's turns, every telling counted (0 offline)."""

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "path": str(self.path), "world": self.world, "turns": self.turns,
            "lastPlayed": self.last_played, "size": self.size, "fastTurns": self.fast, "error": self.error,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens,
                       "total": self.prompt_tokens + self.completion_tokens},
        }


def read_save_info(path: Path, schema: Schema) -> SaveInfo:
    """What the saves list shows of the save at ``path``, read as ``schema`` (the game's) promises it."""
    import sqlite3

    from game.store.connection import inspect_save, read_connection
    from game.store.damage import damaged
    from game.store.decoded import opening_problem

    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.is_file())
    try:
        _version, meta = inspect_save(path, schema)
        conn = read_connection(path)
        try:
            turns = int(conn.execute("SELECT coalesce(max(number), 0) FROM turns").fetchone()[0])
            fast = _fast_turns(conn, schema)
            prompt, completion = _tokens(conn, schema)
            problem = opening_problem(conn)
        finally:
            conn.close()
        if problem is not None:
            # What opening the game would refuse (a history cut short, tags that are not JSON): listed as
            # damaged now, rather than found when the player picks it.
            raise SaveError(f"{path.stem} is damaged ({problem}); `kith saves check {path.stem}` lists what is wrong")
    except SaveError as error:
        return SaveInfo(path.stem, path, None, 0, None, size, error=str(error))
    except (sqlite3.Error, ValueError, TypeError) as error:
        # A Kith save whose rows or tables are not as its version promises: listed as damaged, as
        # every command that reads it reports it.
        return SaveInfo(path.stem, path, None, 0, None, size, error=damaged(path.stem, error).message)
    return SaveInfo(path.stem, path, meta.get("world"), int(turns), meta.get("last_played"), size, fast=fast,
                    prompt_tokens=prompt, completion_tokens=completion)


def _fast_turns(conn: sqlite3.Connection, schema: Schema) -> int:
    """Turns only the fast path read; 0 for a save from before turns said how they were read (listed
    read-only, before it migrates). A newer save without the column is damaged: the read fails."""
    from game.store.promised import expects_sync

    if not expects_sync(conn, schema.since("turns.extraction")):
        return 0
    return int(conn.execute("SELECT count(*) FROM turns WHERE extraction = 'fast'").fetchone()[0])


def _tokens(conn: sqlite3.Connection, schema: Schema) -> tuple[int, int]:
    """Prompt and completion tokens of every telling kept (``swipes``; a save older than it has none, a
    newer one without it is damaged)."""
    from game.store.promised import expects_sync

    if not expects_sync(conn, schema.since("swipes")):
        return 0, 0
    row = conn.execute("SELECT coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0) "
                       "FROM swipes").fetchone()
    return int(row[0]), int(row[1])


def list_saves(saves_dir: Path, schema: Schema) -> list[SaveInfo]:
    """Every ``*.sqlite`` in the folder, most recently played first (unreadable files last).

    Anything that is not a regular file (a FIFO, a folder) is listed with why it cannot be read.
    """
    from game.store.connection import sweep_leftovers

    if not saves_dir.is_dir():
        return []
    sweep_leftovers(saves_dir)
    infos = [read_save_info(p, schema) for p in sorted(saves_dir.glob(f"*{SUFFIX}")) if not p.name.startswith(".")]
    return sorted(infos, key=lambda i: (i.error is None, i.last_played or ""), reverse=True)


def _existing(name: str, saves_dir: Path) -> Path:
    path = resolve_save(name, saves_dir)
    if not path.exists():
        raise SaveNotFound(f"there is no save {path.stem!r} in {saves_dir}")
    return path


def delete_save(name: str, saves_dir: Path, schema: Schema) -> Path:
    """Remove a save and its WAL files. Only Kith saves are deleted."""
    from game.store.connection import inspect_save
    from game.store.lock import SaveLock

    path = _existing(name, saves_dir)
    inspect_save(path, schema)
    lock = SaveLock.acquire(path)  # never delete a save a game is playing
    try:
        for part in (Path(f"{path}-wal"), Path(f"{path}-shm"), path):
            part.unlink(missing_ok=True)
    except OSError as error:
        raise SaveError(f"{path.stem} could not be deleted: {error.strerror or error}") from error
    finally:
        lock.release()
    return path


def copy_save(source: str, destination: str, saves_dir: Path, schema: Schema) -> Path:
    """Copy a save with SQLite's backup API; refuses to overwrite an existing save."""
    import sqlite3

    from game.store.connection import inspect_save, read_connection, remove_file, temporary_name
    from game.store.damage import brief

    origin = _existing(source, saves_dir)
    inspect_save(origin, schema)
    target = resolve_save(destination, saves_dir)
    if target.exists():
        raise SaveError(f"a save named {target.stem!r} already exists; choose another name or delete it first")
    temporary = temporary_name(target, "copy")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        src = read_connection(origin)
        try:
            dst = sqlite3.connect(str(temporary))
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        temporary.replace(target)
    except (OSError, sqlite3.Error) as error:
        remove_file(temporary)
        raise SaveError(f"{origin.stem} could not be copied to {target.stem}: {brief(error)}") from error
    return target
