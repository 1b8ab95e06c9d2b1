"""Every column of a save and how a reader decodes it: the one table check, salvage, the list and readers share.

SQLite calls a file healthy whose values Kith cannot use (an attitude's history cut short by a byte, a
memory's tags that are not JSON, a number stored as text), and the game then refuses the save. So each
column of each table is described here once, with the decoder that says whether a stored value is usable:

- ``kith saves check`` decodes every value of every row (``game.store.check``);
- ``kith saves salvage`` empties a descriptive column that does not decode (``Column.mend``) or leaves
  the row out, and says which (``game.store.salvage``);
- ``kith saves list`` decodes the tables a game reads whole when it opens (``OPENED``), so a save that
  would be refused is listed as damaged;
- the readers decode their JSON columns with these same functions (``attitude_history`` for an NPC's
  attitude, ``text_list`` for a memory's tags), so what check accepts is what they can read; the graph's
  bulk readers check each row's value types at the read (``node_row``, ``edge_row``, ``knowing_row``).

A test (``tests/test_adversarial_columns.py``) holds this table to the schema the migrations build: a column
a new migration adds fails it until it is described here, so none can be forgotten by one of the four.

Values come in as SQLite gives them: ``str`` (or ``RawText``, the undecoded bytes of a TEXT value, when the
caller reads with ``RAW_TEXT``, so one bad byte costs one value instead of the whole scan), ``bytes`` for a
BLOB, ``int``, ``float`` or ``None``. Nothing here imports pydantic or aiosqlite: ``saves list`` is light.
The models (a scene, a node, a composed context) are checked on top by ``game.store.check``.
"""

from __future__ import annotations

import contextlib
import json
import math
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import sqlite3


class Undecodable(ValueError):
    """A stored value no reader can use; the message completes "COLUMN ..." (``is not valid JSON``)."""


@contextlib.contextmanager
def naming(table: str, column: str) -> Iterator[None]:
    """For a reader: a value that does not decode says where it is (``attitudes.history is not valid JSON``)."""
    try:
        yield
    except Undecodable as error:
        raise Undecodable(f"{table}.{column} {error}") from None


class RawText(bytes):
    """A TEXT value as SQLite stored it (a connection's ``text_factory``), decoded value by value."""


RAW_TEXT = RawText
"""The ``text_factory`` for a connection whose values are decoded here: bad UTF-8 costs one value."""

Decode = Callable[[object, Mapping[str, object]], object]
"""A stored value (and its whole row, for the columns whose meaning depends on another) to what readers
get, or ``Undecodable``."""


class _Drop:
    def __repr__(self) -> str:
        return "DROP"


DROP: Any = _Drop()
"""``Column.mend`` of a column that makes its row: a row whose value does not decode is left out."""


class Column(NamedTuple):
    """How one column is read. ``kind`` says what it holds (``text``, ``integer``, ``real``, ``json``: JSON
    text, ``packed``: JSON text, compressed in a BLOB); ``mend`` is what salvage writes instead of a value
    that does not decode (a descriptive column emptied), or ``DROP``."""

    kind: str
    decode: Decode
    mend: object = DROP
    fine: frozenset[object] = frozenset()
    """Stored values known to decode (the empty list or object nearly every row holds): skipped by
    ``problems``, which only asks whether a value decodes."""


# ------------------------------------------------------------------------------------------- scalars


def _what(value: object) -> str:
    if value is None:
        return "nothing (NULL)"
    if isinstance(value, RawText | str):
        return "text"
    if isinstance(value, bytes):
        return "bytes"
    return "a number" if isinstance(value, int | float) else type(value).__name__


def as_text(value: object) -> str:
    """A TEXT value as text; bytes that are not UTF-8 (``RawText``) or a value of another type fail."""
    if isinstance(value, RawText):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise Undecodable("is not valid text (not UTF-8)") from None
    if isinstance(value, str):
        return value
    raise Undecodable(f"holds {_what(value)}, not text")


