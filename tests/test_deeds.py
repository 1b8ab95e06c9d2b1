"""Deeds (issue 23): every act the parser resolves is recorded, with who saw it; the contracts of
``kith graph deeds`` and ``kith graph knows --deeds`` hold; undo takes a deed and its knowers back exactly.

Real parts throughout: Brinefall played by the real session into a real save, read back by the real CLI.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.play import play_session
from helpers.saves import migration_of, older_save

from game.__main__ import main
from game.config import Settings, load_settings
from game.engine.session import GameSession


def settings_for(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})


def play(tmp_path: Path, commands: list[str], save: str = "g", world: str = "brinefall") -> None:
    async def run() -> None:
        session = await GameSession.open(settings_for(tmp_path), save=save, new=True, world=world)
        try:
            await play_session(session, commands)
        finally:
            await session.close()

    asyncio.run(run())


def kith_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], *words: str) -> Any:
    capsys.readouterr()
    assert main(["--saves-dir", str(tmp_path / "saves"), "graph", *words, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


UNDO_KEEPS = ("journal", "sqlite_sequence")
"""What undo leaves moved on by design: the journal's own rows and the counters of AUTOINCREMENT keys."""


def dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table but ``UNDO_KEEPS`` (and the time the save was last played)."""
    conn = sqlite3.connect(path)
    try:
        tables = [str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        found = {t: sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr)
                 for t in tables if t not in UNDO_KEEPS}
        found["meta"] = [row for row in found["meta"] if row[0] != "last_played"]
        return found
    finally:
        conn.close()


def test_a_threat_is_a_deed_in_the_contract_shape_seen_by_its_two_people(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    play(tmp_path, ["w", "threaten tibby"])
    deeds = kith_json(tmp_path, capsys, "deeds", "--save", "g")
    assert deeds == [{"deedId": "deed-2-1", "turn": 2, "actor": "Wren Tallis", "act": "threaten",
                      "target": "Tibby Tarrant", "place": "lowtown", "valence": "harmful", "witnesses": [],
                      "sentence": "Wren Tallis threatened Tibby Tarrant."}]
    known = kith_json(tmp_path, capsys, "knows", "--save", "g", "Tibby", "--deeds")
    assert known == [{"deedId": "deed-2-1", "act": "threaten", "actor": "Wren Tallis", "target": "Tibby Tarrant",
                      "turn": 2, "how": "seen", "from": None, "confidence": 1.0, "sinceTurn": 2}]
    assert [k["deedId"] for k in kith_json(tmp_path, capsys, "knows", "--save", "g", "player", "--deeds")] \
        == ["deed-2-1"]
    assert kith_json(tmp_path, capsys, "knows", "--save", "g", "Hob", "--deeds") == []  # Hob was not there


def test_deeds_filter_by_actor_and_target_and_a_question_is_a_neutral_deed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    play(tmp_path, ["ask hob about the bell", "w", "threaten tibby"])
    deeds = kith_json(tmp_path, capsys, "deeds", "--save", "g", "--actor", "player")
    assert [(d["act"], d["target"], d["valence"]) for d in deeds] == [
        ("ask", "Hob Tarrant", "neutral"), ("threaten", "Tibby Tarrant", "harmful")]
    assert deeds[0]["sentence"] == "Wren Tallis asked Hob Tarrant about the bell."
    to_hob = kith_json(tmp_path, capsys, "deeds", "--save", "g", "--target", "Hob")
    assert [d["act"] for d in to_hob] == ["ask"]
    assert kith_json(tmp_path, capsys, "deeds", "--save", "g", "--actor", "Hob") == []


def test_a_witness_on_stage_is_listed_and_knows_the_deed_as_seen(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    play(tmp_path, ["n", "look"])
    here = kith_json(tmp_path, capsys, "deeds", "--save", "g")
    assert here == []  # looking around is no deed
    play(tmp_path, ["n", "threaten lise"], save="h")
    deeds = kith_json(tmp_path, capsys, "deeds", "--save", "h")
    assert len(deeds) == 1 and deeds[0]["target"] == "Lise Brack"
    assert deeds[0]["witnesses"] == ["Dace Merrow"]  # on the quay beside her
    for witness in deeds[0]["witnesses"]:
        rows = kith_json(tmp_path, capsys, "knows", "--save", "h", witness, "--deeds")
        assert [(r["how"], r["confidence"]) for r in rows] == [("seen", 1.0)]


def test_undo_takes_a_deed_and_its_knowers_back_exactly(tmp_path: Path) -> None:
    save = tmp_path / "saves" / "g.sqlite"
    play(tmp_path, ["w"])
    before = dump(save)

    async def threaten_then_undo() -> None:
        session = await GameSession.open(settings_for(tmp_path), save="g")
        try:
            await play_session(session, ["threaten tibby"])
            assert [d.act for d in session.features["deeds"].deeds.values()] == ["threaten"]
            await session.undo()
            assert session.features["deeds"].deeds == {}
        finally:
            await session.close()

    asyncio.run(threaten_then_undo())
    after = dump(save)
    assert after["deeds"] == [] and after["deed_knowers"] == []
    assert after == before


@pytest.mark.parametrize(("world", "start", "commands"), [
    ("brinefall", ["n", "w"], ["threaten ambry", "e", "wait", "wait", "e", "talk to pell"]),
    # The second world: a theft and a threat, their word to Ada and her grievance said, a confession made.
    ("thornwick", ["w"], ["take the whistle from cob", "e", "e", "threaten brann", "w", "wait", "wait", "w",
                          "talk to ada", "ask ada about tam"]),
])
def test_undo_across_deeds_and_their_gossip_restores_the_whole_save(tmp_path: Path, world: str, start: list[str],
                                                                     commands: list[str]) -> None:
    """Turn by turn back over deeds and the turns their word travelled: every table as it was."""
    save = tmp_path / "saves" / "g.sqlite"
    play(tmp_path, start, world=world)
    before = dump(save)

    async def play_then_undo() -> None:
        session = await GameSession.open(settings_for(tmp_path), save="g")
        try:
            await play_session(session, commands)
            book = session.features["deeds"]
            assert any(row.how == "told" for row in book.knowings.values())  # word did travel
            for _ in commands:
                await session.undo()
            assert session.features["deeds"].deeds == {}
        finally:
            await session.close()

    asyncio.run(play_then_undo())
    assert dump(save) == before


def test_a_save_from_before_deeds_opens_upgrades_and_records_them(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    play(tmp_path, ["w"], save="new")
    saves = tmp_path / "saves"
    older_save(saves / "new.sqlite", saves / "old.sqlite", migration_of("CREATE TABLE IF NOT EXISTS deeds"))
    assert "deeds" not in {r[0] for r in sqlite3.connect(saves / "old.sqlite").execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}

    async def play_on() -> None:
        session = await GameSession.open(settings_for(tmp_path), save="old")
        try:
            await play_session(session, ["threaten tibby"])
        finally:
            await session.close()

    asyncio.run(play_on())
    assert [d["act"] for d in kith_json(tmp_path, capsys, "deeds", "--save", "old")] == ["threaten"]


def test_a_damaged_deed_is_reported_not_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    play(tmp_path, ["w", "threaten tibby"])
    with sqlite3.connect(tmp_path / "saves" / "g.sqlite") as conn:
        conn.execute("UPDATE deeds SET witnesses = 'not json'")
    capsys.readouterr()
    assert main(["--saves-dir", str(tmp_path / "saves"), "graph", "deeds", "--save", "g"]) != 0
    assert "g is damaged" in capsys.readouterr().err
