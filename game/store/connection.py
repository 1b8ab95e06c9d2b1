"""Opening a save file: recognising it, refusing what is not ours, creating and migrating.

A file is inspected through a read-only connection before anything writes to it, so a foreign or
corrupt file is refused byte-for-byte untouched (switching to WAL alone would rewrite its header). Only
regular files are opened (a FIFO named like a save would hang SQLite's open). A new save is built under
a temporary name (``.NAME.sqlite.creating-PID``) and moved into place only when finished, so a killed
process never leaves half a save; leftovers of dead processes are swept away when a folder is next used.
In a read-only folder a save is read through an immutable connection, so reading still works.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import stat
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from game.errors import SaveError, SaveNotFound
from game.store.damage import brief
from game.store.lock import SaveLock

if TYPE_CHECKING:
    import aiosqlite

    from game.store.schema import Schema

APPLICATION = "kith"
BUSY_TIMEOUT_MS = 5000
SIDECARS = ("-wal", "-shm", "-journal")
# ``.NAME.sqlite.creating-PID`` / ``.snapshot-PID`` / ``.copy-PID`` and their sidecars; older Kith
# wrote the same names without ``-PID``.
_LEFTOVER = re.compile(r"\..+\.sqlite\.(?:creating|snapshot|copy|salvage)(?:-(?P<pid>\d+))?(?:-wal|-shm|-journal)?")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def readonly_uri(path: Path, *, immutable: bool = False) -> str:
    """A read-only SQLite URI; the path is quoted, so ``#`` or ``?`` in a folder name stay part of it."""
    return f"file:{quote(str(path.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")


def folder_writable(path: Path) -> bool:
    """Whether files can be created beside ``path`` (False on a read-only mount, even for root)."""
    return os.access(path.parent, os.W_OK)


def temporary_name(path: Path, purpose: str) -> Path:
    """Where a file that will become ``path`` is built: hidden, and unique to this process."""
    return path.with_name(f".{path.name}.{purpose}-{os.getpid()}")


def remove_file(path: Path) -> None:
    """Delete ``path`` and its SQLite sidecars if they exist; a read-only folder is left as it is."""
    for part in (path, *(Path(f"{path}{side}") for side in SIDECARS)):
        with contextlib.suppress(OSError):
            part.unlink()


