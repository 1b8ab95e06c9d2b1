"""The ``swipes`` table: every telling of a turn, each enough to write again (the tellings feature's SQL).

Every turn a session commits leaves one ``swipes`` row (telling 0, kept): its turn row, graph writes,
scene, logged exchanges and the features' rows as JSON, and the tokens it cost. What a telling shares is stored
once (``encode``): the kept telling leaves its scene and contexts to the turn's own rows, and every other
telling stores only how its scene, NPC context and rows differ from the kept one's. Telling the turn again (retry,
continue, an edit) adds a telling; keeping another one is ONE transaction: the journal undoes the
turn (``undo.undo_turn``: the graph as it was before it) and the kept telling's writes are
written as the turn, journaled afresh. So the graph only ever holds the kept telling's extraction,
and ``undo`` still takes the whole turn back: these rows are themselves journaled rows of the turn.

Rows a player changed during the turn after it was told (the tables of the features that keep the
player's own words, ``Feature.across_tellings``: the Memory and Author's note; the undo steps of
``game.store.undo_steps``) are
carried across the swap: written again after the undo, so the journal keeps their state from
before the turn and the swap never loses them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import aiosqlite
import orjson

from game.features.retelling import ToldTurn
from game.features.tellings import delta as telling_delta
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.ports import GraphWrites
from game.mind.context import CONTEXT_TABLE
from game.store import journal, told_log, turn_log, undo
from game.store.damage import READ_ERRORS, damaged
from game.store.database import SaveDatabase, TurnRecord
from game.store.packed import json_text, unpack, unpack_text
from game.store.rows import RowWrite, read_rows
from game.store.told_log import Told
from game.store.undo_steps import STEPS, steps_of

SWIPES = "swipes"
TELLING_ERRORS: tuple[type[Exception], ...] = (*READ_ERRORS, KeyError)
"""What reading a damaged telling raises: SQLite's errors, undecodable JSON or models, a missing field."""
MAX_TELLINGS = 20
"""Tellings kept per turn: enough to choose among, few enough that a save does not balloon."""
TELLING_STEP = "telling"
"""The undo step an edit or a continuation leaves: back to the telling it came from."""
OLD_TELLING_STEPS = ("alternative",)
"""What saves written before the word was "telling" call that step; they still undo."""


@dataclass(frozen=True)
class KeptTelling:
    """One told version of a turn, as stored."""

    turn: int
    index: int
    kind: str
    """``told`` (the first telling), ``retry``, ``continue``, ``edit`` or ``edit-input``."""
    parent: int | None
    kept: bool
    record: TurnRecord
    writes: GraphWrites
    scene: dict[str, Any]
    told: tuple[Told, ...] = ()
    rows: tuple[RowWrite, ...] = ()
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def prompt_tokens(self) -> int:
        return sum(v for k, v in self.usage.items() if k.endswith(".prompt_tokens"))

    @property
    def completion_tokens(self) -> int:
        return sum(v for k, v in self.usage.items() if k.endswith(".completion_tokens"))

    def row(self, base: KeptTelling) -> RowWrite:
        """This telling as its ``swipes`` row, written beside ``base``, the turn's kept telling (this
        one when it is kept): what it shares with ``base`` is stored once (``encode``)."""
        key = {"turn": self.turn, "idx": self.index}
        return RowWrite(SWIPES, key, {**key, "kind": self.kind, "parent": self.parent, "kept": int(self.kept),
                                      "payload": encode(self, base), "prompt_tokens": self.prompt_tokens,
                                      "completion_tokens": self.completion_tokens,
                                      "usage": json.dumps(self.usage, sort_keys=True)})


def telling_of(told: ToldTurn, index: int, kind: str, parent: int | None = None) -> KeptTelling:
    """A committed turn as its telling ``index`` (kept)."""
    return KeptTelling(told.record.number, index, kind, parent, True, told.record, told.writes, told.scene,
                       told.told, told.rows, dict(told.usage))