def integer(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise Undecodable(f"holds {_what(value)}, not a whole number")


def count(value: object) -> int:
    """A count of times (a memory's recalls): a whole number, never below 0 (readers divide by ``1 + uses``)."""
    number = integer(value)
    if number < 0:
        raise Undecodable(f"is {number}, and a count is never below 0")
    return number


def real(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value):
        return float(value)
    raise Undecodable(f"holds {_what(value)}, not a number")


# ------------------------------------------------------------------------------------------- JSON


def json_value(value: object) -> Any:
    """A JSON column's value (text, or ``RawText``)."""
    text = as_text(value)
    try:
        return json.loads(text)
    except ValueError:
        raise Undecodable("is not valid JSON") from None


def packed_value(value: object) -> Any:
    """A ``BLOB`` column's JSON: zlib-compressed text (``game.store.packed``), or plain text from before."""
    if isinstance(value, bytes) and not isinstance(value, RawText):
        try:
            value = zlib.decompress(value).decode("utf-8")
        except (zlib.error, UnicodeDecodeError):
            raise Undecodable("is compressed and does not decompress") from None
    return json_value(value)


def json_object(value: object) -> dict[str, Any]:
    loaded = json_value(value)
    if not isinstance(loaded, dict):
        raise Undecodable("is not a JSON object")
    return loaded


def text_list(value: object) -> list[str]:
    """A list of texts: a node's aliases and labels, a relation's evidence, a memory's tags."""
    loaded = json_value(value)
    if not isinstance(loaded, list) or not all(isinstance(item, str) for item in loaded):
        raise Undecodable("is not a JSON list of texts")
    return loaded


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


HISTORY_FIELDS = ("turn", "trust", "respect", "friendliness")


def attitude_history(value: object) -> list[dict[str, Any]]:
    """An attitude's changes (``game.features.attitudes.model``): each a turn, the three values after it, a reason."""
    loaded = json_value(value)
    if not isinstance(loaded, list) or not all(
            isinstance(change, dict) and all(_number(change.get(key)) for key in HISTORY_FIELDS)
            and isinstance(change.get("reason"), str) for change in loaded):
        raise Undecodable("is not a list of changes (turn, trust, respect, friendliness, reason)")
    return loaded


def counts(value: object) -> dict[str, int | float]:
    """A telling's token usage by step."""
    loaded = json_object(value)
    if not all(_number(count) for count in loaded.values()):
        raise Undecodable("is not a JSON object of counts")
    return loaded


_RECORD = {"input": str, "narration": str, "timings": dict}
_WRITES = ("nodes", "edges", "knowings", "createdNodes", "createdEdges")


def telling(value: object) -> dict[str, Any]:
    """A telling of a turn (``game.features.tellings.store.encode``), in either form: its shape.

    Whether its nodes and relations are valid is ``game.store.check``'s (the graph's models); whether a
    delta applies to its base is the telling's reader's, which gives the damaged-save message if not."""
    data = packed_value(value)
    problem = _telling_problem(data)
    if problem:
        raise Undecodable(f"is not a telling ({problem})")
    return dict(data)


def _telling_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "not a JSON object"
    record, writes = data.get("record"), data.get("writes")
    if not isinstance(record, dict) or any(not isinstance(record.get(k), t) for k, t in _RECORD.items()):
        return "its turn's input, narration or timings are missing"
    if not isinstance(writes, dict) or any(not isinstance(writes.get(k), list) for k in _WRITES):
        return "its graph writes are missing"
    if any(not isinstance(item, dict) for k in ("nodes", "edges", "knowings") for item in writes[k]):
        return "a graph write is not an object"
    if not isinstance(data.get("scene"), dict) and "sceneDelta" not in data:
        return "its scene is missing"
    told, rows = data.get("told"), data.get("rows")
    if not isinstance(told, list) or not all(isinstance(t, dict) for t in told):
        return "its gossip is not a list"
    if not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("table"), str) and isinstance(r.get("key"), dict)
            and ("same" in r or "contextDelta" in r or r.get("row") is None or isinstance(r.get("row"), dict))
            for r in rows):
        return "its rows are not rows"
    return None


