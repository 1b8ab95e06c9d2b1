"""Saves as an older Kith wrote them: the schema of the first ``version`` migrations, with the rows of a
save made by today's code (the columns both have). A test of "an old save opens and plays on" then holds
for every migration appended later, not only while its own is the newest."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

from game.registry import default_registry
from game.store.packed import unpack

SCHEMA = default_registry().schema()
"""The schema the tests' saves are built to, as a game's: the core's migrations and the built-in features'
(``Registry.schema``). The store is always given one; tests take this one."""
SCRIPTS = SCHEMA.scripts()
"""Every migration's SQL, in order: ``SCRIPTS[:version]`` builds a save of format ``version``."""
CURRENT_VERSION = SCHEMA.current


def migration_of(marker: str) -> int:
    """The index of the first migration whose script contains ``marker`` (the version before it)."""
    return next(i for i, script in enumerate(SCRIPTS) if marker in script)


def empty_old_save(path: Path, version: int, world: str = "w") -> Path:
    """Write ``path``: an empty save of world ``world`` in the schema of migrations ``[:version]``."""
    conn = sqlite3.connect(path)
    try:
        for script in SCRIPTS[:version]:
            conn.executescript(script)
        conn.execute(f"PRAGMA user_version = {version}")
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [("application", "kith"), ("world", world)])
        conn.commit()
    finally:
        conn.close()
    return path


def older_save(source: Path, destination: Path, version: int) -> Path:
    """Write ``destination``: ``source``'s rows in the schema of migrations ``[:version]``. A text stored
    compressed (a ``BLOB`` column now) goes into an older schema's ``TEXT`` column as the text itself,
    as the Kith of that schema wrote it."""
    conn = sqlite3.connect(destination)
    conn.create_function("plain", 1, unpack, deterministic=True)
    try:
        for script in SCRIPTS[:version]:
            conn.executescript(script)
        conn.execute(f"PRAGMA user_version = {version}")
        conn.execute("ATTACH DATABASE ? AS new", (str(source),))
        tables = [row[0] for row in conn.execute("SELECT name FROM main.sqlite_master WHERE type = 'table' "
                                                  "AND name NOT LIKE 'sqlite_%'")]
        for table in tables:
            old = {row[1]: str(row[2]).upper() for row in conn.execute(f'PRAGMA main.table_info("{table}")')}
            new = {row[1]: str(row[2]).upper() for row in conn.execute(f'PRAGMA new.table_info("{table}")')}
            kept = [column for column in old if column in new]
            columns = ", ".join(f'"{column}"' for column in kept)
            values = ", ".join(f'plain("{c}")' if new[c] == "BLOB" != old[c] else f'"{c}"' for c in kept)
            conn.execute(f'INSERT INTO main."{table}" ({columns}) SELECT {values} FROM new."{table}"')
        conn.commit()
        conn.execute("DETACH DATABASE new")
    finally:
        conn.close()
    return destination


def stored_text(path: Path) -> str:
    """Every value of every table of a save, compressed ones (tellings, contexts) opened: what a search of
    the file for a leaked secret or marker has to read."""
    values = []
    with sqlite3.connect(path) as conn:
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, bytes):
                        try:
                            value = zlib.decompress(value).decode("utf-8")
                        except (zlib.error, UnicodeDecodeError):
                            value = value.decode("utf-8", "replace")
                    values.append(str(value))
    return "\n".join(values)
