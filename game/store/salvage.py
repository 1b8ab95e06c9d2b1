"""``kith saves salvage``: copy what can still be read of a damaged save into a new save that opens.

``kith saves check`` names what is wrong; this is the remedy. The damaged save is only ever read (through a
read-only connection). The new save is built under a hidden temporary name with the damaged save's own
schema version (so it migrates on first opening exactly as the original would have), filled table by
table with every row that reads, decodes and obeys the schema, repaired where a rule ties rows together
(two open versions of one relation, a relation whose person is gone, a lost turn), checked with
``check_save`` and only then given its name: a crash or Ctrl-C leaves no half save behind.

Reading is tolerant at three levels: a row that does not decode is left out; a table whose scan dies
midway (corrupt pages) is read on by rowid ranges past the damage; a table that cannot be read at all is
left empty. Everything left out or changed is reported as ``Salvaged`` items.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple

from game.errors import SaveError, SaveNotFound
from game.graph.models import Node
from game.store import decoded
from game.store.check import Models, check_save, format_of_tables, read_row
from game.store.connection import (
    APPLICATION,
    Misnumbered,
    inspect_save,
    now_iso,
    publish,
    read_connection,
    remove_file,
    temporary_name,
)
from game.store.damage import brief
from game.store.graph_repo import name_rows
from game.store.schema import Schema

# Rowid probes after a scan dies: the start moves past the damage by doubling steps, at most this often.
MAX_PROBES = 64
# Rows skipped by the last jump are then asked for one by one, at most this many.
MAX_POINT_READS = 4096
# Derived tables, rebuilt from what survives rather than copied (an index of names, SQLite's counters).
_DERIVED = {"node_names", "sqlite_sequence"}
LOST_TURN = "(This turn was lost when the save was damaged; `kith saves salvage` kept its place.)"


class Salvaged(NamedTuple):
    """One row left out or changed: ``table key: why`` (``action`` is ``left out`` or ``repaired``)."""

    table: str
    key: str
    why: str
    action: str = "left out"

    def __str__(self) -> str:
        return f"{self.table} {self.key}: {self.action} ({self.why})"


class SalvageReport(NamedTuple):
    path: Path
    copied: int
    items: list[Salvaged]


class NothingRescued(SaveError):
    """No new save was written: nothing of the damaged save could be read into one that opens (exit 1)."""


def salvage_save(source: Path, target: Path, schema: Schema, models: Models | None = None) -> SalvageReport:
    """Build ``target`` from what of ``source`` can be read, to ``schema`` (the game's); ``source`` is never
    written."""
    if not source.exists():
        raise SaveNotFound(f"there is no save {source.stem!r} in {source.parent}")
    if target.exists():
        raise SaveError(f"a save named {target.stem!r} already exists; choose another name or delete it first")
    renumbered: list[Salvaged] = []
    try:
        version, _meta = inspect_save(source, schema)
    except Misnumbered as error:
        version, renumbered = _renumbered(source, error, schema)
    except SaveError as error:
        raise NothingRescued(f"nothing could be rescued from {source.stem}: {error.message}") from error
    temporary = temporary_name(target, "salvage")
    remove_file(temporary)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            src = read_connection(source)
        except sqlite3.Error as error:
            raise NothingRescued(f"nothing could be rescued from {source.stem}: {brief(error)}") from error
        try:
            # One read transaction: a game playing NAME meanwhile commits whole turns NEW never half sees.
            src.execute("BEGIN")
            dst = sqlite3.connect(str(temporary), isolation_level=None)
            try:
                dst.executescript(f"BEGIN;\n{';'.join(schema.scripts(version))};\nPRAGMA user_version = {version};\n"
                                  "COMMIT;")
                dst.execute("BEGIN")
                copied, items = _copy_tables(src, dst, models or {})
                items = renumbered + items
                items += _repair(dst, source.stem)
                dst.execute("COMMIT")
            finally:
                dst.close()
        finally:
            src.close()
        problems = check_save(temporary, schema, models)
        if problems:
            raise NothingRescued(f"nothing could be rescued from {source.stem}: what could be read still fails "
                                 f"the checks ({problems[0]})")
        publish(temporary, target)
    except (OSError, sqlite3.Error) as error:
        remove_file(temporary)
        raise NothingRescued(f"{source.stem} could not be salvaged into {target.stem}: {brief(error)}") from error
    except BaseException:
        remove_file(temporary)  # Ctrl-C included: a half-built save never keeps a name
        raise
    return SalvageReport(target, copied, items)


def _renumbered(source: Path, error: Misnumbered, schema: Schema) -> tuple[int, list[Salvaged]]:
    """The format ``source``'s tables were built to, read in spite of its damaged format number."""
    try:
        conn = read_connection(source)
        try:
            number = int(conn.execute("PRAGMA user_version").fetchone()[0])
            version = format_of_tables(conn, schema)
        finally:
            conn.close()
    except (sqlite3.Error, UnicodeDecodeError) as failure:
        raise NothingRescued(f"nothing could be rescued from {source.stem}: {brief(failure)}") from failure
    if version is None:
        raise NothingRescued(f"nothing could be rescued from {source.stem}: {error.message.split('; ')[0]}, and its "
                             "tables are not those of any format this Kith knows")
    return version, [Salvaged("meta", "format", f"its format number was {number}; its tables are format {version}'s, "
                              f"and {source.stem} is read as that", "repaired")]


# ------------------------------------------------------------------------------------------- copying


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]