# ------------------------------------------------------------------------------------------- columns


def _each(decode: Callable[[object], object], *, nullable: bool = False) -> Decode:
    def column(value: object, _row: Mapping[str, object]) -> object:
        return None if nullable and value is None else decode(value)

    return column


def _text(*, nullable: bool = False) -> Column:
    return Column("text", _each(as_text, nullable=nullable))


def _integer(*, nullable: bool = False) -> Column:
    return Column("integer", _each(integer, nullable=nullable))


def _real() -> Column:
    return Column("real", _each(real))


_EMPTY: dict[Callable[[object], object], str] = {}


def _json(decode: Callable[[object], object], mend: object = DROP, *, nullable: bool = False) -> Column:
    empty = _EMPTY.get(decode)
    fine = frozenset() if empty is None else frozenset({empty, RawText(empty.encode())})
    return Column("json", _each(decode, nullable=nullable), mend, fine)


META_JSON = ("vocabulary", "metapaths")
"""Settings kept as JSON lists in ``meta`` (the world's vocabulary and meta-paths, rewritten when it opens)."""


def _peer(row: Mapping[str, object], name: str) -> str:
    """Another column of the row, as text ("" when it does not decode: that column reports itself)."""
    try:
        return as_text(row.get(name))
    except Undecodable:
        return ""


def _meta_value(value: object, row: Mapping[str, object]) -> object:
    text = as_text(value)
    if _peer(row, "key") in META_JSON and not isinstance(json_value(text), list):
        raise Undecodable("is not a JSON list")
    return text


ROW_PREFIX = "row:"  # ``game.store.journal.ROW_KIND_PREFIX``


def _journal_key(value: object, row: Mapping[str, object]) -> object:
    text = as_text(value)
    kind = _peer(row, "kind")
    if kind.startswith(ROW_PREFIX):
        json_object(text)
    elif kind == "gossip":
        parts = text.split("|", 3)
        if len(parts) != 4 or not parts[0].lstrip("-").isdigit():
            raise Undecodable("is not a gossip key (turn|teller|listener|relation)")
    elif kind == "knowing" and "|" not in text:
        raise Undecodable("is not a knower key (relation|knower)")
    return text


def _journal_before(value: object, row: Mapping[str, object]) -> object:
    """A before-image: the row a turn changed, as it was. A feature's row is decoded column by column,
    as the table's own rows are, since undo puts it back into that table."""
    if value is None:
        return None
    kind = _peer(row, "kind")
    if not kind.startswith(ROW_PREFIX):
        return json_object(value) if kind in ("node", "edge", "knowing") else as_text(value)
    image = json_object(value)
    table = TABLES.get(kind.removeprefix(ROW_PREFIX))
    if table is None:
        return image
    import base64
    import binascii

    try:
        values = {name: base64.b64decode(item["base64"]) if isinstance(item, dict) else item
                  for name, item in image.items()}  # ``game.store.journal.decode_row``
    except (KeyError, TypeError, binascii.Error):
        raise Undecodable("holds a compressed value that is not base64") from None
    for name, item in values.items():
        column = table.get(name)
        if column is not None:
            try:
                column.decode(item, values)
            except Undecodable as error:
                raise Undecodable(f"holds a row whose {name} {error}") from None
    return values


def _choice(*allowed: str) -> Column:
    def decode(value: object) -> str:
        text = as_text(value)
        if text not in allowed:
            raise Undecodable(f"is {text[:40]!r}, not one of {', '.join(allowed)}")
        return text

    return Column("text", _each(decode))


_EMPTY.update({text_list: "[]", attitude_history: "[]", json_object: "{}", counts: "{}"})

