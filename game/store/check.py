"""``kith saves check``: SQLite's integrity check plus Kith's own row checks, read-only.

SQLite can call a file healthy whose rows Kith cannot use (a JSON column cut short, a number stored as
text, two open versions of one relation, a missing turn), so every value of every row is decoded as the
game would decode it, column by column from the one table readers share (``game.store.decoded``), and
the graph's rows are validated as its models. A file the game would refuse to open at all (another
program's database, a newer format, a format number its tables contradict) is refused here the same way,
with the same message (``inspect_save``). What a scene or a composed context means is not the store's:
the caller passes those checks in (``Models``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from game.errors import SaveError
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.store import decoded
from game.store.connection import inspect_save, read_connection
from game.store.damage import DECODE_ERRORS, brief
from game.store.schema import Schema

Model = Callable[[Any], object]
Models = Mapping[tuple[str, str], Model]
"""``(table, column)``: a check of the column's decoded value that raises what the game's reader raises
(``SceneState.model_validate`` for a scene): the layers above the store know what these values mean."""
MAX_PROBLEMS = 50
_CHECK_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, *DECODE_ERRORS)
_MODEL_ERRORS: tuple[type[Exception], ...] = (ValidationError, *DECODE_ERRORS)


def check_save(path: Path, schema: Schema, models: Models | None = None) -> list[str]:
    """Every problem found in the save at ``path`` (empty: it is healthy), read as ``schema`` (the game's)
    promises it. Never writes.

    Raises ``SaveError`` for a file the game refuses outright, with the message opening it gives."""
    inspect_save(path, schema)
    try:
        conn = read_connection(path)
    except sqlite3.Error as error:
        raise SaveError(f"{path.stem} cannot be opened: {brief(error)}") from error
    problems: list[str] = []
    try:
        steps: list[tuple[str, Callable[[sqlite3.Connection], list[str]]]] = [
            ("integrity", _integrity), ("tables", lambda c: _tables(c, schema)), ("dangling", _dangling),
            ("open versions", _open_versions), ("knowers", _knowers), ("gossip log", _gossip_log),
            ("contiguous turns", _contiguous_turns)]
        for name, step in steps:
            try:
                problems += step(conn)
            except _CHECK_ERRORS as error:
                problems.append(f"{name}: cannot be checked ({brief(error)})")
        problems += _values(conn, models or {})
    finally:
        conn.close()
    return problems[:MAX_PROBLEMS]


def _integrity(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("PRAGMA integrity_check(20)").fetchall()
    return [] if [tuple(r) for r in rows] == [("ok",)] else [f"integrity: {r[0]}" for r in rows]


def promised_columns(version: int, schema: Schema) -> dict[str, list[str]]:
    """Each table the schema version promises, with its columns (as ``schema``'s migrations build them)."""
    promised = sqlite3.connect(":memory:")
    try:
        promised.executescript(";\n".join(schema.scripts(version)))
        tables = [str(row[0]) for row in promised.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                          "ORDER BY name")]
        return {table: [str(r[1]) for r in promised.execute(f'PRAGMA table_info("{table}")')] for table in tables}
    finally:
        promised.close()


def _schema(conn: sqlite3.Connection) -> set[tuple[str, str, str]]:
    return {(str(kind), str(name), " ".join(str(sql).split())) for kind, name, sql in conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'")}


def format_of_tables(conn: sqlite3.Connection, schema: Schema) -> int | None:
    """The newest format whose migrations (``schema``'s) build exactly the schema of ``conn`` (tables, columns, indexes),
    whatever its format number says; None when no format does. For a save whose number was damaged."""
    have = _schema(conn)
    built = sqlite3.connect(":memory:")
    try:
        found = None
        for version, script in enumerate(schema.scripts(), start=1):
            built.executescript(script)
            if _schema(built) == have:
                found = version
        return found
    finally:
        built.close()


def _tables(conn: sqlite3.Connection, schema: Schema) -> list[str]:
    """Every table and column the save's schema version promises: one dropped by hand or by a tool fails
    every read of it."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    have = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    problems: list[str] = []
    for table, columns in promised_columns(version, schema).items():
        if table not in have:
            problems.append(f"tables: {table} is missing")
            continue
        present = {str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')}
        problems += [f"tables: {table}.{column} is missing" for column in columns if column not in present]
    return problems


# ------------------------------------------------------------------------------------------- values


def read_row(table: str, row: Mapping[str, object], models: Models) -> tuple[dict[str, Any], list[tuple[str, str]],
                                                                              str | None]:
    """``row`` of ``table`` as the game reads it: its decoded values, ``(column, why)`` for each value that
    does not decode, and, when every value decodes, why the row fails its model (None: it is fine).

    ``kith saves check`` reports these; ``kith saves salvage`` mends or leaves out the row by them."""
    columns = decoded.TABLES.get(table, {})
    values: dict[str, Any] = {}
    failures: list[tuple[str, str]] = []
    for name, value in row.items():
        column = columns.get(name)
        try:
            values[name] = column.decode(value, row) if column is not None else _plain(value)
        except decoded.Undecodable as error:
            failures.append((name, str(error)))
    if failures:
        return values, failures, None
    model = _ROW_MODELS.get(table)
    checks = [(name, check) for (model_table, name), check in models.items() if model_table == table] if models else []
    try:
        if model is not None:
            model(values)
        for name, check in checks:
            if name in values:
                check(values[name])
    except _MODEL_ERRORS as error:
        return values, [], first_line(error)
    return values, [], None


def _plain(value: object) -> object:
    """A column no reader decodes (one this Kith does not know): text that is text, anything else as it is."""
    return decoded.as_text(value) if isinstance(value, decoded.RawText) else value


def where(table: str, key: str) -> str:
    """How a problem names its row: ``swipes 1:0``, ``edges edge-7``, ``scene of turn 2``."""
    return f"scene of turn {key}" if table == "scenes" else f"{table} {key}"


def _values(conn: sqlite3.Connection, models: Models) -> list[str]:
    """Every value of every row, decoded as its reader decodes it (``game.store.decoded``)."""
    problems: list[str] = []
    tables = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in sorted(tables & set(decoded.TABLES)):
        try:
            for row, key in decoded.rows_of(conn, table):
                _decoded, failures, model = read_row(table, row, models)
                if not failures and model is None:
                    continue
                at = where(table, decoded.key_text(key))
                problems += [f"{at}: {column} {why}" for column, why in failures]
                if model is not None:
                    problems.append(f"{at}: {model}")
                if len(problems) >= MAX_PROBLEMS:
                    return problems
        except sqlite3.Error as error:
            problems.append(f"{table}: cannot be checked ({brief(error)})")
    return problems


# The graph's own rows and the graph rows other tables keep (a turn's before-images, a telling's writes)
# are validated as the graph's models, as undo, a swap of tellings and opening a game validate them.


def _node(values: Mapping[str, Any]) -> None:
    Node.model_validate({"id": values["id"], "name": values["name"], "type": values["type"],
                         "aliases": values["aliases"], "labels": values["labels"], "summary": values["summary"],
                         "firstSeenTurn": values["first_seen_turn"], "lastSeenTurn": values["last_seen_turn"],
                         "attributes": values["attributes"]})


def _edge(values: Mapping[str, Any]) -> None:
    Edge.model_validate({"id": values["id"], "source": values["source"], "target": values["target"],
                         "relation": values["relation"], "strength": values["strength"], "fact": values["fact"],
                         "validAt": values["valid_at"], "invalidAt": values["invalid_at"],
                         "evidenceTurnIds": values["evidence"]})


_IMAGES: dict[str, Callable[[Any], object]] = {"node": Node.model_validate, "edge": Edge.model_validate,
                                               "knowing": Knowing.model_validate}


def _journal(values: Mapping[str, Any]) -> None:
    check = _IMAGES.get(str(values.get("kind")))
    if check is not None and values.get("before") is not None:
        check(values["before"])


def _telling(values: Mapping[str, Any]) -> None:
    writes = values["payload"]["writes"]
    for kind, check in (("nodes", Node.model_validate), ("edges", Edge.model_validate),
                        ("knowings", Knowing.model_validate)):
        for item in writes[kind]:
            check(item)


_ROW_MODELS: dict[str, Callable[[Mapping[str, Any]], None]] = {
    "nodes": _node, "edges": _edge, "journal": _journal, "swipes": _telling}


# ------------------------------------------------------------------------------------------- relations


def _dangling(conn: sqlite3.Connection) -> list[str]:
    dangling = conn.execute("SELECT id FROM edges WHERE source NOT IN (SELECT id FROM nodes) "
                            "OR target NOT IN (SELECT id FROM nodes) LIMIT 20").fetchall()
    return [f"edge {row[0]}: points at a node that does not exist" for row in dangling]


def _open_versions(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("SELECT source, target, relation, count(*) FROM edges WHERE invalid_at IS NULL "
                        "GROUP BY source, target, relation HAVING count(*) > 1").fetchall()
    return [f"relation {s} -> {t} ({r}) has {n} open versions" for s, t, r, n in rows]


def _knowers(conn: sqlite3.Connection) -> list[str]:
    """Knower rows must be about versions that exist (undo removes both together)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'knowings'").fetchone() is None:
        return []  # a save from before knowledge existed: its first opening adds them
    rows = conn.execute("SELECT edge_id, knower FROM knowings WHERE edge_id NOT IN (SELECT id FROM edges) "
                        "LIMIT 20").fetchall()
    return [f"knower {knower} of {edge_id}: no such relation version" for edge_id, knower in rows]


def _gossip_log(conn: sqlite3.Connection) -> list[str]:
    """Each logged telling must be about a version that exists (undo removes both together)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gossip_log'").fetchone() is None:
        return []  # a save from before gossip: its first opening adds the table
    rows = conn.execute("SELECT turn, teller, listener, edge_id FROM gossip_log "
                        "WHERE edge_id NOT IN (SELECT id FROM edges) LIMIT 20").fetchall()
    return [f"gossip at turn {turn} ({teller} to {listener}) about {edge_id}: no such relation version"
            for turn, teller, listener, edge_id in rows]


def _contiguous_turns(conn: sqlite3.Connection) -> list[str]:
    numbers = [int(row[0]) for row in conn.execute("SELECT number FROM turns ORDER BY number")]
    problems = []
    if numbers != list(range(1, len(numbers) + 1)):
        missing = sorted(set(range(1, max(numbers, default=0) + 1)) - set(numbers))
        problems.append(f"turns are not contiguous (missing: {', '.join(map(str, missing[:10])) or 'none'}; "
                        f"found {len(numbers)} up to {max(numbers, default=0)})")
    scenes = {int(row[0]) for row in conn.execute("SELECT turn FROM scenes")}
    world = conn.execute("SELECT value FROM meta WHERE key = 'world'").fetchone()
    if world is not None:
        missing_scenes = sorted(set(range(0, max(numbers, default=0) + 1)) - scenes)
        if missing_scenes:
            problems.append(f"no scene for turn {', '.join(map(str, missing_scenes[:10]))}")
    return problems


def first_line(error: BaseException) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        at = ".".join(str(part) for part in first["loc"])
        return f"{at}: {first['msg']}" if at else str(first["msg"])
    return str(error).splitlines()[0] if str(error) else type(error).__name__
