"""``kith graph pending`` and ``kith graph resolve``: an author answers a question of identity."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.narrators import Introducing
from helpers.play import collect
from helpers.recordings import assert_generator_remakes
from helpers.saves import SCHEMA
from store_helpers import state

from game.__main__ import main
from game.config import load_settings
from game.engine.session import GameSession
from game.features.identity.questions import questions
from game.store import node_identity
from game.store.database import SaveDatabase
from game.world import load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
TESTS = Path(__file__).parent
KEEPER = {"name": "Keeper Marsh", "summary": "A keeper in an oilskin who knows the stair too well."}


async def played(tmp_path: Path) -> tuple[Any, ...]:
    """A save ``game`` at turn 1 with one open question (1-1); returns the save as it was at turn 0."""
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})
    narrator = Introducing(load_world(FIXTURES, "tiny"), 1, {"nodes": [KEEPER]})
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=narrator)
    try:
        start = await state(session._db)
        await collect(session, "look")
    finally:
        await session.close()
    return start


def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--saves-dir", str(tmp_path / "saves"), "--content-dir", str(FIXTURES), "graph", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_pending_lists_the_open_questions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(played(tmp_path))
    code, out, _ = kith(tmp_path, capsys, "pending", "--save", "game", "--json")
    assert code == 0
    [item] = json.loads(out)["pending"]
    assert item["id"] == "1-1" and item["newName"] == "Keeper Marsh" and item["candidate"] == "Edda Marsh"
    assert 0.4 <= item["confidence"] < 0.8 and "surname" in item["evidence"]
    assert {"newId", "candidateId", "turn", "status", "askedTurn"} <= set(item)
    code, out, _ = kith(tmp_path, capsys, "pending", "--save", "game")
    assert code == 0 and out.startswith("1-1  Keeper Marsh (npc-keeper-marsh) may be Edda Marsh")


def test_resolve_yes_merges_and_logs_and_undo_takes_it_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = asyncio.run(played(tmp_path))
    code, out, err = kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "yes", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["merged"] is True and answer["resolved"]["status"] == "same"
    dump = kith(tmp_path, capsys, "dump", "--save", "game")[1]
    names = {node["name"] for node in json.loads(dump)["nodes"]}
    assert "Keeper Marsh" not in names

    async def check_and_undo() -> None:
        async with await SaveDatabase.open(tmp_path / "saves" / "game.sqlite", schema=SCHEMA) as db:
            [*_, merge] = await node_identity.merges(db)
            assert (merge.strategy, merge.merged_name, merge.evidence) == (
                "author", "Keeper Marsh", "an author said so (kith graph resolve)")
            assert await questions(db, open_only=True) == []
            await db.undo_last_turn()
            assert await state(db) == start  # the turn and the resolution at it, undone exactly

    asyncio.run(check_and_undo())
    assert json.loads(kith(tmp_path, capsys, "pending", "--save", "game", "--json")[1]) == {"pending": []}


def test_resolve_no_keeps_both_and_refuses_a_second_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(played(tmp_path))
    code, out, _ = kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "no")
    assert code == 0 and "stay two people" in out
    names = {node["name"] for node in json.loads(kith(tmp_path, capsys, "dump", "--save", "game")[1])["nodes"]}
    assert {"Keeper Marsh", "Edda Marsh"} <= names
    code, _, err = kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "yes")
    assert code != 0 and "already answered" in err and "Traceback" not in err
    code, _, err = kith(tmp_path, capsys, "resolve", "--save", "game", "9-9", "yes")
    assert code != 0 and "there is no question '9-9'" in err
    with pytest.raises(SystemExit):  # a usage error, as argparse reports them
        kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "perhaps")
    assert "answer yes or no (got 'perhaps')" in capsys.readouterr().err


def test_the_kettle_recording_is_what_its_generator_makes(tmp_path: Path) -> None:
    assert_generator_remakes("make_kettle_recording.py", "identity-kettle.jsonl", tmp_path)


def test_upsert_judges_new_names_only_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    people = tmp_path / "people.json"
    people.write_text(json.dumps({"nodes": [
        {"name": "Bram Kettle", "labels": ["captain"], "summary": "Captain of the Gannet, a year overdue."}]}))
    titled = tmp_path / "titled.json"
    titled.write_text(json.dumps({"nodes": [{"name": "Capt. Bram Kettle", "summary": "The Gannet's captain."}]}))
    assert kith(tmp_path, capsys, "upsert", "--save", "q", str(people))[0] == 0
    code, out, _ = kith(tmp_path, capsys, "upsert", "--save", "q", "--identity", str(titled))
    assert code == 0
    [result] = json.loads(out)[0]["nodes"]["results"]
    assert (result["id"], result["status"]) == ("npc-bram-kettle", "updated")
    stats = json.loads(kith(tmp_path, capsys, "stats", "--save", "q", "--json")[1])
    [assumed] = stats["merges"]["log"]
    assert assumed["strategy"] == "assumed" and assumed["mergedId"] == "" and assumed["keptId"] == "npc-bram-kettle"
    assert "with a title" in assumed["evidence"]
    text = kith(tmp_path, capsys, "stats", "--save", "q")[1]
    assert "Capt. Bram Kettle → npc-bram-kettle, assumed at turn 0" in text
    # Without --identity an upsert matches exact names and aliases only, as it always has.
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"nodes": [{"name": "Captain Kettle", "summary": "A man off the night tide."}]}))
    [created] = json.loads(kith(tmp_path, capsys, "upsert", "--save", "q", str(other))[1])[0]["nodes"]["results"]
    assert created["status"] == "created"
    assert json.loads(kith(tmp_path, capsys, "pending", "--save", "q", "--json")[1]) == {"pending": []}


@pytest.mark.parametrize(("keep", "merged"), [("Tobin Hale", "Keeper Marsh"), ("Keeper Marsh", "Tobin Hale")])
def test_a_merge_closes_the_questions_whose_new_node_it_folds(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             keep: str, merged: str) -> None:
    asyncio.run(played(tmp_path))
    code, _, err = kith(tmp_path, capsys, "merge", "--save", "game", keep, merged, "--evidence", "one person")
    assert code == 0, err
    before = kith(tmp_path, capsys, "dump", "--save", "game")[1]
    assert json.loads(kith(tmp_path, capsys, "pending", "--save", "game", "--json")[1]) == {"pending": []}

    async def question() -> Any:
        async with await SaveDatabase.open(tmp_path / "saves" / "game.sqlite", schema=SCHEMA) as db:
            [item] = await questions(db)
            return item

    item = asyncio.run(question())
    assert not item.is_open and f"{merged} was merged into {keep}" in (item.resolution or "")
    code, _, err = kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "yes")
    assert code == 2 and "already answered" in err and f"{merged} was merged into {keep}" in err
    assert kith(tmp_path, capsys, "dump", "--save", "game")[1] == before  # nobody else merged


def test_a_stale_question_left_open_by_an_older_save_is_refused(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(played(tmp_path))
    code, _, err = kith(tmp_path, capsys, "merge", "--save", "game", "Keeper Marsh", "Tobin Hale", "--evidence", "one")
    assert code == 0, err

    async def reopen() -> None:  # as a save from before merges closed the questions they leave stale
        async with await SaveDatabase.open(tmp_path / "saves" / "game.sqlite", schema=SCHEMA) as db, db.transaction() as conn:
            await conn.execute("UPDATE pending_identities SET status = 'open', resolved_turn = NULL, "
                               "resolution = NULL")

    asyncio.run(reopen())
    before = kith(tmp_path, capsys, "dump", "--save", "game")[1]
    code, _, err = kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "yes")
    assert code == 2 and "question 1-1 is stale: Tobin Hale (npc-tobin-hale) was merged into npc-keeper-marsh" in err
    assert kith(tmp_path, capsys, "dump", "--save", "game")[1] == before
    code, _, err = kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "no")
    assert code == 0, err


def test_a_question_whose_candidate_is_merged_asks_about_the_kept_person(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(played(tmp_path))
    code, _, err = kith(tmp_path, capsys, "merge", "--save", "game", "Tobin Hale", "Edda Marsh", "--evidence", "one")
    assert code == 0, err
    [item] = json.loads(kith(tmp_path, capsys, "pending", "--save", "game", "--json")[1])["pending"]
    assert (item["newName"], item["candidate"], item["status"]) == ("Keeper Marsh", "Tobin Hale", "open")
    code, _, err = kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "yes")
    assert code == 0, err
    names = {node["name"] for node in json.loads(kith(tmp_path, capsys, "dump", "--save", "game")[1])["nodes"]}
    assert "Tobin Hale" in names and "Keeper Marsh" not in names  # the new name folded, no world character