TABLES: dict[str, dict[str, Column]] = {
    "meta": {"key": _text(), "value": Column("text", _meta_value, "[]")},
    "nodes": {
        "id": _text(), "name": _text(), "type": _choice("individual", "group", "faction"),
        "aliases": _json(text_list, "[]"), "labels": _json(text_list, "[]"), "summary": _text(),
        "first_seen_turn": _integer(), "last_seen_turn": _integer(), "attributes": _json(json_object, "{}"),
    },
    "node_names": {"norm": _text(), "node_id": _text()},
    "edges": {
        "seq": _integer(), "id": _text(), "source": _text(), "target": _text(), "relation": _text(),
        "strength": _real(), "fact": _text(), "valid_at": _integer(), "invalid_at": _integer(nullable=True),
        "evidence": _json(text_list, "[]"),
    },
    "merges": {
        "id": _integer(), "kept_id": _text(), "merged_id": _text(), "merged_name": _text(), "strategy": _text(),
        "evidence": _text(), "turn": _integer(), "at": _text(),
    },
    "turns": {
        "number": _integer(), "input": _text(), "narration": _text(),
        "world_ir": _json(json_object, None, nullable=True), "npc_context": _text(),
        "timings": _json(json_object, "{}"), "extracted": _integer(), "created_at": _text(),
        "recovered_at": _integer(nullable=True), "extraction": _text(),
    },
    "scenes": {"turn": _integer(), "state": _json(json_object)},
    "journal": {
        "id": _integer(), "turn": _integer(), "kind": _text(), "key": Column("text", _journal_key),
        "before": Column("json", _journal_before),
    },
    "layout": {"node_id": _text(), "x": _real(), "y": _real()},
    "knowings": {
        "edge_id": _text(), "knower": _text(), "how": _choice("authored", "witnessed", "told", "rumour"),
        "source": _text(nullable=True), "confidence": _real(), "since_turn": _integer(),
    },
    "gossip_log": {"turn": _integer(), "teller": _text(), "listener": _text(), "edge_id": _text(),
                   "confidence": _real()},
    "turn_context": {"turn": _integer(), "context": Column("packed", _each(packed_value))},
    "attitudes": {
        "npc_id": _text(), "name": _text(), "trust": _real(), "respect": _real(), "friendliness": _real(),
        "history": _json(attitude_history, "[]"),
    },
    "npc_memories": {
        "npc": _text(), "seq": _integer(), "kind": _choice("episodic", "semantic"), "text": _text(),
        "turn": _integer(), "importance": _real(), "valence": _real(), "tags": _json(text_list, "[]"),
        "strength": _real(), "last_used": _integer(), "uses": Column("integer", _each(count), 0), "heard": _integer(), "about": _text(),
    },
    "npc_said": {"npc": _text(), "key": _text(), "turn": _integer()},
    "metapath_patterns": {"first": _text(), "second": _text(), "weight": _real(), "yield": _integer(),
                          "novelty": _real(), "turn": _integer()},
    "swipes": {
        "turn": _integer(), "idx": _integer(), "kind": _text(), "parent": _integer(nullable=True),
        "kept": _integer(), "payload": Column("packed", _each(telling)), "prompt_tokens": _integer(),
        "completion_tokens": _integer(), "usage": _json(counts, "{}"),
    },
    "notes": {"name": _text(), "text": _text()},
    "undo_steps": {"seq": _integer(), "turn": _integer(), "kind": _text(), "data": _json(json_object)},
    "pending_identities": {
        "id": _text(), "turn": _integer(), "new_id": _text(), "new_name": _text(), "candidate_id": _text(),
        "candidate_name": _text(), "confidence": _real(), "evidence": _text(),
        "status": _choice("open", "same", "different"), "asked_turn": _integer(nullable=True),
        "resolved_turn": _integer(nullable=True), "resolution": _text(nullable=True),
    },
    "deeds": {
        "id": _text(), "turn": _integer(), "actor": _text(), "act": _text(), "target": _text(),
        "target_kind": _choice("person", "item", "place"), "place": _text(),
        "valence": _choice("kind", "harmful", "neutral"), "witnesses": _json(text_list, "[]"), "sentence": _text(),
        "thing": _text(),
    },
    "deed_knowers": {
        "deed_id": _text(), "knower": _text(), "how": _choice("seen", "told", "rumour"),
        "source": _text(nullable=True), "confidence": _real(), "since_turn": _integer(),
    },
}
"""Every table of the current schema, every column, in table order."""

