"""Opening a save file: recognising it, refusing what is not ours, creating and migrating.

A file is inspected through a read-only connection before anything writes to it, so a foreign or
corrupt file is refused byte-for-byte untouched (switching to WAL alone would rewrite its header). A new
save is built under a temporary name and moved into place, so a killed process never leaves half a save.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import aiosqlite

from game.errors import SaveError, SaveNotFound
from game.store.migrations import CURRENT_VERSION, MIGRATIONS

APPLICATION = "kith"
BUSY_TIMEOUT_MS = 5000


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def readonly_uri(path: Path) -> str:
    """A read-only SQLite URI; the path is quoted, so ``#`` or ``?`` in a folder name stay part of it."""
    return f"file:{quote(str(path.resolve()))}?mode=ro"


def inspect_save(path: Path) -> tuple[int, dict[str, str]]:
    """The schema version and meta of an existing save, or ``SaveError`` saying why it is not one.

    Synchronous and read-only: used before opening, and by the saves list.
    """
    label = path.name
    sidecars = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    existed = {side for side in sidecars if side.exists()}
    try:
        return _inspect(path, label)
    except SaveError:
        # Reading a WAL-mode file leaves -wal/-shm beside it; a refused file gets no new neighbours.
        for side in sidecars:
            if side not in existed:
                side.unlink(missing_ok=True)
        raise


def _inspect(path: Path, label: str) -> tuple[int, dict[str, str]]:
    try:
        conn = sqlite3.connect(readonly_uri(path), uri=True)
    except sqlite3.Error as error:
        raise SaveError(f"{label} cannot be opened: {error}") from error
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "meta" not in tables:
            raise SaveError(f"{label} is not a Kith save (an SQLite database of another program); it was left untouched")
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError as error:
        raise SaveError(f"{label} is not a Kith save ({error}); it was left untouched") from error
    finally:
        conn.close()
    if meta.get("application") != APPLICATION:
        raise SaveError(f"{label} is not a Kith save (an SQLite database of another program); it was left untouched")
    if version > CURRENT_VERSION:
        raise SaveError(
            f"{label} was written by a newer Kith (save format {version}; this version reads up to "
            f"{CURRENT_VERSION}). Update Kith to open it; the file was left untouched."
        )
    return version, meta


async def _configure(conn: aiosqlite.Connection) -> None:
    await conn.execute("PRAGMA journal_mode = WAL")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # FULL: a committed turn survives a power cut too, not only a killed process.
    await conn.execute("PRAGMA synchronous = FULL")


async def migrate(conn: aiosqlite.Connection, from_version: int) -> None:
    """Apply migrations after ``from_version``, each in its own transaction with its version bump."""
    for version in range(from_version + 1, CURRENT_VERSION + 1):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(MIGRATIONS[version - 1]):
                await conn.execute(statement)
            await conn.execute(f"PRAGMA user_version = {version}")
            await conn.execute("COMMIT")
        except BaseException:
            await conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    """Split a migration into statements (they contain no semicolons inside strings)."""
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


async def _connect(path: Path) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


async def create_save(path: Path, meta: dict[str, str]) -> None:
    """Build a new save at ``path`` atomically: all of it appears, or nothing does."""
    try:
        await _build(path, meta)
    except (OSError, sqlite3.Error) as error:
        raise SaveError(f"{path.name} could not be created in {path.parent}: {error}") from error


async def _build(path: Path, meta: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.creating-{os.getpid()}")
    for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm"), Path(f"{temporary}-journal")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    conn = await aiosqlite.connect(str(temporary), isolation_level=None)
    try:
        await conn.execute("PRAGMA foreign_keys = ON")
        await migrate(conn, 0)
        rows = {"application": APPLICATION, "created_at": now_iso(), "last_played": now_iso(), **meta}
        await conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", list(rows.items()))
    finally:
        await conn.close()
    if path.exists():
        temporary.unlink()
        raise SaveError(f"{path.name} appeared while it was being created; nothing was overwritten")
    os.replace(temporary, path)


async def open_connection(path: Path, *, create: bool, meta: dict[str, str] | None = None) -> aiosqlite.Connection:
    """A configured connection to a Kith save, created first when ``create`` and missing."""
    if path.is_dir():
        raise SaveError(f"{path} is a folder, not a save file")
    if not path.exists():
        if not create:
            raise SaveNotFound(f"there is no save {path.stem!r} (looked for {path})")
        await create_save(path, meta or {})
    version, _ = inspect_save(path)
    conn = await _connect(path)
    try:
        await _configure(conn)
        if version < CURRENT_VERSION:
            await migrate(conn, version)
    except sqlite3.DatabaseError as error:
        await conn.close()
        raise SaveError(f"{path.name} could not be opened: {error}") from error
    except BaseException:
        await conn.close()
        raise
    return conn
