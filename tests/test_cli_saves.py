"""``kith saves list|delete|copy`` over real save files in a temporary saves folder."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.saves import SCHEMA

from game.__main__ import main
from game.graph.ports import GraphWrites
from game.store.database import SaveDatabase, TurnRecord


async def make_save(path: Path, world: str, turns: int) -> None:
    db = await SaveDatabase.open(path, schema=SCHEMA, create=True, world_id=world)
    try:
        await db.start_game({"location": "docks"}, GraphWrites(), {"world": world})
        for number in range(1, turns + 1):
            await db.commit_turn(TurnRecord(number, f"wait {number}", "Time passes.", ""), GraphWrites(),
                                 {"location": "docks"})
    finally:
        await db.close()


def kith(capsys: pytest.CaptureFixture[str], saves: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--saves-dir", str(saves), "saves", *args])
    out, err = capsys.readouterr()
    return code, out, err


async def test_list_shows_name_world_turns_and_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    await make_save(tmp_path / "harbour.sqlite", "brinefall", 3)
    await make_save(tmp_path / "second.sqlite", "brinefall", 0)
    code, out, _ = kith(capsys, tmp_path, "list")
    assert code == 0
    header, *rows = out.strip().splitlines()
    assert header.split() == ["NAME", "WORLD", "TURNS", "LAST", "PLAYED", "SIZE"]
    by_name = {row.split()[0]: row.split() for row in rows}
    assert by_name["harbour"][1:3] == ["brinefall", "3"]
    assert by_name["second"][1:3] == ["brinefall", "0"]
    assert by_name["harbour"][-1] == "KB"


async def test_list_json_is_for_machines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    await make_save(tmp_path / "harbour.sqlite", "brinefall", 2)
    (tmp_path / "notes.sqlite").write_bytes(b"not a database at all" * 10)
    code, out, _ = kith(capsys, tmp_path, "list", "--json")
    assert code == 0
    saves = {entry["name"]: entry for entry in json.loads(out)}
    assert saves["harbour"]["world"] == "brinefall"
    assert saves["harbour"]["turns"] == 2
    assert saves["harbour"]["size"] > 0
    assert saves["harbour"]["lastPlayed"]
    assert saves["harbour"]["error"] is None
    assert "not a Kith save" in saves["notes"]["error"]


def test_list_of_an_empty_folder_says_how_to_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = kith(capsys, tmp_path / "none-yet", "list")
    assert code == 0
    assert "No saves in" in out and "kith play" in out
    code, out, _ = kith(capsys, tmp_path / "none-yet", "list", "--json")
    assert json.loads(out) == []


async def test_copy_then_delete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    await make_save(tmp_path / "harbour.sqlite", "brinefall", 4)
    code, out, _ = kith(capsys, tmp_path, "copy", "harbour", "backup")
    assert code == 0 and "Copied harbour to backup" in out
    code, out, _ = kith(capsys, tmp_path, "list", "--json")
    assert {e["name"]: e["turns"] for e in json.loads(out)} == {"harbour": 4, "backup": 4}

    code, out, _ = kith(capsys, tmp_path, "delete", "harbour")
    assert code == 0 and "Deleted harbour" in out
    assert not (tmp_path / "harbour.sqlite").exists()
    assert (tmp_path / "backup.sqlite").exists()


async def test_refusals_are_one_line_errors_and_touch_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # so a path that slipped through would land beside tmp_path, where we look
    await make_save(tmp_path / "a.sqlite", "brinefall", 1)
    await make_save(tmp_path / "b.sqlite", "brinefall", 2)
    before = (tmp_path / "b.sqlite").read_bytes()

    code, _, err = kith(capsys, tmp_path, "copy", "a", "b")
    assert code == 2 and "already exists" in err and "Traceback" not in err
    assert (tmp_path / "b.sqlite").read_bytes() == before

    code, _, err = kith(capsys, tmp_path, "delete", "ghost")
    assert code == 2 and "no save 'ghost'" in err

    code, _, err = kith(capsys, tmp_path, "copy", "a", "../escape")
    assert code == 2 and "is not a save name" in err
    assert sorted(p.name for p in tmp_path.parent.iterdir() if "escape" in p.name) == []

    (tmp_path / "other.sqlite").write_bytes(b"something else entirely" * 20)
    code, _, err = kith(capsys, tmp_path, "delete", "other")
    assert code == 2 and "not a Kith save" in err
    assert (tmp_path / "other.sqlite").exists()


@pytest.mark.slow
async def test_the_installed_command(tmp_path: Path) -> None:
    await make_save(tmp_path / "harbour.sqlite", "brinefall", 1)
    kith_bin = Path(sys.executable).parent / "kith"
    done = subprocess.run([str(kith_bin), "--saves-dir", str(tmp_path), "saves", "list", "--json"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert [e["name"] for e in json.loads(done.stdout)] == ["harbour"]


async def test_check_prints_ok_or_every_problem_with_exit_status(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    await make_save(tmp_path / "harbour.sqlite", "brinefall", 3)
    assert kith(capsys, tmp_path, "check", "harbour")[:2] == (0, "ok\n")
    conn = sqlite3.connect(tmp_path / "harbour.sqlite")
    conn.execute("DELETE FROM turns WHERE number = 2")
    conn.execute("UPDATE scenes SET state = '{\"location\": 7}' WHERE turn = 1")
    conn.execute("INSERT INTO nodes (id, name, type, summary, first_seen_turn, last_seen_turn) "
                 "VALUES ('npc-a', 'A', 'individual', 'Someone named A.', 0, 0)")
    for edge_id in ("edge-1", "edge-2"):
        conn.execute("INSERT INTO edges (id, source, target, relation, strength, fact, valid_at) "
                     "VALUES (?, 'npc-a', 'npc-a', 'TRUSTS', 0.5, 'A trusts themself, oddly.', 0)", (edge_id,))
    conn.execute("INSERT INTO knowings (edge_id, knower, how, confidence, since_turn) "
                 "VALUES ('edge-gone', 'npc-a', 'told', 0.5, 1)")
    conn.commit()
    conn.close()
    before = (tmp_path / "harbour.sqlite").read_bytes()
    code, out, _ = kith(capsys, tmp_path, "check", "harbour")
    assert code == 1
    assert "turns are not contiguous (missing: 2" in out
    assert "relation npc-a -> npc-a (TRUSTS) has 2 open versions" in out
    assert "scene of turn 1: location" in out
    assert "knower npc-a of edge-gone: no such relation version" in out
    assert (tmp_path / "harbour.sqlite").read_bytes() == before, "checking never writes"
    code, _, err = kith(capsys, tmp_path, "check", "ghost")
    assert code == 2 and "no save 'ghost'" in err


async def test_reading_commands_leave_the_saves_folder_as_they_found_it(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Reading a save makes its -wal and -shm; a read-only reader could not remove them, so every listing
    or dump left two more files per save. Now they go, unless someone (a game) still has the save open."""
    await make_save(tmp_path / "harbour.sqlite", "brinefall", 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["harbour.sqlite"]
    for command in (["saves", "list"], ["saves", "check", "harbour"], ["graph", "dump", "--save", "harbour"],
                    ["graph", "pending", "--save", "harbour"]):
        await asyncio.to_thread(main, ["--saves-dir", str(tmp_path), *command])
        capsys.readouterr()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["harbour.sqlite"], command

    db = await SaveDatabase.open(tmp_path / "harbour.sqlite", schema=SCHEMA)  # a game still playing it
    try:
        await db.set_meta({"note": "still open"})
        await asyncio.to_thread(kith, capsys, tmp_path, "list")
        assert {p.name for p in tmp_path.iterdir()} >= {"harbour.sqlite-wal", "harbour.sqlite-shm"}
        await db.set_meta({"note": "and still writing"})
        assert (await db.meta())["note"] == "and still writing"
    finally:
        await db.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["harbour.sqlite"]
