"""Named snapshots of an open game (``save NAME``, ``restart``) and restoring one into it.

A snapshot is written with SQLite's backup API under a name unique to this process
(``.NAME.sqlite.snapshot-PID``), so two processes never share a temporary file, and moved into place
only when whole. An older file of that name is replaced under its lock, after its -wal/-shm/-journal
are removed: a stale WAL left by a killed game would otherwise be replayed onto the new file and
corrupt it. Restoring accepts only a game of the same world: a graph-only save or another
world's game would wipe the player's game and its world.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import aiosqlite

from game.errors import SaveError
from game.store import connection
from game.store.check import check_save
from game.store.damage import brief
from game.store.lock import SaveLock

if TYPE_CHECKING:
    from game.store.database import SaveDatabase
    from game.store.schema import Schema


async def write_snapshot(source: aiosqlite.Connection, source_name: str, destination: Path) -> None:
    """Copy the open save to ``destination``, marked as a snapshot of ``source_name``."""
    temporary = connection.temporary_name(destination, "snapshot")
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        connection.remove_file(temporary)
        target = await aiosqlite.connect(str(temporary))
        try:
            await source.backup(target)
            await target.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('snapshot_of', ?)", (source_name,))
            await target.commit()
        finally:
            await target.close()
        _replace(temporary, destination)
    except (OSError, sqlite3.Error) as error:
        connection.remove_file(temporary)
        raise SaveError(f"the snapshot {destination.stem} could not be written: {brief(error)}") from error
    except BaseException:
        connection.remove_file(temporary)
        raise


def _replace(temporary: Path, destination: Path) -> None:
    """Move a finished snapshot into place; an existing file is replaced only while we hold its lock."""
    if not destination.exists():
        os.replace(temporary, destination)
        return
    lock = SaveLock.acquire(destination)
    try:
        connection.remove_sidecars(destination)
        os.replace(temporary, destination)
    finally:
        lock.release()


async def check_restorable(source: Path, into: str, world: str | None, schema: Schema) -> None:
    """Refuse anything but a game of ``world`` that ``schema`` (the open game's) reads; the game being
    played stays as it was."""
    _version, meta = connection.inspect_save(source, schema)
    kept = f"{into} was left as it was"
    if not meta.get("world"):
        raise SaveError(f"{source.stem} is not a game (it holds only a graph, made by `kith graph`); {kept}")
    if world is None or meta["world"] != world:
        raise SaveError(f"{source.stem} is a game of another world ({meta['world']}); {kept}")
    problems = check_save(source, schema)
    if problems:
        raise SaveError(f"{source.stem} is damaged ({problems[0]}); {kept}")


async def restore_into(target: aiosqlite.Connection, target_name: str, source: Path) -> None:
    """Replace the open save's whole content with ``source``'s, in one backup (all or nothing)."""
    try:
        origin = await aiosqlite.connect(connection.readonly_uri(source), uri=True)
    except sqlite3.Error as error:
        raise SaveError(f"{source.stem} could not be read: {brief(error)}") from error
    try:
        await origin.backup(target)
    except sqlite3.DatabaseError as error:
        raise SaveError(f"{source.stem} could not be restored ({brief(error)}); {target_name} was left as it was") from error
    finally:
        with contextlib.suppress(sqlite3.Error):
            await origin.close()


async def snapshot_to(db: SaveDatabase, destination: Path) -> None:
    """Copy the open save ``db`` to ``destination`` (see ``write_snapshot``)."""
    await write_snapshot(db.conn, db.name, destination)


async def restore_from(db: SaveDatabase, source: Path) -> None:
    """Replace the game open in ``db`` with ``source``, a snapshot of a game of the same world (else
    refused). It writes the whole file, so it takes the save's lock first, as a transaction would."""
    await check_restorable(source, db.name, await db.world_id(), db.schema)
    db.hold_lock()
    await restore_into(db.conn, db.name, source)
