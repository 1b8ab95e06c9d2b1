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


NOTES = "CREATE TABLE scraps (turn INTEGER PRIMARY KEY, text TEXT NOT NULL)"


def scrap(turn: int, text: str | None) -> RowWrite:
    return RowWrite("scraps", {"turn": turn}, None if text is None else {"turn": turn, "text": text})


async def scraps(db: SaveDatabase) -> list[tuple[object, ...]]:
    return [tuple(row) for row in await db.conn.execute_fetchall("SELECT * FROM scraps ORDER BY turn")]


async def test_one_turn_of_many_rows_of_several_tables_is_written_in_order_and_undone_exactly(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        async with db.transaction() as conn:
            await conn.execute(FEELINGS)
            await conn.execute(NOTES)
        await commit(db, 1, [feeling("hob", 10, "met"), feeling("ness", -5), feeling("wren", 1),
                             scrap(1, "one"), scrap(2, "two")])
        before = (await rows(db), await scraps(db))
        # Interleaved tables; hob written twice (the later wins), ness deleted, wren deleted then written
        # again, a new row written then deleted, a scrap rewritten and one created.
        await commit(db, 2, [
            feeling("hob", 20, "helped"), scrap(1, "one, again"), RowWrite("feelings", {"npc": "ness", "toward": "player"}, None),
            feeling("hob", 35, "helped twice", 0.5), RowWrite("feelings", {"npc": "wren", "toward": "player"}, None),
            feeling("moss", 3), scrap(3, "three"), feeling("wren", 7, "back"),
            RowWrite("feelings", {"toward": "player", "npc": "moss"}, None), scrap(2, None),
        ])
        assert await rows(db) == [("hob", "player", 35, "helped twice", 0.5), ("wren", "player", 7, "back", 0.1)]
        assert await scraps(db) == [(1, "one, again"), (3, "three")]
        await db.undo_last_turn()
        assert (await rows(db), await scraps(db)) == before
    finally:
        await db.close()


async def test_a_turn_of_more_rows_than_one_query_holds_is_undone_exactly(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        async with db.transaction() as conn:
            await conn.execute(FEELINGS)
        await commit(db, 1, [feeling(f"npc{i:04}", i % 100) for i in range(0, 1200, 2)])
        before = await rows(db)
        # Every other row exists: their before-images are read in several queries, in pieces.
        await commit(db, 2, [feeling(f"npc{i:04}", -(i % 100)) for i in range(1200)])
        assert len(await rows(db)) == 1200
        await db.undo_last_turn()
        assert await rows(db) == before
    finally:
        await db.close()


async def test_a_key_given_as_text_finds_its_integer_row_as_sqlite_compares_them(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        async with db.transaction() as conn:
            await conn.execute(NOTES)
        await commit(db, 1, [scrap(5, "five")])
        await commit(db, 2, [RowWrite("scraps", {"turn": "5"}, None)])
        assert await scraps(db) == []
        await db.undo_last_turn()
        assert await scraps(db) == [(5, "five")]
    finally:
        await db.close()
