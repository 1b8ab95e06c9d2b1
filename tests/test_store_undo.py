"""Undo puts a turn's journal back a table and kind at a time (``game.store.undo``), and the save it leaves
is exactly the one the entry-by-entry replay left, and the one before the turn.

A game is played through the real session (the tiny fixture world; the offline narrator that introduces a
stranger, so a question, a "yes" and a merge with both minds folded happen in play), and the real CLI adds
what an author does between turns, each journaled at the current turn: a ``graph import`` (new people,
versions, closes), a ``graph upsert`` that closes versions, ``graph gossip``, ``graph merge``. Then every
turn is undone, newest first, twice from the same file: by ``undo_last_turn`` and by the replay as it was
before batching (kept here only as the reference), and every table of both files is compared.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from helpers.play import collect
from helpers.saves import SCHEMA
from test_mind_merge import kith, settings_for, start

from game.engine.session import GameSession
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.store import graph_repo, told_log
from game.store.database import SaveDatabase
from game.store.journal import ROW_KIND_PREFIX, decode_row
from game.store.undo import fold

# ------------------------------------------------------------------------- the replay before batching


async def undo_one_by_one(conn: aiosqlite.Connection, turn: int) -> None:
    """Undo of ``turn`` as it was before ``game.store.undo``: one statement per journal entry, newest first."""
    entries = await conn.execute_fetchall("SELECT kind, key, before FROM journal WHERE turn = ? ORDER BY id DESC",
                                          (turn,))
    for kind, key, before in entries:
        if kind.startswith(ROW_KIND_PREFIX):
            identity: dict[str, object] = json.loads(key)
            where = " AND ".join(f'"{column}" = ?' for column in identity)
            await conn.execute(f'DELETE FROM "{kind.removeprefix(ROW_KIND_PREFIX)}" WHERE {where}',
                               list(identity.values()))
            if before is not None:
                row = decode_row(before)
                names = ", ".join(f'"{column}"' for column in row)
                await conn.execute(f'INSERT INTO "{kind.removeprefix(ROW_KIND_PREFIX)}" ({names}) VALUES '
                                   f'({", ".join("?" for _ in row)})', list(row.values()))
        elif kind == "edge":
            if before is None:
                await conn.execute("DELETE FROM edges WHERE id = ?", (key,))
            else:
                await graph_repo.put_edges(conn, [Edge.model_validate(json.loads(before))])
        elif kind == "gossip":
            await told_log.delete(conn, key)
        elif kind == "knowing":
            if before is None:
                await graph_repo.delete_knowing(conn, key)
            else:
                await graph_repo.put_knowings(conn, [Knowing.model_validate(json.loads(before))])
        elif kind == "node":
            if before is None:
                await graph_repo.delete_node(conn, key)
            else:
                await graph_repo.put_nodes(conn, [Node.model_validate(json.loads(before))])
    await conn.execute("DELETE FROM journal WHERE turn = ?", (turn,))
    await conn.execute("DELETE FROM merges WHERE turn = ?", (turn,))
    await conn.execute("UPDATE turns SET extracted = 0, extraction = 'none', recovered_at = NULL "
                       "WHERE recovered_at = ?", (turn,))
    await conn.execute("DELETE FROM turns WHERE number = ?", (turn,))
    await conn.execute("DELETE FROM scenes WHERE turn = ?", (turn,))


# ---------------------------------------------------------------------------------------- the dumps


def copy(source: Path, destination: Path) -> Path:
    """A consistent copy of a save (its WAL included), as SQLite's backup makes it."""
    destination.unlink(missing_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(destination) as dst:
        src.backup(dst)
    src.close()
    dst.close()
    return destination


def dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (``sqlite_sequence`` too), in key order, with the columns' exact values."""
    conn = sqlite3.connect(path)
    try:
        tables = [str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        found = {table: sorted(conn.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr) for table in tables}
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return found
    finally:
        conn.close()


def played_turns(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT max(number) FROM turns").fetchone()[0])
    finally:
        conn.close()


# ------------------------------------------------------------------------------------- the game played

IMPORT = [
    *({"turn": 3, "nodes": [{"name": f"Imported {i}", "type": "individual", "summary": f"Someone imported, number {i}."}
                            for i in range(start, start + 6)]} for start in (0, 6)),
    {"turn": 3, "edges": [{"sourceName": f"Imported {i}", "targetName": f"Imported {(i + 1) % 12}",
                           "relation": "TRUSTS", "strength": 0.5, "fact": f"Imported {i} trusts the next one."}
                          for i in range(12)]},
    {"turn": 3, "edges": [{"sourceName": "Imported 0", "targetName": "Sam Reed", "relation": "FEARS",
                           "strength": -0.4, "fact": "Imported 0 fears Sam Reed."},
                          {"sourceName": "Edda Marsh", "targetName": "Imported 1", "relation": "TRUSTS",
                           "strength": 0.3, "fact": "Edda Marsh trusts Imported 1."}]},
    {"turn": 3, "closeEdges": [{"sourceName": "Imported 2", "targetName": "Imported 3", "relation": "TRUSTS"}]},
    {"turn": 3, "edges": [{"sourceName": "Imported 4", "targetName": "Imported 5", "relation": "TRUSTS",
                           "strength": 0.9, "fact": "Imported 4 trusts Imported 5 with her life now."}]},
]
UPSERT = [
    {"nodes": [{"name": "Imported 6", "type": "individual", "summary": "Imported 6, who keeps the ledger now.",
                "aliases": ["the Clerk"]}]},
    {"edges": [{"sourceName": "Imported 7", "targetName": "Imported 8", "relation": "DISTRUSTS", "strength": -0.6,
                "fact": "Imported 7 no longer trusts Imported 8."},
               {"sourceName": "Imported 0", "targetName": "Sam Reed", "relation": "FEARS", "strength": -0.9,
                "fact": "Imported 0 is terrified of Sam Reed."},
               {"sourceName": "Edda Marsh", "targetName": "Imported 9", "relation": "TRUSTS", "strength": 0.7,
                "fact": "Edda Marsh trusts Imported 9."}]},
]

# Written again at the same turn: a node journaled twice with two before-images, and a version the first
# upsert created closed by the second (journaled new, then journaled changed).
UPSERT_AGAIN = [
    {"nodes": [{"name": "Imported 6", "type": "individual", "summary": "Imported 6, who lost the ledger."},
               {"name": "Edda Marsh", "type": "individual", "summary": "The keeper, who has heard the gossip."}]},
    {"edges": [{"sourceName": "Imported 0", "targetName": "Sam Reed", "relation": "FEARS", "strength": -0.2,
                "fact": "Imported 0 barely fears Sam Reed any more."}]},
]


def author(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> None:
    code, _, err = kith(tmp_path, capsys, *args)
    assert code == 0, err


async def play(tmp_path: Path, commands: list[str]) -> None:
    session = await start(tmp_path)  # a new save "game"
    try:
        for command in commands:
            await collect(session, command)
    finally:
        await session.close()


async def play_on(tmp_path: Path, commands: list[str]) -> None:
    session = await GameSession.open(settings_for(tmp_path), save="game")
    try:
        for command in commands:
            await collect(session, command)
    finally:
        await session.close()


def game(tmp_path: Path, capsys: pytest.CaptureFixture[str], snapshots: Path) -> tuple[Path, dict[int, Path]]:
    """The save played and authored, with a copy of it as it stood before the authoring journaled at
    turns 3 and 5."""
    save = tmp_path / "saves" / "game.sqlite"
    before: dict[int, Path] = {}
    asyncio.run(play(tmp_path, ["look", "wait", "yes"]))  # 1: a stranger met; 2: asked; 3: the merge in play
    before[3] = copy(save, snapshots / "before-import.sqlite")
    lines = tmp_path / "import.jsonl"
    lines.write_text("\n".join(json.dumps(line) for line in IMPORT), encoding="utf-8")
    author(tmp_path, capsys, "import", "--save", "game", str(lines))  # journaled at turn 3
    asyncio.run(play_on(tmp_path, ["talk to edda", "help edda"]))  # 4, 5: knowledge, memories, attitudes
    before[5] = copy(save, snapshots / "before-authoring.sqlite")
    calls = tmp_path / "calls.json"
    calls.write_text(json.dumps(UPSERT), encoding="utf-8")
    author(tmp_path, capsys, "upsert", "--save", "game", str(calls))  # journaled at turn 5, closes versions
    author(tmp_path, capsys, "gossip", "--save", "game", "--rounds", "3")
    author(tmp_path, capsys, "merge", "--save", "game", "Imported 10", "Imported 11", "--evidence", "one ledger")
    calls.write_text(json.dumps(UPSERT_AGAIN), encoding="utf-8")
    author(tmp_path, capsys, "upsert", "--save", "game", str(calls))
    asyncio.run(play_on(tmp_path, ["wait", "look"]))  # 6, 7
    return save, before


def test_undo_leaves_every_table_as_the_one_by_one_replay_did(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    save, _ = game(tmp_path, capsys, snapshots)
    assert played_turns(save) == 7
    kinds = {str(r[0]).split(":")[0] for r in sqlite3.connect(save).execute("SELECT DISTINCT kind FROM journal")}
    assert kinds == {"node", "edge", "knowing", "gossip", "row"}  # every kind of entry is undone below
    assert [r[0] for r in sqlite3.connect(save).execute("SELECT turn FROM merges ORDER BY id")] == [3, 5]
    current = copy(save, snapshots / "current.sqlite")
    for turn in range(7, 0, -1):
        batched = copy(current, snapshots / f"batched-{turn}.sqlite")
        replayed = copy(current, snapshots / f"replayed-{turn}.sqlite")

        async def undo(batched: Path = batched, replayed: Path = replayed, turn: int = turn) -> None:
            async with await SaveDatabase.open(batched, schema=SCHEMA) as db:
                assert await db.undo_last_turn() == turn - 1
            async with await SaveDatabase.open(replayed, schema=SCHEMA) as db, db.transaction() as conn:
                await undo_one_by_one(conn, turn)

        asyncio.run(undo())
        assert dump(batched) == dump(replayed), f"undo of turn {turn}"
        current = batched


def test_undo_of_the_authoring_alone_restores_the_save_before_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An import and an upsert, a gossip and a merge journaled at a played turn: undo takes them back with
    the turn; the save before them is the save after undoing them from a copy made before the turn."""
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    save, before = game(tmp_path, capsys, snapshots)

    async def undo_to(path: Path, turn: int) -> None:
        async with await SaveDatabase.open(path, schema=SCHEMA) as db:
            while await db.current_turn() > turn:
                await db.undo_last_turn()

    for turn in (3, 5):
        undone = copy(save, snapshots / f"undone-{turn}.sqlite")
        asyncio.run(undo_to(undone, turn - 1))
        reference = copy(before[turn], snapshots / f"reference-{turn}.sqlite")
        asyncio.run(undo_to(reference, turn - 1))
        found, expected = dump(undone), dump(reference)
        for tables in (found, expected):
            tables.pop("sqlite_sequence")
            tables["meta"] = [row for row in tables["meta"] if row[0] != "last_played"]
        assert found == expected


# ------------------------------------------------------------------------------------------ folding


def test_a_row_journaled_twice_in_a_turn_ends_as_its_oldest_entry_says() -> None:
    newest_first = [("row:notes", '{"name": "a"}', '{"name": "a", "text": "second"}'),
                    ("edge", "e1", '{"fact": "as the turn first wrote it"}'),
                    ("row:notes", '{"name": "a"}', '{"name": "a", "text": "first"}'),
                    ("edge", "e1", None),
                    ("node", "n1", None)]
    # The note was changed twice: it goes back to before the first change. The version was created by
    # the turn and changed again: it goes, whatever it was in between.
    assert fold(newest_first) == [("row:notes", '{"name": "a"}', '{"name": "a", "text": "first"}'),
                                  ("edge", "e1", None),
                                  ("node", "n1", None)]


# ------------------------------------------------------------------------------- a large import undone


def indexes(path: Path) -> set[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return set(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))
    finally:
        conn.close()


def test_undo_of_an_import_larger_than_the_save_builds_the_indexes_again_and_matches_the_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Most of the versions and knower rows are the import's: undo drops their indexes while it deletes
    them and builds them again, and leaves what the replay left, the save before the import included."""
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    save = tmp_path / "saves" / "game.sqlite"
    asyncio.run(play(tmp_path, ["look", "wait"]))
    before = copy(save, snapshots / "before.sqlite")
    people = [f"Crowd {i}" for i in range(48)]
    pairs = [(a, b) for a in people for b in people if a != b][:1200]
    lines = [{"turn": 2, "nodes": [{"name": name, "type": "individual", "summary": f"{name}, one of the crowd."}
                                   for name in people[start:start + 8]]} for start in range(0, 48, 8)]
    lines += [{"turn": 2, "edges": [{"sourceName": a, "targetName": b, "relation": "TRUSTS", "strength": 0.4,
                                     "fact": f"{a} trusts {b}."} for a, b in pairs[start:start + 12]]}
              for start in range(0, len(pairs), 12)]
    lines.append({"turn": 2, "closeEdges": [{"sourceName": a, "targetName": b, "relation": "TRUSTS"}
                                            for a, b in pairs[:12]]})
    path = tmp_path / "crowd.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    author(tmp_path, capsys, "import", "--save", "game", str(path))
    conn = sqlite3.connect(save)
    assert conn.execute("SELECT count(*) FROM journal WHERE turn = 2 AND kind = 'edge'").fetchone()[0] >= 1200
    conn.close()
    batched, replayed, reference = (copy(save, snapshots / "batched.sqlite"), copy(save, snapshots / "replayed.sqlite"),
                                    copy(before, snapshots / "reference.sqlite"))

    async def undo() -> None:
        for undone in (batched, reference):
            async with await SaveDatabase.open(undone, schema=SCHEMA) as db:
                assert await db.undo_last_turn() == 1
        async with await SaveDatabase.open(replayed, schema=SCHEMA) as db, db.transaction() as conn:
            await undo_one_by_one(conn, 2)

    asyncio.run(undo())
    found = dump(batched)
    assert found == dump(replayed)
    assert indexes(batched) == indexes(replayed) == indexes(before)
    expected = dump(reference)
    for tables in (found, expected):
        tables.pop("sqlite_sequence")
        tables["meta"] = [row for row in tables["meta"] if row[0] != "last_played"]
    assert found == expected