def first_row(told: ToldTurn) -> RowWrite:
    """The ``swipes`` row every committed turn leaves: its first telling, kept."""
    first = telling_of(told, 0, "story" if told.story else "told")
    return first.row(first)


FORM = 2
"""The payload form that stores a telling's scene and context once (``encode``). A payload without it
(the first form, every telling whole) still reads: ``decode`` takes both."""
SHARED_TABLES = (CONTEXT_TABLE,)
"""Tables whose row the kept telling leaves to the save (its row there is the telling's, column for
column, and nothing but the turn writes it): the composed context, ~9 KB of JSON a turn."""


def encode(alt: KeptTelling, base: KeptTelling) -> str:
    """The turn an telling tells, as JSON: enough to write it again exactly, with what it shares with
    ``base`` (the turn's kept telling, whose scene, context and rows the save holds) stored once.

    The kept telling (``alt.kept``; ``base`` is then the same telling) keeps no scene (the turn's scene
    row is it), no NPC context (the turn row's) and no composed context (the ``turn_context`` row). Any
    other keeps its scene as a delta against ``base``'s, its NPC context only when it differs, and each
    row equal to ``base``'s row of the same key as a reference."""
    r, w = alt.record, alt.writes
    record: dict[str, Any] = {"input": r.input, "narration": r.narration, "worldIR": r.world_ir,
                              "timings": r.timings, "extracted": r.extracted}
    if r.npc_context != base.record.npc_context:
        record["npcContext"] = r.npc_context
    data: dict[str, Any] = {"form": FORM, "record": record, "writes": {
        "nodes": [n.to_json_dict() for n in w.nodes.values()],
        "edges": [e.to_json_dict() for e in w.edges.values()],
        "createdNodes": sorted(w.created_nodes), "createdEdges": sorted(w.created_edges),
        "knowings": [k.to_json_dict() for k in w.knowings.values()]}}
    change = {} if alt.kept else telling_delta.delta(base.scene, alt.scene)
    if change is None:
        data["scene"] = alt.scene
    else:
        data["sceneDelta"] = change
    data["told"] = [asdict(t) for t in alt.told]
    data["rows"] = [_row_entry(row, base, alt.kept) for row in alt.rows]
    return json_text(data)


def _row_key(table: str, key: Mapping[str, Any]) -> tuple[str, str]:
    return table, json.dumps(dict(key), sort_keys=True)


def _row_entry(row: RowWrite, base: KeptTelling, kept: bool) -> dict[str, Any]:
    whole = {"table": row.table, "key": dict(row.key), "row": None if row.row is None else dict(row.row)}
    if kept:  # the save holds the row as it is: a shared table's row, written as exactly these columns
        if row.table in SHARED_TABLES and row.row is not None and _shared_shape(row.key, row.row):
            return {"table": row.table, "key": dict(row.key), "same": 1}
        return whole
    same = next((b for b in base.rows if _row_key(b.table, b.key) == _row_key(row.table, row.key)), None)
    if same is None or same.row is None or row.row is None:
        return whole
    if json_text(same.row) == json_text(row.row):
        return {"table": row.table, "key": dict(row.key), "same": 1}
    if row.table in SHARED_TABLES and _shared_shape(row.key, row.row) and _shared_shape(same.key, same.row):
        # Another telling's composed context differs from the kept one's in little (its timings): a delta.
        change = telling_delta.delta(_loads(str(same.row["context"])), _loads(str(row.row["context"])))
        if change is not None:
            return {"table": row.table, "key": dict(row.key), "contextDelta": change}
    return whole


def _shared_shape(key: Mapping[str, Any], row: Mapping[str, Any]) -> bool:
    """A ``turn_context`` row that reads back from the save as the very same dict: ``turn`` then ``context``."""
    return (list(row) == ["turn", "context"] and dict(key) == {"turn": row["turn"]}
            and type(row["turn"]) is int and isinstance(row["context"], str))


@dataclass(frozen=True)
class _Base:
    """What a telling's payload may leave out: the scene, NPC context and rows it shares with its base."""

    scene: Callable[[], dict[str, Any]]
    npc_context: Callable[[], str]
    rows: Callable[[str, dict[str, Any]], dict[str, Any] | None]


