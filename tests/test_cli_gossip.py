"""``kith graph gossip`` over real saves, in-process: dry runs write nothing, a seed replays, places count."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers.graph import edge_call, node_call
from test_cli_graph import Kith, digest

from game.__main__ import main
from game.config import load_settings
from game.engine.session import GameSession

CONTENT = Path(__file__).resolve().parent.parent / "content"

TOWN = {"nodes": [node_call("Mira"), node_call("Tomas"), node_call("Oren"), node_call("Sella")],
        "edges": [edge_call("Oren", "Tomas", "KIN_OF", 0.8, "Oren and Tomas are brothers."),
                  edge_call("Mira", "Oren", "DISTRUSTS", -0.6, "Mira distrusts Oren since he seized her boat."),
                  edge_call("Sella", "Mira", "OWES", 0.3, "Sella owes Mira for a crossing.")]}


@pytest.fixture
def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kith:
    return Kith(tmp_path, capsys, monkeypatch)


def tellings(kith: Kith, *args: str) -> list[tuple[int, str, str, str]]:
    result = kith.json("gossip", "--json", *args)
    return [(row["round"], row["teller"], row["listener"], row["fact"]) for row in result["told"]]


def test_a_dry_run_writes_nothing_and_the_real_run_writes_what_it_printed(kith: Kith) -> None:
    kith.upsert("demo", TOWN, "--turn", "1")
    before = digest(kith.save_file())
    dry = tellings(kith, "--save", "demo", "--rounds", "4", "--dry-run")
    assert dry and digest(kith.save_file()) == before
    assert tellings(kith, "--save", "demo", "--rounds", "4") == dry
    known = {(row["source"], row["relation"], row["from"]) for row in kith.json("knows", "--save", "demo", "--json",
                                                                                 dry[0][2])}
    assert any(teller == dry[0][1] for _, _, teller in known)
    # Everyone already heard what they could: a further round tells nothing new.
    assert tellings(kith, "--save", "demo", "--rounds", "2") == []


def test_the_same_seed_tells_the_same_things(kith: Kith) -> None:
    kith.upsert("demo", TOWN, "--turn", "1")
    shutil.copy(kith.save_file(), kith.save_file("copy"))
    first = tellings(kith, "--save", "demo", "--rounds", "3", "--seed", "5")
    assert tellings(kith, "--save", "copy", "--rounds", "3", "--seed", "5") == first
    code, out, _ = kith("gossip", "--save", "copy")
    assert code == 0 and out.startswith("Nobody had anything new to tell")


def test_bad_rounds_and_a_missing_save_are_refused(kith: Kith) -> None:
    code, _, err = kith("gossip", "--save", "nowhere")
    assert code != 0 and "nowhere" in err and "Traceback" not in err
    kith.upsert("demo", TOWN, "--turn", "1")
    with pytest.raises(SystemExit) as exit_:
        kith("gossip", "--save", "demo", "--rounds", "0")
    assert exit_.value.code == 2 and "between 1 and 1000" in kith.capsys.readouterr().err


def test_in_a_game_save_only_people_who_meet_or_are_close_talk(kith: Kith) -> None:
    async def start() -> dict[str, str | None]:
        settings = load_settings(flags={"saves_dir": kith.saves, "content_dir": CONTENT}, env={})
        session = await GameSession.open(settings, save="game", new=True, world="brinefall")
        try:
            [_ async for _ in session.play_turn("look")]
            assert session.scene.story is not None
            return dict(session.scene.story.positions)
        finally:
            await session.close()

    positions = asyncio.run(start())
    result = kith.json("gossip", "--save", "game", "--json", "--rounds", "3")
    assert result["told"]
    dump = kith.dump("game")
    strong = {frozenset((e["source"], e["target"])) for e in dump["edges"]
              if e.get("invalidAt") is None and abs(e["strength"]) >= 0.5}
    ids = {n["name"]: n["id"] for n in dump["nodes"]}
    for row in result["told"]:
        teller, listener = row["teller"], row["listener"]
        same_place = positions.get(teller) is not None and positions.get(teller) == positions.get(listener)
        assert same_place or frozenset((ids[teller], ids[listener])) in strong, row


def test_saves_check_finds_gossip_about_a_version_that_is_gone(kith: Kith) -> None:
    kith.upsert("demo", TOWN, "--turn", "1")
    assert tellings(kith, "--save", "demo", "--rounds", "2")
    assert main(["--saves-dir", str(kith.saves), "saves", "check", "demo"]) == 0
    kith.capsys.readouterr()
    conn = sqlite3.connect(kith.save_file())
    conn.execute("INSERT INTO gossip_log (turn, teller, listener, edge_id, confidence) "
                 "VALUES (9, 'npc-mira', 'npc-tomas', 'edge-gone', 0.7)")
    conn.commit()
    conn.close()
    assert main(["--saves-dir", str(kith.saves), "saves", "check", "demo"]) == 1
    assert "gossip at turn 9 (npc-mira to npc-tomas) about edge-gone: no such relation version" in (
        kith.capsys.readouterr().out)