def remove_sidecars(path: Path) -> None:
    """Delete the -wal, -shm and -journal beside ``path`` (a file about to be replaced).

    A stale WAL left by a killed process holds frames of the OLD file; SQLite would replay them onto a
    new file renamed into its place and corrupt it. The caller holds the save's lock.
    """
    for side in SIDECARS:
        Path(f"{path}{side}").unlink(missing_ok=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_leftovers(folder: Path) -> None:
    """Remove temporary files of processes that died while building a save or a snapshot."""
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        return
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            match = _LEFTOVER.fullmatch(entry.name)
            if match is None:
                continue
            pid = match.group("pid")
            if pid is not None and (int(pid) == os.getpid() or _process_alive(int(pid))):
                continue  # a living process (perhaps this one) is building it right now
            with contextlib.suppress(OSError):
                entry.unlink()


def require_regular(path: Path, label: str) -> None:
    """Refuse anything but a regular file before SQLite opens it (a FIFO would block the open)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError as error:
        raise SaveNotFound(f"there is no save {path.stem!r} (looked for {path})") from error
    except OSError as error:
        raise SaveError(f"{label} cannot be read: {error.strerror or error}") from error
    if stat.S_ISDIR(mode):
        raise SaveError(f"{path} is a folder, not a save file")
    if not stat.S_ISREG(mode):
        raise SaveError(f"{label} is not a regular file (a pipe, socket or device); it was left untouched")


class _Reader(sqlite3.Connection):
    """A read-only connection that leaves the saves folder as it found it.

    Reading a WAL save makes its ``-wal`` and ``-shm`` beside it, and only a connection that may write
    removes them when it is the last to close (it checkpoints first). A read-only one leaves them, so
    every ``kith saves list`` or ``graph dump`` left two more files per save. On close, when the WAL holds
    nothing, a writable connection is opened and closed: SQLite then removes both if no one else has the
    save open, and leaves them to the game (or whoever) if someone does. Nothing is written either way.
    """

    path: Path

    def close(self) -> None:
        super().close()
        tidy_sidecars(self.path)


def tidy_sidecars(path: Path) -> None:
    """Let SQLite remove ``path``'s empty ``-wal`` and its ``-shm`` if no connection has the save open."""
    try:
        if os.stat(f"{path}-wal").st_size != 0 or not folder_writable(path):
            return
    except OSError:
        return
    with contextlib.suppress(sqlite3.Error):
        conn = sqlite3.connect(path)
        try:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
        finally:
            conn.close()


def read_connection(path: Path) -> sqlite3.Connection:
    """A synchronous read-only connection, probed; immutable when the folder cannot hold sidecars.

    A WAL save needs a -shm beside it even to be read; in a read-only folder it cannot be made, and
    nothing can be writing there either, so the file is read as immutable. Closing it removes the
    sidecars reading made, when nobody else has the save open (``_Reader``).
    """
    conn = sqlite3.connect(readonly_uri(path), uri=True, factory=_Reader)
    conn.path = path
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
        if folder_writable(path):
            raise
    except UnicodeDecodeError:
        conn.close()  # a damaged schema: the caller reports it
        raise
    return sqlite3.connect(readonly_uri(path, immutable=True), uri=True)


class Misnumbered(SaveError):
    """A save whose format number is not one its tables were built to (-1, 0, a 14 relabelled 5): its
    rows are whole, and ``kith saves salvage`` reads them at the format the tables show."""


_RESCUE = "`kith saves salvage {name} NEW` copies it into a new save numbered as its tables are"


def inspect_save(path: Path, schema: Schema) -> tuple[int, dict[str, str]]:
    """The schema version and meta of an existing save, or ``SaveError`` saying why it is not one (or not
    one ``schema``, the game's, can open).

    Synchronous and read-only: used before opening, and by the saves list.
    """
    label = path.name
    require_regular(path, label)
    sidecars = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    existed = {side for side in sidecars if side.exists()}
    try:
        return _inspect(path, label, schema)
    except SaveError:
        # Reading a WAL-mode file leaves -wal/-shm beside it; a refused file gets no new neighbours.
        for side in sidecars:
            if side not in existed:
                with contextlib.suppress(OSError):
                    side.unlink(missing_ok=True)
        raise


def _inspect(path: Path, label: str, schema: Schema) -> tuple[int, dict[str, str]]:
    try:
        conn = read_connection(path)
    except sqlite3.OperationalError as error:
        raise SaveError(f"{label} cannot be opened: {brief(error)}") from error
    except sqlite3.DatabaseError as error:
        raise _not_ours_or_damaged(label, error) from error
    except UnicodeDecodeError as error:
        # A damaged schema text (sqlite_master holds the CREATE statements as text) fails to decode.
        raise SaveError(f"{label} is damaged (its schema is not readable text); it was left untouched") from error
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "meta" not in tables:
            raise SaveError(f"{label} is not a Kith save (an SQLite database of another program); it was left untouched")
        meta = _meta(conn)
    except sqlite3.DatabaseError as error:
        raise _not_ours_or_damaged(label, error) from error
    except UnicodeDecodeError as error:
        raise SaveError(f"{label} is damaged (a table name or setting is not readable text); it was left "
                        "untouched") from error
    finally:
        conn.close()
    if meta.get("application") != APPLICATION:
        raise SaveError(f"{label} is not a Kith save (an SQLite database of another program); it was left untouched")
    if not isinstance(version, int) or version > schema.current:
        raise SaveError(
            f"{label} was written by a newer Kith (save format {version}; this version reads up to "
            f"{schema.current}). Update Kith to open it; the file was left untouched."
        )
    if version < 1:
        # Every Kith save is numbered from its first migration on; 0 or below was set by another hand, and
        # upgrading from it would run migrations over tables that already exist (or, below 0, the last one).
        raise Misnumbered(f"{label} is damaged (its save format number is {version}, which no Kith writes); it "
                          f"was left untouched; {_RESCUE.format(name=path.stem)}")
    if version < schema.current:
        _check_upgrade(path, label, version, schema)
    return version, meta


def _check_upgrade(path: Path, label: str, version: int, schema: Schema) -> None:
    """Refuse a save whose upgrade would fail, before anything is written to it.

    The upgrade is tried on a copy of the save's schema in memory (no rows: the migrations' statements
    fail on tables and columns, which the schema holds). A format number that does not match the tables
    (a save of format 14 relabelled 5 by a tool) fails here, so ``saves check`` and play refuse it alike
    and the file is never half upgraded.
    """
    try:
        conn = read_connection(path)
        try:
            stored = conn.execute("SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL "
                                  "AND name NOT LIKE 'sqlite_%'").fetchall()
        finally:
            conn.close()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as error:
        raise SaveError(f"{label} is damaged (its schema cannot be read: {brief(error)}); it was left untouched"
                        ) from error
    order = {"table": 0, "index": 1, "view": 2, "trigger": 3}
    trial = sqlite3.connect(":memory:")
    try:
        try:
            for _kind, sql in sorted(stored, key=lambda row: order.get(str(row[0]), 4)):
                trial.execute(str(sql))
        except sqlite3.Error as error:
            raise SaveError(f"{label} is damaged (its schema does not read back: {brief(error)}); it was left "
                            "untouched") from error
        for number in range(version + 1, schema.current + 1):
            try:
                trial.executescript(";\n".join(_statements(schema.script(number))))
            except sqlite3.Error as error:
                raise Misnumbered(
                    f"{label} is damaged: its save format number ({version}) does not match its tables, so it "
                    f"cannot be upgraded to this Kith's format (step {number}: {brief(error)}); it was left "
                    f"untouched; {_RESCUE.format(name=path.stem)}") from error
    finally:
        trial.close()


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    """The meta rows whose key and value are text; one that is not (a damaged byte) is left to ``saves
    check`` to name, so the file is still recognised as the Kith save it is."""
    conn.text_factory = bytes
    try:
        rows = conn.execute("SELECT key, value FROM meta").fetchall()
    finally:
        conn.text_factory = str
    meta: dict[str, str] = {}
    for key, value in rows:
        try:
            meta[_text(key)] = _text(value)
        except (UnicodeDecodeError, TypeError):
            continue
    return meta


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise TypeError("not text")


def _not_ours_or_damaged(label: str, error: sqlite3.DatabaseError) -> SaveError:
    if "malformed" in str(error) or "corrupt" in str(error):
        return SaveError(f"{label} is damaged ({brief(error)}); it was left untouched")
    return SaveError(f"{label} is not a Kith save ({brief(error)}); it was left untouched")


async def _configure(conn: aiosqlite.Connection) -> None:
    await conn.execute("PRAGMA journal_mode = WAL")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # FULL: a committed turn survives a power cut too, not only a killed process.
    await conn.execute("PRAGMA synchronous = FULL")


async def migrate(conn: aiosqlite.Connection, from_version: int, schema: Schema) -> None:
    """Apply ``schema``'s migrations after ``from_version``, each in its own transaction with its version bump."""
    for version in range(from_version + 1, schema.current + 1):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(schema.script(version)):
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


async def _connect(path: Path, *, immutable: bool = False) -> aiosqlite.Connection:
    # Imported here: the synchronous readers (``inspect_save``, the saves list, ``kith graph dump``)
    # need neither aiosqlite nor the asyncio it loads.
    import aiosqlite

    if immutable:
        conn = await aiosqlite.connect(readonly_uri(path, immutable=True), uri=True, isolation_level=None)
    else:
        conn = await aiosqlite.connect(str(path), isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


async def build_save(temporary: Path, meta: dict[str, str], schema: Schema) -> aiosqlite.Connection:
    """A new save at ``temporary``, built to ``schema`` with ``meta``, and a configured connection to it.

    The caller fills it (turn 0) and moves it into place with ``publish``; on any failure it is
    removed, so only finished saves ever carry a save's name.
    """
    remove_file(temporary)
    conn = await _connect(temporary)
    try:
        await _configure(conn)
        # Every migration in one call and one transaction: the same schema an old save reaches step by
        # step, without a commit (and, at synchronous FULL, a wait for the disk) per step for a file that
        # nobody can see yet.
        script = ";\n".join(statement for migration in schema.scripts() for statement in _statements(migration))
        await conn.executescript(f"BEGIN IMMEDIATE;\n{script};\nPRAGMA user_version = {schema.current};\nCOMMIT;")
        rows = {"application": APPLICATION, "created_at": now_iso(), "last_played": now_iso(), **meta}
        await conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", list(rows.items()))
    except BaseException:
        await conn.close()
        raise
    return conn


def publish(temporary: Path, path: Path) -> None:
    """Give the finished ``temporary`` its real name, never replacing a file that appeared meanwhile.

    ``os.link`` fails if ``path`` exists, so two processes creating one name cannot both win.
    """
    try:
        os.link(temporary, path)
    except FileExistsError as error:
        raise SaveError(f"{path.name} appeared while it was being created; nothing was overwritten") from error
    except OSError:
        # A file system without hard links: check, then rename (a narrow race, as before).
        if path.exists():
            raise SaveError(f"{path.name} appeared while it was being created; nothing was overwritten") from None
        os.replace(temporary, path)
        return
    temporary.unlink()


Fill = Callable[[Path, "aiosqlite.Connection", SaveLock], Awaitable[None]]


async def create_save(path: Path, meta: dict[str, str], fill: Fill, schema: Schema) -> tuple[aiosqlite.Connection,
                                                                                         SaveLock]:
    """Build a new save under a temporary name, ``fill`` it, and only then give it its name.

    Returns a connection to the finished save and its lock, taken on the temporary file before anything
    is written (a lock follows the file through the rename). On any failure nothing is left behind.
    """
    temporary = temporary_name(path, "creating")
    conn: aiosqlite.Connection | None = None
    lock: SaveLock | None = None
    try:
        if not folder_writable(path) and path.parent.is_dir():
            raise SaveError(f"{path.name} could not be created: the saves folder {path.parent} is read-only")
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await build_save(temporary, meta, schema)
        lock = SaveLock.acquire(temporary, path.stem)
        await fill(temporary, conn, lock)
        await conn.close()  # checkpoints the WAL into the file: nothing is left beside it
        publish(temporary, path)
        conn = await open_connection(path, schema)
    except BaseException as error:
        if conn is not None:
            await conn.close()
        if lock is not None:
            lock.release()
        remove_file(temporary)
        if isinstance(error, OSError | sqlite3.Error):
            raise SaveError(f"{path.name} could not be created in {path.parent}: {brief(error)}") from error
        if isinstance(error, SaveError) and "could not be created" not in error.message:
            raise SaveError(f"{path.name} could not be created: {error.message}") from error
        raise
    return conn, lock


async def open_connection(path: Path, schema: Schema) -> aiosqlite.Connection:
    """A configured connection to an existing Kith save (migrated to ``schema`` when older).

    In a read-only folder the connection is read-only (immutable): reads work, writes are refused.
    """
    version, _ = inspect_save(path, schema)
    writable = folder_writable(path)
    if not writable and version < schema.current:
        raise SaveError(f"{path.name} needs upgrading to this Kith's save format, but its folder is read-only")
    conn = await _connect(path, immutable=not writable)
    try:
        if writable:
            await _configure(conn)
            if version < schema.current:
                await migrate(conn, version, schema)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as error:
        # A damaged schema can hold bytes that are not UTF-8: SQLite's pragmas then fail to decode it.
        await conn.close()
        raise SaveError(f"{path.name} could not be opened: {brief(error)}") from error
    except BaseException:
        await conn.close()
        raise
    return conn