def _of(alt: KeptTelling) -> _Base:
    rows = {_row_key(r.table, r.key): r.row for r in alt.rows}

    def row(table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        found = rows[_row_key(table, key)]  # KeyError: a damaged telling
        return None if found is None else dict(found)

    # A fresh copy of the scene for each telling read against it (``telling_delta.apply`` shares values).
    return _Base(lambda: _fresh(alt.scene), lambda: alt.record.npc_context, row)


def decode(turn: int, index: int, kind: str, parent: int | None, kept: bool, payload: str | dict[str, Any],
           usage: Mapping[str, int], base: _Base | None = None) -> KeptTelling:
    """A ``swipes`` row as its telling: ``payload`` in either form; ``base`` gives what a payload of
    the second form left out (the save's turn for the kept telling, the kept telling for another)."""
    data = json.loads(payload) if isinstance(payload, str) else payload
    shared = base if base is not None else _NO_BASE
    r, w = data["record"], data["writes"]
    npc = r["npcContext"] if "npcContext" in r else shared.npc_context()
    record = TurnRecord(number=turn, input=r["input"], narration=r["narration"], npc_context=npc,
                        world_ir=r["worldIR"], timings=r["timings"], extracted=r["extracted"])
    nodes = [Node.model_validate(n) for n in w["nodes"]]
    edges = [Edge.model_validate(e) for e in w["edges"]]
    knowings = [Knowing.model_validate(k) for k in w["knowings"]]
    writes = GraphWrites({n.id: n for n in nodes}, {e.id: e for e in edges}, set(w["createdNodes"]),
                         set(w["createdEdges"]), {k.key: k for k in knowings})
    told = tuple(Told(**t) for t in data["told"])
    rows = tuple(RowWrite(x["table"], x["key"], _row_of(x, shared)) for x in data["rows"])
    scene = data["scene"] if "scene" in data else telling_delta.apply(shared.scene(), data["sceneDelta"])
    return KeptTelling(turn, index, kind, parent, kept, record, writes, scene, told, rows, dict(usage))


def _row_of(entry: dict[str, Any], shared: _Base) -> dict[str, Any] | None:
    """A row a telling wrote: stored whole, the same as its base's, or its context changed from the base's."""
    if entry.get("same"):
        return shared.rows(entry["table"], entry["key"])
    if "contextDelta" in entry:
        row = shared.rows(entry["table"], entry["key"])
        if row is None or entry["table"] not in SHARED_TABLES:
            raise KeyError("a telling's context delta has no context to change")
        context = telling_delta.apply(_loads(str(row["context"])), entry["contextDelta"])
        return {"turn": row["turn"], "context": json_text(context)}
    row = entry["row"]
    return None if row is None else dict(row)


def _loads(text: str) -> Any:
    """JSON text as values: orjson (a context is ~9 KB, read at every flip), or ``json`` for what orjson
    refuses and ``json_text`` may have written (an integer beyond 64 bits, a NaN)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _fresh(scene: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON object sharing nothing with it (a JSON round trip: several times faster than deepcopy)."""
    copied = _loads(json_text(scene))
    if not isinstance(copied, dict):
        raise ValueError("a telling's scene is not a JSON object")
    return copied


def _missing(*_: object) -> Any:
    raise KeyError("a telling refers to a kept telling this turn does not have")


_NO_BASE = _Base(_missing, _missing, _missing)


async def tellings_of(db: SaveDatabase, turn: int) -> list[KeptTelling]:
    """Every telling of ``turn``, by index (none for a turn told before tellings were kept).

    The kept telling is read first (what it left out from the save's turn), then the others (what they
    left out from it). A telling that no longer decodes (a damaged save) is one ``SaveError`` naming the save."""
    try:
        rows = await db.conn.execute_fetchall(
            f"SELECT idx, kind, parent, kept, payload, usage FROM {SWIPES} WHERE turn = ? ORDER BY idx", (turn,))
        loaded = [(int(r[0]), str(r[1]), None if r[2] is None else int(r[2]), bool(r[3]),
                   json.loads(unpack_text(r[4])), json.loads(r[5])) for r in rows]
        found: dict[int, KeptTelling] = {}
        base: _Base | None = None
        for idx, kind, parent, kept, data, usage in loaded:
            if kept and base is None:
                alt = decode(turn, idx, kind, parent, kept, data, usage, await _saved_base(db, turn, data))
                found[idx] = alt
                base = _of(alt)
        for idx, kind, parent, kept, data, usage in loaded:
            if idx not in found:
                found[idx] = decode(turn, idx, kind, parent, kept, data, usage, base)
        return [found[idx] for idx, *_ in loaded]
    except TELLING_ERRORS as error:
        raise damaged(db.name, error) from error


async def _saved_base(db: SaveDatabase, turn: int, data: dict[str, Any]) -> _Base:
    """What the kept telling's payload left to the save: the turn's scene, its NPC context, its shared
    rows. Only what the payload refers to is read (a payload of the first form refers to nothing)."""
    conn = db.conn
    scene: dict[str, Any] | None = None
    if "sceneDelta" in data:
        scene = await turn_log.scene_at(db, turn)
        if scene is None:
            raise KeyError(f"the scene of turn {turn}")
    npc: str | None = None
    if "npcContext" not in data["record"]:
        found = await conn.execute_fetchall("SELECT npc_context FROM turns WHERE number = ?", (turn,))
        npc = next((str(r[0]) for r in found), None)
        if npc is None:
            raise KeyError(f"the row of turn {turn}")
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in data["rows"]:
        if not entry.get("same"):
            continue
        table, key = entry["table"], entry["key"]
        if table not in SHARED_TABLES or not isinstance(key, dict) or set(key) != {"turn"}:
            raise ValueError(f"a kept telling refers to a row of {table!r} the save does not share")
        found = await conn.execute_fetchall(f'SELECT turn, context FROM "{table}" WHERE turn = ?', (key["turn"],))
        for saved in found:
            rows[_row_key(table, key)] = {"turn": int(saved[0]), "context": unpack_text(saved[1])}

    def shared_row(table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        return dict(rows[_row_key(table, key)])  # KeyError: the shared row is gone (a damaged save)

    return _Base(lambda: _fresh(scene) if scene is not None else _missing(),
                 lambda: npc if npc is not None else _missing(), shared_row)


async def kept_usage(conn: aiosqlite.Connection, turn: int) -> dict[str, int]:
    """The tokens the kept telling of ``turn`` cost, by step (empty when none were counted)."""
    rows = await conn.execute_fetchall(f"SELECT usage FROM {SWIPES} WHERE turn = ? AND kept = 1", (turn,))
    for row in rows:
        loaded = json.loads(row[0])
        return {str(k): int(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
    return {}


async def total_tokens(conn: aiosqlite.Connection) -> dict[str, int]:
    """Tokens every telling of the save's turns cost, discarded tellings included (they were paid for)."""
    rows = await conn.execute_fetchall(
        f"SELECT coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0) FROM {SWIPES}")
    prompt, completion = (int(v) for v in next(iter(rows)))
    return {"prompt": prompt, "completion": completion, "total": prompt + completion}


async def carried_rows(conn: aiosqlite.Connection, turn: int, carried_tables: Sequence[str]) -> list[RowWrite]:
    """Rows changed during ``turn`` after it was told, as they are now: they survive a swap.
    ``carried_tables``: the player's own words, whole (``Feature.across_tellings``)."""
    carried: list[RowWrite] = []
    for table in carried_tables:
        key = await journal.primary_key(conn, table)
        carried += [RowWrite(table, {column: row[column] for column in key}, row) for row in await read_rows(conn, table)]
    carried += await steps_of(conn, turn)
    return carried


async def keep(db: SaveDatabase, turn: int, chosen: KeptTelling, every: Sequence[KeptTelling],
               also: Sequence[RowWrite] = (), *, drop_seq: int | None = None, carried: Sequence[str] = ()) -> None:
    """Make ``chosen`` the told turn ``turn``, with ``every`` telling kept beside it, in ONE transaction.

    ``also``: more rows written with it (an undo step); ``drop_seq``: an undo step not carried across
    (the one being undone); ``carried``: the tables of the player's own words (``carried_rows``).
    Requires ``turn`` to be the save's last turn.
    """
    if [a.index for a in every if a.kept] != [chosen.index]:
        raise ValueError("the kept telling must be the chosen one: the others are stored against it")
    async with db.transaction() as conn:
        kept = [row for row in await carried_rows(conn, turn, carried) if row.key.get("seq") != drop_seq
                or row.table != STEPS]
        await undo.undo_turn(conn, turn)
        rows = [*chosen.rows, *(alt.row(chosen) for alt in every), *kept, *also]
        await db.write_turn(conn, chosen.record, chosen.writes, chosen.scene, chosen.told, rows)


async def told_from_rows(db: SaveDatabase, turn: int, carried: Sequence[str] = ()) -> KeptTelling | None:
    """The last turn as it stands, as its first telling, for a turn told before tellings were kept.

    Its writes are the rows the journal names for the turn, read as they are now (after the turn); None
    when the turn did something a telling cannot replay (a merge, a row deleted) or is not all there.
    ``carried``: tables of the player's own words, never replayed as the turn's (``carried_rows``).
    """
    try:
        return await _told_from_rows(db, turn, carried)
    except TELLING_ERRORS as error:
        raise damaged(db.name, error) from error


async def _told_from_rows(db: SaveDatabase, turn: int, carried: Sequence[str]) -> KeptTelling | None:
    from game.store import graph_repo

    conn = db.conn
    entries = await conn.execute_fetchall("SELECT kind, key, before FROM journal WHERE turn = ? ORDER BY id", (turn,))
    first: dict[tuple[str, str], bool] = {}
    for kind, key, before in entries:
        first.setdefault((str(kind), str(key)), before is None)  # created: no row before the turn
    if any(kind in ("merge",) for kind, _ in first):
        return None
    nodes = [key for kind, key in first if kind == "node"]
    edges = [key for kind, key in first if kind == "edge"]
    knowing_keys = [tuple(key.partition("|")[::2]) for kind, key in first if kind == "knowing"]
    found_nodes = await graph_repo.SqlGraph(conn).get_nodes(nodes)
    found_edges = await graph_repo.edges_by_id(conn, edges)
    found_knowings = await graph_repo.knowings_by_key(conn, [(e, k) for e, k in knowing_keys])
    if len(found_nodes) < len(nodes) or len(found_edges) < len(edges) or len(found_knowings) < len(knowing_keys):
        return None  # a row the turn wrote is gone since (deleted): nothing to write it back from
    writes = GraphWrites(dict(found_nodes), dict(found_edges), {n for n in nodes if first[("node", n)]},
                         {e for e in edges if first[("edge", e)]}, dict(found_knowings))
    told = await told_log.journaled(conn, [key for kind, key in first if kind == told_log.JOURNAL_KIND])
    rows_written: list[RowWrite] = []
    for kind, key in first:
        table = kind.removeprefix(journal.ROW_KIND_PREFIX)
        if kind.startswith(journal.ROW_KIND_PREFIX) and table not in (SWIPES, STEPS, *carried):
            identity = json.loads(key)
            where = " AND ".join(f'"{column}" = ?' for column in identity)
            cursor = await conn.execute(f'SELECT * FROM "{table}" WHERE {where}', list(identity.values()))
            names = [d[0] for d in cursor.description]
            row = await cursor.fetchone()
            await cursor.close()
            rows_written.append(RowWrite(table, identity, None if row is None else
                                         {name: unpack(value) for name, value in zip(names, row, strict=True)}))
    records = [r for r in await turn_log.turns(db, last=1) if r.number == turn]
    scene = await turn_log.scene_at(db, turn)
    if not records or scene is None:
        return None
    return KeptTelling(turn, 0, "told", None, True, records[0], writes, scene, tuple(told), tuple(rows_written))
