"""``kith saves check``: SQLite's integrity check plus Kith's own row checks, read-only.

SQLite can call a file healthy whose rows Kith cannot use (a JSON column cut short, two open versions of
one relation, a missing turn), so each row is also decoded as the game would decode it. The scene is
validated by a function the caller passes in: the store knows tables, not what a scene means.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from game.errors import SaveError
from game.graph.models import Edge, Node
from game.store.connection import inspect_save, read_connection
from game.store.damage import DECODE_ERRORS, brief
from game.store.migrations import MIGRATIONS
from game.store.packed import unpack

SceneCheck = Callable[[dict[str, Any]], object]
MAX_PROBLEMS = 50
_CHECK_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, *DECODE_ERRORS)

# (table, key column, JSON columns) whose every value must decode (a packed one once unpacked).
_JSON_COLUMNS = (
    ("nodes", "id", ("aliases", "labels", "attributes")),
    ("edges", "id", ("evidence",)),
    ("turns", "number", ("world_ir", "timings")),
    ("journal", "id", ("before",)),
    ("swipes", "turn || ':' || idx", ("payload", "usage")),
    ("turn_context", "turn", ("context",)),
)


def check_save(path: Path, scene_check: SceneCheck | None = None) -> list[str]:
    """Every problem found in the save at ``path`` (empty: it is healthy). Never writes."""
    inspect_save(path)
    try:
        conn = read_connection(path)
    except sqlite3.Error as error:
        raise SaveError(f"{path.stem} cannot be opened: {brief(error)}") from error
    problems: list[str] = []
    try:
        for step in (_integrity, _tables, _json_columns, _rows_decode, _open_versions, _knowers, _gossip_log,
                     _contiguous_turns):
            try:
                problems += step(conn)
            except _CHECK_ERRORS as error:
                problems.append(f"{step.__name__.strip('_').replace('_', ' ')}: cannot be checked ({brief(error)})")
        problems += _scenes(conn, scene_check)
    finally:
        conn.close()
    return problems[:MAX_PROBLEMS]


def _integrity(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("PRAGMA integrity_check(20)").fetchall()
    return [] if [tuple(r) for r in rows] == [("ok",)] else [f"integrity: {r[0]}" for r in rows]


def _tables(conn: sqlite3.Connection) -> list[str]:
    """Every table the save's schema version promises: one dropped by hand or by a tool fails every read."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    have = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    promised = sqlite3.connect(":memory:")
    try:
        promised.executescript(";\n".join(MIGRATIONS[:version]))
        wanted = [str(row[0]) for row in promised.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                          "ORDER BY name")]
    finally:
        promised.close()
    return [f"tables: {name} is missing" for name in wanted if name not in have]


def _json_columns(conn: sqlite3.Connection) -> list[str]:
    problems: list[str] = []
    tables = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table, key, columns in _JSON_COLUMNS:
        if table not in tables:
            continue  # a save from before the table's migration (checks never migrate a save)
        for column in columns:
            for row in conn.execute(f"SELECT {key}, {column} FROM {table}"):
                if row[1] is None and column in {"world_ir", "before"}:
                    continue
                try:
                    text = unpack(row[1])
                except ValueError:
                    problems.append(f"{table} {row[0]}: {column} is compressed and does not decompress")
                    continue
                try:
                    json.loads(text)  # type: ignore[arg-type]
                except (TypeError, ValueError):
                    problems.append(f"{table} {row[0]}: {column} is not valid JSON")
    return problems


def _rows_decode(conn: sqlite3.Connection) -> list[str]:
    problems: list[str] = []
    node_rows = conn.execute("SELECT id, name, type, aliases, labels, summary, first_seen_turn, last_seen_turn, "
                             "attributes FROM nodes").fetchall()
    for row in node_rows:
        try:
            Node.model_validate({"id": row[0], "name": row[1], "type": row[2], "aliases": json.loads(row[3]),
                                 "labels": json.loads(row[4]), "summary": row[5], "firstSeenTurn": row[6],
                                 "lastSeenTurn": row[7], "attributes": json.loads(row[8])})
        except (ValidationError, TypeError, ValueError) as error:
            problems.append(f"node {row[0]}: {_first_line(error)}")
    edge_rows = conn.execute("SELECT id, source, target, relation, strength, fact, valid_at, invalid_at, evidence "
                             "FROM edges").fetchall()
    for row in edge_rows:
        try:
            Edge.model_validate({"id": row[0], "source": row[1], "target": row[2], "relation": row[3],
                                 "strength": row[4], "fact": row[5], "validAt": row[6], "invalidAt": row[7],
                                 "evidenceTurnIds": json.loads(row[8])})
        except (ValidationError, TypeError, ValueError) as error:
            problems.append(f"edge {row[0]}: {_first_line(error)}")
    dangling = conn.execute("SELECT id FROM edges WHERE source NOT IN (SELECT id FROM nodes) "
                            "OR target NOT IN (SELECT id FROM nodes) LIMIT 20").fetchall()
    problems += [f"edge {row[0]}: points at a node that does not exist" for row in dangling]
    return problems


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


def _scenes(conn: sqlite3.Connection, scene_check: SceneCheck | None) -> list[str]:
    problems: list[str] = []
    try:
        rows = conn.execute("SELECT turn, state FROM scenes ORDER BY turn").fetchall()
    except sqlite3.Error as error:
        return [f"scenes: cannot be checked ({brief(error)})"]
    for turn, state in rows:
        try:
            loaded = json.loads(state)
            if not isinstance(loaded, dict):
                raise ValueError("not a JSON object")
            if scene_check is not None:
                scene_check(loaded)
        except (ValidationError, TypeError, ValueError) as error:
            problems.append(f"scene of turn {turn}: {_first_line(error)}")
    return problems


def _first_line(error: BaseException) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return str(error).splitlines()[0] if str(error) else type(error).__name__