def _columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, int]]:
    """(name, primary-key position) of each column."""
    return [(str(r[1]), int(r[5])) for r in conn.execute(f'PRAGMA table_info("{table}")')]


def _copy_tables(src: sqlite3.Connection, dst: sqlite3.Connection, models: Models) -> tuple[int, list[Salvaged]]:
    items: list[Salvaged] = []
    copied = 0
    try:
        have = set(_tables(src))
    except sqlite3.Error as error:
        raise NothingRescued(f"its list of tables cannot be read ({brief(error)})") from error
    for table in _tables(dst):
        if table in _DERIVED:
            continue
        if table not in have:
            items.append(Salvaged(table, "*", "the table is missing from the save"))
            continue
        columns = _columns(dst, table)
        try:
            source_columns = {name for name, _ in _columns(src, table)}
            has_rowid = table_has_rowid(src, table)
        except sqlite3.Error as error:
            items.append(Salvaged(table, "*", f"the table cannot be read: {brief(error)}"))
            continue
        names = [name for name, _ in columns if name in source_columns]
        keys = list(decoded.KEYS.get(table, ())) or [name for name, pk in sorted(columns, key=lambda c: c[1]) if pk > 0] or ["rowid"]
        quoted = ", ".join(f'"{n}"' for n in names)
        insert = f'INSERT INTO "{table}" ({quoted}) VALUES ({", ".join("?" for _ in names)})'
        for row, failure in _tolerant_rows(src, table, names, has_rowid):
            key = (":".join(_shown(row[k]) for k in keys) if all(k in row for k in keys)
                   else str(row.get("rowid", "*")))
            if failure is not None:
                items.append(Salvaged(table, key, failure))
                continue
            kept, why, mended = _salvaged(table, row, models)
            if kept is not None:
                try:
                    dst.execute(insert, [kept[n] for n in names])
                    copied += 1
                    items += [Salvaged(table, key, what, "repaired") for what in mended]
                    continue
                except sqlite3.IntegrityError as error:
                    why = f"breaks the schema: {brief(error)}"
            items.append(Salvaged(table, key, why))
    return copied, items


def table_has_rowid(conn: sqlite3.Connection, table: str) -> bool:
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
    return sql is not None and "WITHOUT ROWID" not in str(sql[0]).upper()


def _tolerant_rows(src: sqlite3.Connection, table: str, names: list[str],
                   has_rowid: bool) -> Iterator[tuple[dict[str, Any], str | None]]:
    """Every row that reads, as a dict; a failure as ``(partial row, why)``. Never raises for damage."""
    src.text_factory = decoded.RAW_TEXT
    try:
        yield from _rows(src, table, names, has_rowid)
    finally:
        src.text_factory = str


