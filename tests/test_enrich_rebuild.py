"""``kith graph rebuild --extractor fast|model`` and its diff, and a save from before turns said how they
were read (migration 6): its unextracted turns are queued as read by nobody, the fast path can read
them without a model, and a model's reading later replaces that."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from chat_server import ChatServer, Text, ToolCalls
from helpers.interrupt import interruptible
from helpers.narrators import BrokenNarrator
from helpers.saves import CURRENT_VERSION, SCHEMA, migration_of, older_save
from llm_helpers import edge, ir, relation

from game.__main__ import main
from game.config import load_settings
from game.engine.session import GameSession
from game.store import enrichment, turn_log
from game.store.database import SaveDatabase
from game.world import load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
PLAIN = "Edda Marsh is afraid of Tobin Hale. The lamp gutters."


async def old_save_with_an_unread_turn(tmp_path: Path) -> Path:
    """A tiny-world game as the code before migration 6 (turns.extraction) kept it, with turn 1 stored and
    its graph update failed: built with the migrations before that one, its rows copied from a new game."""
    settings = load_settings(flags={"saves_dir": tmp_path / "new", "content_dir": FIXTURES}, env={})
    session = await GameSession.open(settings, save="game", new=True, world="tiny",
                                     narrator=BrokenNarrator(load_world(FIXTURES, "tiny"), None))
    await session.close()
    before = migration_of("ADD COLUMN extraction")
    path = older_save(tmp_path / "new" / "game.sqlite", tmp_path / "game.sqlite", before)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO turns (number, input, narration, world_ir, npc_context, timings, extracted, created_at) "
                 "VALUES (1, 'wait', ?, NULL, '', '{}', 0, '2026-01-01T00:00:00Z')", (PLAIN,))
    conn.execute("INSERT INTO scenes (turn, state) SELECT 1, state FROM scenes WHERE turn = 0")
    conn.commit()
    conn.close()
    return path


def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--saves-dir", str(tmp_path), "--content-dir", str(FIXTURES), "graph", *args])
    out, err = capsys.readouterr()
    return code, out, err


async def test_an_old_saves_unextracted_turn_is_queued_as_read_by_nobody(tmp_path: Path) -> None:
    path = await old_save_with_an_unread_turn(tmp_path)
    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        assert (await db.conn.execute_fetchall("PRAGMA user_version"))[0][0] == CURRENT_VERSION
        assert [(t.number, t.extracted, t.extraction) for t in await enrichment.pending_extraction(db)] == [(1, False, "none")]
        assert await enrichment.extraction_counts(db) == {"none": 1}


async def test_rebuild_with_the_fast_path_reads_unread_turns_and_prints_the_diff(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    await old_save_with_an_unread_turn(tmp_path)
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "rebuild", "--save", "game", "--extractor", "fast")
    assert code == 0, err
    assert out.splitlines() == [
        "turn 1: read by the fast path (1 relation(s))",
        "Changes to the graph: 1 added, 0 changed, 0 closed.",
        "  + Edda Marsh → Tobin Hale FEARS (-0.50)",
    ]
    # Read, but still waiting for a model; a second fast rebuild has nothing left to read.
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "rebuild", "--save", "game", "--extractor",
                                             "fast", "--json")
    report = json.loads(out)
    assert code == 0 and report["read"] == [] and report["remaining"] == [1] and report["extractor"] == "fast"
    assert report["diff"] == {"added": [], "changed": [], "closed": [], "people": []}
    code, out, _ = await asyncio.to_thread(kith, tmp_path, capsys, "rebuild", "--save", "game", "--extractor", "fast")
    assert out.strip() == "Nothing for the fast extractor to read: 1 turn(s) wait for a model."


async def test_rebuild_with_a_model_replaces_the_fast_reading_and_shows_what_changed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    await old_save_with_an_unread_turn(tmp_path)
    assert (await asyncio.to_thread(kith, tmp_path, capsys, "rebuild", "--save", "game", "--extractor", "fast"))[0] == 0
    fact = "Edda Marsh dreads Tobin Hale, who wants her post."
    fears = relation("Edda Marsh", "Tobin Hale", "FEARS", -0.8, fact)
    fears["evidence"] = "Edda Marsh is afraid of Tobin Hale."
    trusts = edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.4, "Edda Marsh trusts Sam Reed to mind the lamp a while.")
    with ChatServer() as server:
        server.push(Text(json.dumps(ir(relations=[fears]))),
                    ToolCalls([("upsert_npc_graph", {"edges": [edge("Edda Marsh", "Tobin Hale", "FEARS", -0.8, fact),
                                                               trusts]})]))
        code, out, err = await asyncio.to_thread(
            kith, tmp_path, capsys, "rebuild", "--save", "game", "--json", "--base-url", server.base_url,
            "--model", "test-model")
    assert code == 0, err
    report = json.loads(out)
    assert report["extracted"] == [1] and report["remaining"] == [] and report["extractor"] == "model"
    assert report["diff"]["changed"] == ["Edda Marsh → Tobin Hale FEARS: -0.50 → -0.80"]
    assert report["diff"]["added"] == ["Edda Marsh → Sam Reed TRUSTS (+0.40)"]


@pytest.mark.slow
async def test_ctrl_c_during_kith_graph_enrich_keeps_the_save_consistent_and_the_next_run_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from chat_server import Delayed

    story = tmp_path / "story.md"
    story.write_text("Hob Tarrant hates the Saltwrights' Guild.\n\nTibby Tarrant trusts Hob Tarrant.\n", encoding="utf-8")
    assert await asyncio.to_thread(main, ["--saves-dir", str(tmp_path), "import-story", "--save", "s", "--world",
                                          "brinefall", str(story)]) == 0
    capsys.readouterr()
    hates = relation("Hob Tarrant", "Saltwrights' Guild", "HATES", -0.8, "Hob Tarrant has hated the Guild for years.")
    hates["evidence"] = "Hob Tarrant hates the Saltwrights' Guild."
    with ChatServer() as server:
        model_edge = edge("Hob Tarrant", "Saltwrights' Guild", "HATES", -0.8, hates["fact"])
        server.push(Text(json.dumps(ir(relations=[hates]))),
                    ToolCalls([("upsert_npc_graph", {"edges": [model_edge]})]),
                    Delayed(30, Text(json.dumps(ir()))))
        root = Path(__file__).resolve().parent.parent
        process = interruptible(
            [sys.executable, "-m", "game", "--saves-dir", str(tmp_path), "graph", "enrich", "--save", "s",
             "--base-url", server.base_url, "--model", "test-model"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(root)})
        assert process.stdout is not None
        assert process.stdout.readline().startswith("turn 1: extracted"), "turn 1 is committed on its own"
        deadline = time.monotonic() + 10
        while len(server.received) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)  # turn 2's model request is under way
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=20)
    assert process.returncode == 130 and "Stopped: 1 turn(s) enriched" in err and "Traceback" not in err
    async with await SaveDatabase.open(tmp_path / "s.sqlite", schema=SCHEMA) as db:
        assert (await db.conn.execute_fetchall("PRAGMA integrity_check"))[0][0] == "ok"
        assert [(t.number, t.extraction) for t in await turn_log.turns(db)] == [(1, "enriched"), (2, "fast")]
    with ChatServer() as server:
        server.push(Text(json.dumps(ir())))
        code = await asyncio.to_thread(main, ["--saves-dir", str(tmp_path), "graph", "enrich", "--save", "s", "--json",
                                              "--base-url", server.base_url, "--model", "test-model"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["queued"] == [2] and report["enriched"] == [2] and report["remaining"] == []


async def six_queued_turns_and_a_down_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A save ``s`` of six imported turns waiting for a model, and the address of a server no longer there:
    every turn would fail the same way (and with a server that hangs instead of refusing, each would wait
    out the whole timeout)."""
    story = tmp_path / "story.md"
    story.write_text("\n\n".join(f"Hob Tarrant trusts Tibby Tarrant. The tide turns {n}." for n in range(6)) + "\n",
                     encoding="utf-8")
    assert await asyncio.to_thread(main, ["--saves-dir", str(tmp_path), "import-story", "--save", "s", "--world",
                                          "brinefall", str(story)]) == 0
    capsys.readouterr()
    with ChatServer() as server:
        return server.base_url


async def test_enrich_stops_when_turns_fail_alike_instead_of_asking_a_down_server_for_every_turn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    down = await six_queued_turns_and_a_down_server(tmp_path, capsys)
    code = await asyncio.to_thread(main, ["--saves-dir", str(tmp_path), "graph", "enrich", "--save", "s", "--json",
                                          "--base-url", down, "--model", "test-model"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["enriched"] == [] and report["remaining"] == [1, 2, 3, 4, 5, 6]
    assert len(report["report"]) == 3, report["report"]  # two turns failing alike, then why it stopped
    assert report["report"][-1].startswith("Stopped: turns 1 and 2 failed alike")


async def test_rebuild_stops_when_turns_fail_alike_instead_of_asking_a_down_server_for_every_turn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    down = await six_queued_turns_and_a_down_server(tmp_path, capsys)
    code = await asyncio.to_thread(main, ["--saves-dir", str(tmp_path), "graph", "rebuild", "--save", "s",
                                          "--extractor", "model", "--base-url", down, "--model", "test-model"])
    out = capsys.readouterr().out
    assert code == 1
    assert "Stopped: turns 1 and 2 failed alike" in out
    assert "turn 3:" not in out  # the rest were never asked for
