"""The ``swipes``, ``notes`` and ``undo_steps`` tables: a turn's told alternatives, kept whole.

Every turn a session commits leaves one ``swipes`` row (alternative 0, kept): its turn row, graph writes,
scene, gossip and other features' rows as JSON, and the tokens it cost. Telling the turn again (retry,
continue, an edit) adds an alternative; keeping another one is ONE transaction: the journal undoes the
turn (``undo.undo_turn``: the graph as it was before it) and the kept alternative's writes are
written as the turn, journaled afresh. So the graph only ever holds the kept alternative's extraction,
and ``undo`` still takes the whole turn back: these rows are themselves journaled rows of the turn.

Rows a player changed during the turn after it was told (the Memory and Author's note, the undo steps)
are carried across the swap: written again after the undo, so the journal keeps their state from
before the turn and the swap never loses them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import aiosqlite

from game.graph.gossip import Told
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.ports import GraphWrites
from game.store import journal, undo
from game.store.damage import READ_ERRORS, damaged
from game.store.database import SaveDatabase, TurnRecord
from game.store.packed import json_text, unpack, unpack_text
from game.store.rows import RowWrite, write_rows

SWIPES = "swipes"
NOTES = "notes"
STEPS = "undo_steps"
TELLING_ERRORS: tuple[type[Exception], ...] = (*READ_ERRORS, KeyError)
"""What reading a damaged telling raises: SQLite's errors, undecodable JSON or models, a missing field."""
MAX_ALTERNATIVES = 20
"""Alternatives kept per turn: enough to choose among, few enough that a save does not balloon."""


@dataclass(frozen=True)
class Alternative:
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

    def row(self) -> RowWrite:
        """This alternative as its ``swipes`` row."""
        key = {"turn": self.turn, "idx": self.index}
        return RowWrite(SWIPES, key, {**key, "kind": self.kind, "parent": self.parent, "kept": int(self.kept),
                                      "payload": encode(self), "prompt_tokens": self.prompt_tokens,
                                      "completion_tokens": self.completion_tokens,
                                      "usage": json.dumps(self.usage, sort_keys=True)})


def encode(alt: Alternative) -> str:
    """The turn an alternative tells, as JSON: enough to write it again exactly."""
    r, w = alt.record, alt.writes
    return json_text({
        "record": {"input": r.input, "narration": r.narration, "npcContext": r.npc_context, "worldIR": r.world_ir,
                   "timings": r.timings, "extracted": r.extracted},
        "writes": {"nodes": [n.to_json_dict() for n in w.nodes.values()],
                   "edges": [e.to_json_dict() for e in w.edges.values()],
                   "createdNodes": sorted(w.created_nodes), "createdEdges": sorted(w.created_edges),
                   "knowings": [k.to_json_dict() for k in w.knowings.values()]},
        "scene": alt.scene,
        "told": [asdict(t) for t in alt.told],
        "rows": [{"table": row.table, "key": dict(row.key), "row": None if row.row is None else dict(row.row)}
                 for row in alt.rows],
    })


def decode(turn: int, index: int, kind: str, parent: int | None, kept: bool, payload: str,
           usage: Mapping[str, int]) -> Alternative:
    data = json.loads(payload)
    r, w = data["record"], data["writes"]
    record = TurnRecord(number=turn, input=r["input"], narration=r["narration"], npc_context=r["npcContext"],
                        world_ir=r["worldIR"], timings=r["timings"], extracted=r["extracted"])
    nodes = [Node.model_validate(n) for n in w["nodes"]]
    edges = [Edge.model_validate(e) for e in w["edges"]]
    knowings = [Knowing.model_validate(k) for k in w["knowings"]]
    writes = GraphWrites({n.id: n for n in nodes}, {e.id: e for e in edges}, set(w["createdNodes"]),
                         set(w["createdEdges"]), {k.key: k for k in knowings})
    told = tuple(Told(**t) for t in data["told"])
    rows = tuple(RowWrite(x["table"], x["key"], x["row"]) for x in data["rows"])
    return Alternative(turn, index, kind, parent, kept, record, writes, data["scene"], told, rows, dict(usage))


async def alternatives(db: SaveDatabase, turn: int) -> list[Alternative]:
    """Every alternative of ``turn``, by index (none for a turn told before alternatives were kept).

    A telling that no longer decodes (a damaged save) is one ``SaveError`` naming the save."""
    try:
        rows = await db.conn.execute_fetchall(
            f"SELECT idx, kind, parent, kept, payload, usage FROM {SWIPES} WHERE turn = ? ORDER BY idx", (turn,))
        return [decode(turn, int(r[0]), str(r[1]), None if r[2] is None else int(r[2]), bool(r[3]),
                       unpack_text(r[4]), json.loads(r[5])) for r in rows]
    except TELLING_ERRORS as error:
        raise damaged(db.name, error) from error