OPENED = frozenset({"meta", "nodes", "merges", "attitudes", "npc_memories", "npc_said", "pending_identities", "notes",
                    "gossip_log", "metapath_patterns", "deeds", "deed_knowers"})
"""Tables a game reads whole when it opens (with the current scene and the last turns, which ``saves list``
reads too): a value of these that does not decode refuses the game, so the list marks the save damaged."""

KEYS: dict[str, tuple[str, ...]] = {"edges": ("id",)}
"""The columns a player knows a row by, where they are not its primary key (a relation version by its ID)."""


def problems(table: str, row: Mapping[str, object]) -> list[tuple[str, str]]:
    """``(column, why)`` for each value of ``row`` (a row of ``table``) that does not decode."""
    columns = TABLES.get(table, {})
    found: list[tuple[str, str]] = []
    for name, value in row.items():
        column = columns.get(name)
        if column is None or value in column.fine:
            continue
        try:
            column.decode(value, row)
        except Undecodable as error:
            found.append((name, str(error)))
    return found


# ------------------------------------------------------------------------------------------- reading


def key_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The columns a row of ``table`` is named by in a message: its key (``rowid`` when it has none)."""
    if table in KEYS:
        return list(KEYS[table])
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    return [str(r[1]) for r in sorted((r for r in info if r[5]), key=lambda r: r[5])] or ["rowid"]


def shown(value: object) -> str:
    """A stored value as a message shows it (bytes that are not UTF-8 replaced)."""
    return bytes(value).decode("utf-8", "replace") if isinstance(value, RawText) else str(value)


def key_text(key: tuple[object, ...]) -> str:
    """A row's key as a message names the row (``swipes 1:0``)."""
    return ":".join(shown(value) for value in key)


