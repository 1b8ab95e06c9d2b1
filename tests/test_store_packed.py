"""A turn's large texts are stored compressed (migration 14): the composed context and each telling. A
save from before keeps its plain rows, and both kinds read the same in `/mind`, `/why`, retry, swipes,
undo and `kith saves check`; a compressed row's before-image in the journal is put back byte for byte."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from helpers.play import collect, text_of
from helpers.saves import CURRENT_VERSION, SCHEMA, migration_of, older_save
from store_helpers import seeded

from game.config import load_settings
from game.engine.events import TurnReplaced
from game.engine.session import GameSession
from game.graph.ports import GraphWrites
from game.store.check import check_save
from game.store.database import TurnRecord
from game.store.packed import unpack
from game.store.rows import RowWrite

BEFORE_PACKING = migration_of("payload BLOB")


def stored(path: Path) -> list[tuple[str, object, str]]:
    """How each large text is stored: (table:key, SQLite's type of the value, the text)."""
    with sqlite3.connect(path) as conn:
        conn.create_function("plain", 1, unpack)
        rows = conn.execute("SELECT 'context:' || turn, typeof(context), plain(context) FROM turn_context UNION ALL "
                            "SELECT 'swipes:' || turn || ':' || idx, typeof(payload), plain(payload) FROM swipes "
                            "ORDER BY 1").fetchall()
    conn.close()
    return [(str(r[0]), r[1], str(r[2])) for r in rows]


async def play(path_dir: Path, *lines: str) -> Path:
    settings = load_settings(flags={"saves_dir": path_dir}, env={})
    async with await GameSession.open(settings, "game", new=True, world="brinefall") as session:
        for line in lines:
            await collect(session, line)
        return session.save_path


async def test_a_turn_stores_its_context_and_telling_compressed_and_reads_them_back(tmp_path: Path) -> None:
    path = await play(tmp_path / "saves", "n", "e", "talk to maud")
    rows = stored(path)
    assert {kind for _, kind, _ in rows} == {"blob"} and len(rows) == 6
    with sqlite3.connect(path) as conn:
        packed = conn.execute("SELECT sum(length(payload)) FROM swipes").fetchone()[0]
    conn.close()
    # Twice smaller at least: a telling keeps no scene nor context of its own (the turn's rows hold
    # them), so what is left is its narration, IR and writes, less repetitive than the context was.
    assert packed * 2 < sum(len(text.encode()) for key, _, text in rows if key.startswith("swipes"))
    assert check_save(path, SCHEMA) == []
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    async with await GameSession.open(settings, save=path) as session:
        assert "at turn 3" in text_of(await collect(session, "/mind Maud"))
        assert any(isinstance(e, TurnReplaced) for e in await collect(session, "retry"))
        assert any(isinstance(e, TurnReplaced) for e in await collect(session, "/swipe <"))
        assert "Maud" in text_of(await collect(session, "/why Maud"))
        await collect(session, "undo")
        assert session.turn == 2
    assert check_save(path, SCHEMA) == []


async def test_a_save_from_before_keeps_its_plain_rows_and_plays_on_with_both(tmp_path: Path) -> None:
    played = await play(tmp_path / "new", "n", "e", "talk to maud")
    saves = tmp_path / "saves"
    saves.mkdir()
    path = older_save(played, saves / "game.sqlite", BEFORE_PACKING)
    old_rows = stored(path)
    assert {kind for _, kind, _ in old_rows} == {"text"}
    assert old_rows == [(key, "text", text) for key, _, text in stored(played)]  # the same texts, plain
    assert check_save(path, SCHEMA) == []
    settings = load_settings(flags={"saves_dir": saves}, env={})
    async with await GameSession.open(settings, save=path) as session:
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
        conn.close()
        assert stored(path) == old_rows  # migrated: the rows kept as they were
        assert "at turn 3" in text_of(await collect(session, "/mind Maud"))
        # A retry reads the old telling and stores both tellings again, compressed; swiping back keeps the
        # first telling's text exactly.
        assert any(isinstance(e, TurnReplaced) for e in await collect(session, "retry"))
        assert any(isinstance(e, TurnReplaced) for e in await collect(session, "/swipe 1"))
        now = dict((key, (kind, text)) for key, kind, text in stored(path))
        assert now["swipes:3:0"][0] == "blob" and json.loads(now["swipes:3:0"][1]) == json.loads(
            dict((k, t) for k, _, t in old_rows)["swipes:3:0"])
        await collect(session, "talk to maud")
        assert "at turn 4" in text_of(await collect(session, "/mind Maud"))
        # Undo takes turn 4 and then turn 3 back, every telling and all: turns 1-2 as the old save had them.
        await collect(session, "undo")
        await collect(session, "undo")
    assert stored(path) == [row for row in old_rows if not row[0].endswith((":3", ":3:0"))]
    assert check_save(path, SCHEMA) == []


async def test_a_compressed_row_changed_by_a_turn_is_put_back_byte_for_byte_by_undo(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        async with db.transaction() as conn:
            await conn.execute("CREATE TABLE letters (name TEXT PRIMARY KEY, body BLOB NOT NULL, note TEXT)")
        body = json.dumps({"text": "Dear Maud, " * 300})
        await db.commit_turn(TurnRecord(1, "write", "Ink.", ""), GraphWrites(), {},
                             rows=[RowWrite("letters", {"name": "maud"}, {"name": "maud", "body": body, "note": "x"})])
        raw = await db.conn.execute_fetchall("SELECT name, body, typeof(body), note FROM letters")
        assert raw[0][2] == "blob" and len(raw[0][1]) < len(body) / 10
        assert await db.read_rows("letters") == [{"name": "maud", "body": body, "note": "x"}]
        await db.commit_turn(TurnRecord(2, "rewrite", "Ink.", ""), GraphWrites(), {},
                             rows=[RowWrite("letters", {"name": "maud"}, {"name": "maud", "body": "{}", "note": None})])
        assert await db.read_rows("letters") == [{"name": "maud", "body": "{}", "note": None}]
        await db.undo_last_turn()
        assert [tuple(r) for r in await db.conn.execute_fetchall(
            "SELECT name, body, typeof(body), note FROM letters")] == [tuple(r) for r in raw]
    finally:
        await db.close()


async def test_a_compressed_telling_that_no_longer_decompresses_is_named_by_saves_check(tmp_path: Path) -> None:
    path = await play(tmp_path / "saves", "look")
    copy = tmp_path / "copy.sqlite"
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE swipes SET payload = substr(payload, 1, 40)")
        conn.execute("UPDATE turn_context SET context = X'00FF'")
    conn.close()
    problems = check_save(copy, SCHEMA)
    assert "swipes 1:0: payload is compressed and does not decompress" in problems
    assert "turn_context 1: context is compressed and does not decompress" in problems
    settings = load_settings(flags={"saves_dir": tmp_path}, env={})
    async with await GameSession.open(settings, save=copy) as session:
        said = text_of(await collect(session, "retry"))
        assert "is damaged" in said
        said = text_of(await collect(session, "/mind Hob"))
        assert "is damaged" in said