def _rows(src: sqlite3.Connection, table: str, names: list[str],
          has_rowid: bool) -> Iterator[tuple[dict[str, Any], str | None]]:
    columns = ", ".join(f'"{n}"' for n in names)
    if not has_rowid:
        read: list[tuple[Any, ...]] = []
        failure: str | None = None
        try:
            for raw in src.execute(f'SELECT {columns} FROM "{table}"'):
                read.append(raw)
        except sqlite3.DatabaseError as error:
            failure = f"the rest of the table cannot be read: {brief(error)}"
        yield from (_decoded(names, raw) for raw in read)
        if failure is not None:
            yield {}, failure
        return
    select = f'SELECT rowid, {columns} FROM "{table}" NOT INDEXED'
    good: int | None = None  # the last rowid read
    start: int | None = None  # read on after this rowid (None: from the first)
    damage: str | None = None  # why the current damaged stretch could not be read, until it is reported
    step = 1
    probes = 0
    while True:
        where = "" if start is None else f"WHERE rowid > {start}"
        progress = False
        try:
            for raw in src.execute(f"{select} {where} ORDER BY rowid"):
                if not progress and start is not None:
                    # Jumping past the damage may have jumped over readable rows too: ask for each one.
                    yield from _by_rowid(src, select, names, good or 0, start)
                if damage is not None:
                    yield {"rowid": _after(good)}, f"rows on damaged pages: {damage}"
                    damage = None
                progress = True
                good = int(raw[0])
                row, why = _decoded(names, raw[1:])
                row["rowid"] = good
                yield row, why
            if not progress and start is not None:
                yield from _by_rowid(src, select, names, good or 0, start)
            if damage is not None:
                yield {"rowid": _after(good)}, f"the rest of the table is on damaged pages: {damage}"
            return
        except sqlite3.DatabaseError as error:
            probes += 1
            if progress or start is None:
                step = 1  # a new damaged stretch
                damage = brief(error)
            else:
                step *= 2  # not one row read past the damage: jump further
            if probes >= MAX_PROBES:
                # No scan gets past the damage (the table's root or a branch page): the rows just after
                # the last one read may still be found one by one.
                found = list(_by_rowid(src, select, names, good or 0, (good or 0) + MAX_POINT_READS))
                yield from found
                if good is None and not found:
                    yield {"rowid": "*"}, f"the table cannot be read: {damage}"
                else:
                    yield {"rowid": _after(good)}, f"the rest of the table is on damaged pages: {damage}"
                return
            start = (good or 0) + step


def _after(rowid: int | None) -> str:
    return "from the start" if rowid is None else f"after row {rowid}"