def rows_of(conn: sqlite3.Connection, table: str, where: str = "") -> Iterator[tuple[dict[str, object],
                                                                                  tuple[object, ...]]]:
    """Each row of ``table`` (``where`` chooses) as column -> value as stored, TEXT as ``RawText``, with the
    values of its key (``key_text`` says them: only a row with a problem needs them said)."""
    keys = key_columns(conn, table)
    names = [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')]
    extra = [k for k in keys if k not in names]  # ``rowid``
    at = [names.index(k) if k in names else len(names) + extra.index(k) for k in keys]
    quoted = ", ".join([*(f'"{n}"' for n in names), *extra])
    width = len(names)
    cursor = conn.cursor()
    cursor.row_factory = None
    conn.text_factory = RAW_TEXT
    try:
        for raw in cursor.execute(f'SELECT {quoted} FROM "{table}" {where}'):
            yield dict(zip(names, raw[:width] if extra else raw, strict=True)), tuple(raw[i] for i in at)
    finally:
        conn.text_factory = str
        cursor.close()


def opening_problem(conn: sqlite3.Connection) -> str | None:
    """The first value a game opening this save would fail to decode (``OPENED``, every turn's row and the
    current scene), as ``table key: column why``; None when there is none. For ``kith saves list``."""
    present = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    reads = [(table, "") for table in sorted(OPENED & present)]
    reads += [("turns", ""), ("scenes", "WHERE turn = (SELECT max(turn) FROM scenes)")]
    for table, where in reads:
        if table not in present:
            continue
        for row, key in rows_of(conn, table, where):
            for column, why in problems(table, row):
                return f"{table} {key_text(key)}: {column} {why}"
    return None


# ------------------------------------------------------------------------------------------- graph rows
# The graph's rows are read in bulk and trusted for speed (``graph_repo``, ``graph_view``); one value of a
# type Kith never writes (a BLOB for a name, NULL for an ID, JSON of another shape) then failed far from
# the read (a sort, ``json.dumps``, ``.get``) as a traceback. One comparison of the row's value types,
# and the JSON decoders above, keep the read as fast and make such a row damage, named by column.

NODE_COLUMNS = ("id", "name", "type", "aliases", "labels", "summary", "first_seen_turn", "last_seen_turn",
                "attributes")
EDGE_COLUMNS = ("id", "source", "target", "relation", "strength", "fact", "valid_at", "invalid_at", "evidence")
KNOWING_COLUMNS = ("edge_id", "knower", "how", "source", "confidence", "since_turn")
_NONE: type = type(None)
_NODE_TYPES: frozenset[tuple[type, ...]] = frozenset({(str, str, str, str, str, str, int, int, str)})
_EDGE_TYPES: frozenset[tuple[type, ...]] = frozenset({(str, str, str, str, float, str, int, int, str),
                                                    (str, str, str, str, float, str, int, _NONE, str)})
_KNOWING_TYPES: frozenset[tuple[type, ...]] = frozenset({(str, str, str, str, float, int), (str, str, str, _NONE, float, int)})


def _refused(table: str, names: tuple[str, ...], row: Sequence[object]) -> Undecodable | None:
    """The first value of ``row`` that does not decode, as ``TABLE.COLUMN why`` (None: every one does)."""
    found = problems(table, dict(zip(names, row, strict=False)))
    return Undecodable(f"{table}.{found[0][0]} {found[0][1]}") if found else None


def _typed(table: str, names: tuple[str, ...], shapes: frozenset[tuple[type, ...]], row: Sequence[object]) -> None:
    if tuple(map(type, row)) not in shapes:
        refused = _refused(table, names, row)
        if refused is not None:
            raise refused


def require(table: str, names: Sequence[str], row: Sequence[object]) -> None:
    """Refuse a row of ``table`` (its ``names`` columns, in order) with a value that does not decode: for
    readers of rows few enough to decode whole (the turns), where a wrong type would fail far away."""
    found = problems(table, dict(zip(names, row, strict=True)))
    if found:
        raise Undecodable(f"{table}.{found[0][0]} {found[0][1]}")


def node_row(row: Sequence[object]) -> tuple[list[str], list[str], dict[str, Any]]:
    """A ``nodes`` row (``NODE_COLUMNS``) checked, and its aliases, labels and attributes decoded."""
    _typed("nodes", NODE_COLUMNS, _NODE_TYPES, row)
    try:  # most nodes have no aliases, labels or attributes: their empty JSON is not decoded
        return ([] if row[3] == "[]" else text_list(row[3]), [] if row[4] == "[]" else text_list(row[4]),
                {} if row[8] == "{}" else json_object(row[8]))
    except Undecodable as error:
        raise _refused("nodes", NODE_COLUMNS, row) or error from None


def edge_row(row: Sequence[object]) -> list[str]:
    """An ``edges`` row (``EDGE_COLUMNS``) checked, and its evidence decoded."""
    _typed("edges", EDGE_COLUMNS, _EDGE_TYPES, row)
    raw = str(row[8])
    # Evidence lists are nearly always one ``turn-N``: that shape is read without the JSON decoder.
    if raw.startswith('["turn-') and raw.endswith('"]') and '"' not in raw[2:-2] and "\\" not in raw:
        return [raw[2:-2]]
    try:
        return text_list(raw)
    except Undecodable as error:
        raise _refused("edges", EDGE_COLUMNS, row) or error from None


def knowing_row(row: Sequence[object]) -> None:
    """Refuse a ``knowings`` row (``KNOWING_COLUMNS``) holding a value of a type Kith never writes."""
    _typed("knowings", KNOWING_COLUMNS, _KNOWING_TYPES, row)
