"""The ``undo_steps`` table: changes made within a turn that ``undo`` takes back before the turn itself.

A feature's command (a note, an edit of the last narration) leaves one row: its kind, the turn it was made
in and what the owning feature needs to take it back (``Feature.undo_kinds``). The core reads the newest
first; the rows are journaled at their turn, so undoing the whole turn removes them with it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import aiosqlite

from game.store.database import SaveDatabase
from game.store.rows import RowWrite, write_rows

STEPS = "undo_steps"


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


async def steps_of(conn: aiosqlite.Connection, turn: int) -> list[RowWrite]:
    """The undo steps of ``turn`` as rows, oldest first (a retelling carries them across the swap)."""
    return [RowWrite(STEPS, {"seq": int(seq)}, {"seq": int(seq), "turn": turn, "kind": str(kind), "data": str(data)})
            for seq, kind, data in await conn.execute_fetchall(
                f"SELECT seq, kind, data FROM {STEPS} WHERE turn = ? ORDER BY seq", (turn,))]


async def drop_step(db: SaveDatabase, seq: int, rows: Sequence[RowWrite]) -> None:
    """Forget an undo step and put ``rows`` back, unjournaled: the turn's journal already holds their
    state from before the turn, which undoing the whole turn must still restore."""
    async with db.transaction() as conn:
        await conn.execute(f"DELETE FROM {STEPS} WHERE seq = ?", (seq,))
        await write_rows(conn, 0, rows, journal_it=False)