async def kept_usage(conn: aiosqlite.Connection, turn: int) -> dict[str, int]:
    """The tokens the kept telling of ``turn`` cost, by step (empty when none were counted)."""
    rows = await conn.execute_fetchall(f"SELECT usage FROM {SWIPES} WHERE turn = ? AND kept = 1", (turn,))
    for row in rows:
        loaded = json.loads(row[0])
        return {str(k): int(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
    return {}


async def total_tokens(conn: aiosqlite.Connection) -> dict[str, int]:
    """Tokens every telling of the save's turns cost, discarded alternatives included (they were paid for)."""
    rows = await conn.execute_fetchall(
        f"SELECT coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0) FROM {SWIPES}")
    prompt, completion = (int(v) for v in next(iter(rows)))
    return {"prompt": prompt, "completion": completion, "total": prompt + completion}


async def carried_rows(conn: aiosqlite.Connection, turn: int) -> list[RowWrite]:
    """Rows changed during ``turn`` after it was told, as they are now: they survive a swap."""
    carried = [RowWrite(NOTES, {"name": str(r[0])}, {"name": str(r[0]), "text": str(r[1])})
               for r in await conn.execute_fetchall(f"SELECT name, text FROM {NOTES}")]
    for seq, kind, data in await conn.execute_fetchall(
            f"SELECT seq, kind, data FROM {STEPS} WHERE turn = ? ORDER BY seq", (turn,)):
        carried.append(RowWrite(STEPS, {"seq": int(seq)}, {"seq": int(seq), "turn": turn, "kind": str(kind),
                                                           "data": str(data)}))
    return carried


async def keep(db: SaveDatabase, turn: int, chosen: Alternative, every: Sequence[Alternative],
               also: Sequence[RowWrite] = (), *, drop_seq: int | None = None) -> None:
    """Make ``chosen`` the told turn ``turn``, with ``every`` alternative kept beside it, in ONE transaction.

    ``also``: more rows written with it (an undo step); ``drop_seq``: an undo step not carried across
    (the one being undone). Requires ``turn`` to be the save's last turn.
    """
    async with db.transaction() as conn:
        carried = [row for row in await carried_rows(conn, turn) if row.key.get("seq") != drop_seq
                   or row.table != STEPS]
        await undo.undo_turn(conn, turn)
        rows = [*chosen.rows, *(alt.row() for alt in every), *carried, *also]
        await db.write_turn(conn, chosen.record, chosen.writes, chosen.scene, chosen.told, rows)


async def drop_step(db: SaveDatabase, seq: int, rows: Sequence[RowWrite]) -> None:
    """Forget an undo step and put ``rows`` back, unjournaled: the turn's journal already holds their
    state from before the turn, which undoing the whole turn must still restore."""
    async with db.transaction() as conn:
        await conn.execute(f"DELETE FROM {STEPS} WHERE seq = ?", (seq,))
        await write_rows(conn, 0, rows, journal_it=False)


async def last_step(conn: aiosqlite.Connection, turn: int) -> tuple[int, str, dict[str, Any]] | None:
    """The newest change made within ``turn`` that ``undo`` takes back before the turn itself."""
    rows = await conn.execute_fetchall(
        f"SELECT seq, kind, data FROM {STEPS} WHERE turn = ? ORDER BY seq DESC LIMIT 1", (turn,))
    for seq, kind, data in rows:
        loaded = json.loads(data)
        return int(seq), str(kind), loaded if isinstance(loaded, dict) else {}
    return None


async def next_seq(conn: aiosqlite.Connection) -> int:
    rows = await conn.execute_fetchall(f"SELECT coalesce(max(seq), 0) + 1 FROM {STEPS}")
    return int(next(iter(rows))[0])


def step_row(seq: int, turn: int, kind: str, data: Mapping[str, Any]) -> RowWrite:
    return RowWrite(STEPS, {"seq": seq}, {"seq": seq, "turn": turn, "kind": kind, "data": json.dumps(dict(data))})


async def told_from_rows(db: SaveDatabase, turn: int) -> Alternative | None:
    """The last turn as it stands, as its first telling, for a turn told before tellings were kept.

    Its writes are the rows the journal names for the turn, read as they are now (after the turn); None
    when the turn did something a telling cannot replay (a merge, a row deleted) or is not all there.
    """
    try:
        return await _told_from_rows(db, turn)
    except TELLING_ERRORS as error:
        raise damaged(db.name, error) from error


async def _told_from_rows(db: SaveDatabase, turn: int) -> Alternative | None:
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
    told = []
    for kind, key in first:
        if kind == "gossip":
            number, teller, listener, edge_id = key.split("|", 3)  # gossip_log.journal_key
            rows = await conn.execute_fetchall(
                "SELECT confidence FROM gossip_log WHERE turn = ? AND teller = ? AND listener = ? AND edge_id = ?",
                (int(number), teller, listener, edge_id))
            told += [Told(int(number), teller, listener, edge_id, float(r[0])) for r in rows]
    rows_written: list[RowWrite] = []
    for kind, key in first:
        table = kind.removeprefix(journal.ROW_KIND_PREFIX)
        if kind.startswith(journal.ROW_KIND_PREFIX) and table not in (SWIPES, NOTES, STEPS):
            identity = json.loads(key)
            where = " AND ".join(f'"{column}" = ?' for column in identity)
            cursor = await conn.execute(f'SELECT * FROM "{table}" WHERE {where}', list(identity.values()))
            names = [d[0] for d in cursor.description]
            row = await cursor.fetchone()
            await cursor.close()
            rows_written.append(RowWrite(table, identity, None if row is None else
                                         {name: unpack(value) for name, value in zip(names, row, strict=True)}))
    records = [r for r in await db.turns(last=1) if r.number == turn]
    scene = await db.scene_at(turn)
    if not records or scene is None:
        return None
    return Alternative(turn, 0, "told", None, True, records[0], writes, scene, tuple(told), tuple(rows_written))
