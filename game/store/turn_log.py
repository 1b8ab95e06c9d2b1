"""Reading the turn log of an open save: committed turns, what the player typed, a turn's scene and rows.

Also the latest turn the save knows (played, or written ahead of play by ``kith graph``), which the
graph commands date their writes by.

``SaveDatabase`` writes turns (``start_turn``, ``end_turn``) and undoes them; reading them back is a
separate face, wanted by opening a game (its history and scene), the telling of a turn, ``/why`` and the
enrichment queue (``game.store.enrichment``), so it lives here and takes the open save rather than widening
the save's class. Every read turns damage met in the rows into one ``SaveError`` naming the save.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from game.store import decoded
from game.store.damage import reading
from game.store.database import TurnRecord
from game.store.packed import unpack

if TYPE_CHECKING:
    from game.store.database import SaveDatabase
    from game.store.rows import Scalar

_TURN_COLUMNS = ("number", "input", "narration", "npc_context", "world_ir", "timings", "extracted", "created_at",
                 "extraction")


async def latest_turn(db: SaveDatabase) -> int:
    """The latest turn the save knows: played turns, or a turn its graph was written at ahead of play
    (``graph upsert --turn``), whichever is later. Writing at this turn never ends a version early."""
    with reading(db.name):
        rows = await db.conn.execute_fetchall(
            "SELECT max(coalesce((SELECT max(number) FROM turns), 0), coalesce((SELECT max(valid_at) FROM edges), 0), "
            "coalesce((SELECT max(invalid_at) FROM edges), 0), coalesce((SELECT max(last_seen_turn) FROM nodes), 0))"
        )
        return int(next(iter(rows))[0])


async def turns(db: SaveDatabase, last: int | None = None) -> list[TurnRecord]:
    """Committed turns, oldest first (the last ``last`` of them when given)."""
    limit = "" if last is None else f"LIMIT {int(last)}"
    with reading(db.name):
        return await turns_where(db, "1", limit)


async def turns_where(db: SaveDatabase, condition: str, limit: str = "") -> list[TurnRecord]:
    """The turns meeting an SQL ``condition`` (ours, never the player's text), oldest first, as records.

    The caller guards the read (``reading``): this is the one query every list of turns goes through."""
    rows = await db.conn.execute_fetchall(
        f"SELECT {', '.join(_TURN_COLUMNS)} FROM "
        f"(SELECT * FROM turns WHERE {condition} ORDER BY number DESC {limit}) ORDER BY number"
    )
    for r in rows:  # a value of another type (a BLOB for the input) is damage, named, not a traceback later
        decoded.require("turns", _TURN_COLUMNS, r)
    return [
        TurnRecord(number=r[0], input=r[1], narration=r[2], npc_context=r[3],
                   world_ir=json.loads(r[4]) if r[4] else None, timings=json.loads(r[5]),
                   extracted=bool(r[6]), created_at=r[7], extraction=r[8])
        for r in rows
    ]


async def turn_inputs(db: SaveDatabase, numbers: Sequence[int]) -> dict[int, str]:
    """What the player typed at each of ``numbers``."""
    with reading(db.name):
        marks = ",".join("?" * len(numbers))
        rows = await db.conn.execute_fetchall(f"SELECT number, input FROM turns WHERE number IN ({marks})",
                                              tuple(numbers)) if numbers else []
        return {int(row[0]): str(row[1]) for row in rows}


async def latest_turn_row(db: SaveDatabase, table: str, at_most: int) -> dict[str, Scalar] | None:
    """The row of a per-turn table of a feature (keyed by ``turn``, written by ``RowWrite``) for the
    newest turn at or before ``at_most``, or None. Packed texts come back as text."""
    with reading(db.name):
        cursor = await db.conn.execute(f'SELECT * FROM "{table}" WHERE turn <= ? ORDER BY turn DESC LIMIT 1',
                                       (at_most,))
        try:
            row = await cursor.fetchone()
            names = [column[0] for column in cursor.description or ()]
        finally:
            await cursor.close()
        return None if row is None else {name: unpack(value) for name, value in zip(names, row, strict=True)}


async def scene_at(db: SaveDatabase, turn: int) -> dict[str, Any] | None:
    """The scene stored after ``turn`` (turn 0: the world's opening scene), or None when there is none."""
    with reading(db.name):
        rows = await db.conn.execute_fetchall("SELECT state FROM scenes WHERE turn = ?", (turn,))
        for row in rows:
            loaded = json.loads(row[0])
            if not isinstance(loaded, dict):
                raise ValueError(f"the scene of turn {turn} is not a JSON object")
            return loaded
        return None