def _by_rowid(src: sqlite3.Connection, select: str, names: list[str], after: int,
              upto: int) -> Iterator[tuple[dict[str, Any], str | None]]:
    """The rows with rowids in (after, upto] that read, one at a time (those on damaged pages raise)."""
    for rowid in range(max(after + 1, upto - MAX_POINT_READS + 1), upto + 1):
        try:
            raw = src.execute(f"{select} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            continue
        if raw is not None:
            row, why = _decoded(names, raw[1:])
            row["rowid"] = rowid
            yield row, why


def _decoded(names: list[str], raw: tuple[Any, ...]) -> tuple[dict[str, Any], str | None]:
    """A row as column -> value as stored (TEXT as ``RawText``): ``_salvaged`` decodes it value by value."""
    return dict(zip(names, raw, strict=True)), None


def _salvaged(table: str, row: dict[str, Any], models: Models) -> tuple[dict[str, Any] | None, str, list[str]]:
    """``row`` as it is copied (None: left out, and why), and what was mended in it.

    A value that does not decode (``game.store.decoded``) is emptied when its column only describes the
    row (``Column.mend``: a relation's evidence, an attitude's history, a memory's tags) and leaves the
    row out otherwise; so does a row that fails its model (a scene, a node)."""
    _values, failures, model = read_row(table, row, models)
    mended: list[str] = []
    if failures:
        columns = decoded.TABLES.get(table, {})
        for column, why in failures:
            mend = columns[column].mend if column in columns else decoded.DROP
            if mend is decoded.DROP:
                return None, f"{column} {why}", []
            row = {**row, column: mend}
            mended.append(f"{column} {_past(why)}: now {'empty' if mend in ('[]', '{}', '', None) else mend}")
        _values, failures, model = read_row(table, row, models)
        if failures:
            return None, f"{failures[0][0]} {failures[0][1]}", []
    if model is not None:
        return None, model, []
    return {name: _stored(value) for name, value in row.items()}, "", mended


def _past(why: str) -> str:
    for now, then in (("is ", "was "), ("holds ", "held ")):
        if why.startswith(now):
            return then + why.removeprefix(now)
    return why


def _shown(value: object) -> str:
    return bytes(value).decode("utf-8", "replace") if isinstance(value, decoded.RawText) else str(value)


def _stored(value: object) -> object:
    """A value as it is written to the new save: text decoded (``_salvaged`` found that it decodes)."""
    return bytes(value).decode("utf-8") if isinstance(value, decoded.RawText) else value


# ------------------------------------------------------------------------------------------- repairs


def _repair(dst: sqlite3.Connection, label: str) -> list[Salvaged]:
    """Tie the copied rows together again: what each rule of ``kith saves check`` needs."""
    items: list[Salvaged] = []
    if dst.execute("SELECT 1 FROM meta WHERE key = 'application'").fetchone() is None:
        dst.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('application', ?)", (APPLICATION,))
        items.append(Salvaged("meta", "application", "restored: the save's mark was lost", "repaired"))
    for (edge_id,) in dst.execute("SELECT id FROM edges WHERE source NOT IN (SELECT id FROM nodes) "
                                  "OR target NOT IN (SELECT id FROM nodes)").fetchall():
        dst.execute("DELETE FROM edges WHERE id = ?", (edge_id,))
        items.append(Salvaged("edges", str(edge_id), "points at a node that was lost"))
    items += _close_open_versions(dst)
    for table, what in (("knowings", "knower"), ("gossip_log", "teller")):
        if table in _tables(dst):
            for edge_id, who in dst.execute(f"SELECT edge_id, {what} FROM {table} "
                                            "WHERE edge_id NOT IN (SELECT id FROM edges)").fetchall():
                dst.execute(f"DELETE FROM {table} WHERE edge_id = ? AND {what} = ?", (edge_id, who))
                items.append(Salvaged(table, f"{edge_id}:{who}", "its relation version was lost"))
    _rebuild_names(dst)
    items += _fill_turns(dst, label)
    return items


def _close_open_versions(dst: sqlite3.Connection) -> list[Salvaged]:
    """Two open versions of one relation: the later stays open, each earlier one ends at its successor's turn."""
    items: list[Salvaged] = []
    groups = dst.execute("SELECT source, target, relation FROM edges WHERE invalid_at IS NULL "
                         "GROUP BY source, target, relation HAVING count(*) > 1").fetchall()
    for source, target, relation in groups:
        versions = dst.execute("SELECT id, valid_at FROM edges WHERE invalid_at IS NULL AND source = ? "
                               "AND target = ? AND relation = ? ORDER BY valid_at, seq",
                               (source, target, relation)).fetchall()
        for (edge_id, _), (_, successor_at) in pairwise(versions):
            dst.execute("UPDATE edges SET invalid_at = ? WHERE id = ?", (successor_at, edge_id))
            items.append(Salvaged("edges", str(edge_id), f"closed at turn {successor_at}: a later version of "
                                  f"{source} -> {target} ({relation}) was open too", "repaired"))
    return items


def _rebuild_names(dst: sqlite3.Connection) -> None:
    """The name index is derived from the nodes: rebuilt from the ones that survived."""
    rows: list[tuple[str, str]] = []
    for raw in dst.execute("SELECT id, name, type, aliases, labels, summary, first_seen_turn, last_seen_turn, "
                           "attributes FROM nodes").fetchall():
        node = Node.model_validate({"id": raw[0], "name": raw[1], "type": raw[2], "aliases": json.loads(raw[3]),
                                    "labels": json.loads(raw[4]), "summary": raw[5], "firstSeenTurn": raw[6],
                                    "lastSeenTurn": raw[7], "attributes": json.loads(raw[8])})
        rows += name_rows(node)
    dst.execute("DELETE FROM node_names")
    dst.executemany("INSERT OR IGNORE INTO node_names (norm, node_id) VALUES (?, ?)", rows)


def _fill_turns(dst: sqlite3.Connection, label: str) -> list[Salvaged]:
    """A lost turn keeps its place (a turn row saying so) and a lost scene is the nearest surviving one.

    Turns must be numbered without gaps and every turn must have a scene: the game counts on both. What
    the lost turn changed in the graph is as the surviving rows left it.
    """
    items: list[Salvaged] = []
    numbers = {int(r[0]) for r in dst.execute("SELECT number FROM turns")}
    scenes = {int(r[0]): str(r[1]) for r in dst.execute("SELECT turn, state FROM scenes")}
    last = max(numbers | set(scenes), default=0)
    if not scenes:
        raise NothingRescued(f"nothing could be rescued from {label}: no scene of the game could be read")
    for number in range(1, last + 1):
        if number not in numbers:
            dst.execute("INSERT INTO turns (number, input, narration, world_ir, npc_context, timings, created_at) "
                        "VALUES (?, '', ?, NULL, '', '{}', ?)", (number, LOST_TURN, now_iso()))
            items.append(Salvaged("turns", str(number), "the turn was lost: kept as an empty turn", "repaired"))
    for turn in range(0, last + 1):
        if turn in scenes:
            continue
        earlier = [t for t in scenes if t < turn]
        near = max(earlier) if earlier else min(scenes)
        dst.execute("INSERT INTO scenes (turn, state) VALUES (?, ?)", (turn, scenes[near]))
        items.append(Salvaged("scenes", str(turn), f"the scene was lost: turn {near}'s scene stands in", "repaired"))
    return items
