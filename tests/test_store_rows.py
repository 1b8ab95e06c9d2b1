"""A feature's own table, written with a turn through ``RowWrite``: undone exactly, written atomically."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_helpers import seeded

from game.errors import SaveError
from game.graph.ports import GraphWrites
from game.store.database import SaveDatabase, TurnRecord
from game.store.rows import RowWrite

FEELINGS = "CREATE TABLE feelings (npc TEXT NOT NULL, toward TEXT NOT NULL, trust INTEGER NOT NULL, " \
           "note TEXT, weight REAL NOT NULL, PRIMARY KEY (npc, toward))"


def feeling(npc: str, trust: int, note: str | None = None, weight: float = 0.1) -> RowWrite:
    key = {"npc": npc, "toward": "player"}
    return RowWrite("feelings", key, {**key, "trust": trust, "note": note, "weight": weight})


async def rows(db: SaveDatabase) -> list[tuple[object, ...]]:
    return [tuple(row) for row in await db.conn.execute_fetchall("SELECT * FROM feelings ORDER BY npc")]


async def commit(db: SaveDatabase, number: int, writes: list[RowWrite]) -> None:
    await db.commit_turn(TurnRecord(number, f"turn {number}", "Time passes.", ""), GraphWrites(), {}, rows=writes)


async def test_undo_puts_back_each_row_as_it_was_before_the_turn(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        async with db.transaction() as conn:
            await conn.execute(FEELINGS)
        await commit(db, 1, [feeling("hob", 10, "met"), feeling("ness", -5)])
        after_one = await rows(db)
        # Turn 2 changes a row twice, deletes one and creates one: undo must give turn 1's rows back exactly.
        await commit(db, 2, [feeling("hob", 20, "helped", 1 / 3), feeling("hob", 35, "helped twice"),
                             RowWrite("feelings", {"npc": "ness", "toward": "player"}, None), feeling("wren", 50)])
        assert await rows(db) == [("hob", "player", 35, "helped twice", 0.1), ("wren", "player", 50, None, 0.1)]
        await db.undo_last_turn()
        assert await rows(db) == after_one == [("hob", "player", 10, "met", 0.1), ("ness", "player", -5, None, 0.1)]
        await db.undo_last_turn()
        assert await rows(db) == []
    finally:
        await db.close()


async def test_a_row_that_does_not_carry_its_key_fails_the_whole_turn(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        async with db.transaction() as conn:
            await conn.execute(FEELINGS)
        bad = RowWrite("feelings", {"npc": "hob", "toward": "player"},
                       {"npc": "ness", "toward": "player", "trust": 1, "note": None, "weight": 0.0})
        with pytest.raises(SaveError, match="does not carry its own key"):
            await commit(db, 1, [feeling("wren", 5), bad])
        assert await rows(db) == []
        assert await db.current_turn() == 0
    finally:
        await db.close()
