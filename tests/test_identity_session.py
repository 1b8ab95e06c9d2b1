"""Who is this? A new name the game is unsure of is asked about in the story and settled by the answer.

Played through the real session on a real save (the tiny fixture world). The narrator is the offline one,
which on one turn also names a newcomer in its graph update, as a model's extractor would.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.narrators import Introducing
from helpers.play import collect, text_of
from helpers.questions import questions_of
from helpers.saves import SCRIPTS
from store_helpers import state

from game.config import Settings, load_settings
from game.engine.events import MetaOutput, TurnFailed
from game.engine.session import GameSession
from game.features.identity.questions import questions
from game.store import node_identity
from game.store.database import SaveDatabase
from game.world import load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
KEEPER = {"name": "Keeper Marsh", "summary": "A keeper in an oilskin who knows the stair too well."}


def settings_for(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})


async def start(tmp_path: Path, call: dict[str, Any] | None = None) -> GameSession:
    world = load_world(FIXTURES, "tiny")
    narrator = Introducing(world, 1, {"nodes": [call or KEEPER]})
    return await GameSession.open(settings_for(tmp_path), save="game", new=True, world="tiny", narrator=narrator)


async def disk(session: GameSession) -> tuple[Any, ...]:
    db: SaveDatabase = session._db  # everything undo must restore, read from the save itself
    rows = [p.to_json_dict() for p in await questions(db)]
    return *await state(db), rows


async def test_an_unsure_name_is_a_new_node_and_a_question(tmp_path: Path) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        [asked] = await questions_of(session)
        assert (asked.id, asked.new_name, asked.candidate_name) == ("1-1", "Keeper Marsh", "Edda Marsh")
        assert 0.4 <= asked.confidence < 0.8 and "surname" in asked.evidence
        assert asked.new_id in session.graph.nodes  # never merged silently: a node of its own meanwhile
        said = text_of(await collect(session, "wait"))
        assert said.rstrip().endswith("Keeper Marsh — is that Edda Marsh?")
        [asked] = await questions_of(session)
        assert asked.asked_turn == 2
        # Asked once: the next turn goes on without the question.
        assert "is that Edda Marsh?" not in text_of(await collect(session, "wait"))
    finally:
        await session.close()


@pytest.mark.parametrize("answer", ["yes", "Yes, that's her.", "Edda Marsh"])
async def test_yes_folds_the_new_node_into_the_person_and_undo_takes_it_back(tmp_path: Path, answer: str) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        await collect(session, "wait")
        before = await disk(session)
        [asked] = await questions_of(session)
        events = await collect(session, answer)
        assert any(isinstance(e, MetaOutput) and "Edda Marsh it is" in e.text for e in events)
        assert session.turn == 3
        assert asked.new_id not in session.graph.nodes
        edda = session.graph.nodes[asked.candidate_id]
        assert "Keeper Marsh" in edda.aliases
        assert await questions_of(session) == []
        [*_, merges, rows] = await disk(session)
        assert merges[-1]["mergedId"] == asked.new_id and merges[-1]["strategy"] == "player"
        assert merges[-1]["evidence"] == "the player said so at turn 3"
        assert rows[0]["status"] == "same"
        await collect(session, "undo")
        assert await disk(session) == before
        assert asked.new_id in session.graph.nodes
        [again] = await questions_of(session)
        assert again.asked_turn == 2
    finally:
        await session.close()
    reopened = await GameSession.open(settings_for(tmp_path), save="game")
    try:
        assert [p.id for p in await questions_of(reopened)] == ["1-1"]
    finally:
        await reopened.close()


@pytest.mark.parametrize("answer", ["no", "Nope.", "Keeper Marsh"])
async def test_no_keeps_two_people(tmp_path: Path, answer: str) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        await collect(session, "wait")
        [asked] = await questions_of(session)
        events = await collect(session, answer)
        assert any(isinstance(e, MetaOutput) and "Two people, then" in e.text for e in events)
        assert asked.new_id in session.graph.nodes and asked.candidate_id in session.graph.nodes
        [row] = await questions_of(session, open_only=False)
        assert (row.status, row.resolution) == ("different", "the player said so at turn 3")
    finally:
        await session.close()


async def test_other_words_are_story_and_leave_the_question_open(tmp_path: Path) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        await collect(session, "wait")
        events = await collect(session, "go up")
        assert not any(isinstance(e, MetaOutput) for e in events)
        [asked] = await questions_of(session)
        assert asked.is_open
        # The answer window was the turn after the question: a later "yes" is only story.
        later = await collect(session, "yes")
        assert not any(isinstance(e, MetaOutput) and "it is" in e.text for e in later)
        assert len(await questions_of(session)) == 1
    finally:
        await session.close()


async def test_a_sure_match_is_assumed_and_logged(tmp_path: Path) -> None:
    session = await start(tmp_path, {"name": "Edda Masrh", "summary": "The keeper, her name misspelt."})
    try:
        before = await disk(session)
        await collect(session, "look")
        assert not any(node.name == "Edda Masrh" for node in session.graph.nodes.values())
        edda = next(node for node in session.graph.nodes.values() if node.name == "Edda Marsh")
        assert "Edda Masrh" in edda.aliases
        [*_, merges, rows] = await disk(session)
        assert rows == []
        assert merges[-1]["strategy"] == "assumed" and merges[-1]["keptId"] == edda.id
        assert "slip of the pen" in merges[-1]["evidence"]
        await collect(session, "undo")
        assert await disk(session) == before
    finally:
        await session.close()


async def test_the_model_is_told_to_ask(tmp_path: Path) -> None:
    """The prompt's note (the model narrator's side of asking), from the context the turn composed."""
    from game.narrator.llm.prompts import identity_note
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        await collect(session, "wait")
        context = await session.turn_context()
        note = identity_note(context)
        assert "Keeper Marsh — is that Edda Marsh?" in note and "do not answer it yourself" in note
        await collect(session, "wait")
        assert identity_note(await session.turn_context()) == ""
    finally:
        await session.close()


def test_rows_are_json_scalars() -> None:
    from game.features.identity.questions import PendingIdentity
    row = PendingIdentity("1-1", 1, "a", "A", "b", "B", 0.6, "why").write().row
    assert row is not None
    json.dumps(dict(row))


async def test_a_question_whose_people_were_merged_meanwhile_is_not_asked(tmp_path: Path) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        [asked] = await questions_of(session)
        await node_identity.merge_nodes(session._db, asked.candidate_id, asked.new_id, strategy="manual", evidence="an author",
                                      turn=1)
        await session.reload()
        assert "is that Edda Marsh?" not in text_of(await collect(session, "wait"))
        assert read_answer_left_alone(await collect(session, "yes"))
    finally:
        await session.close()


def read_answer_left_alone(events: list[Any]) -> bool:
    return not any(isinstance(e, MetaOutput) and "it is:" in e.text for e in events)


async def test_a_save_from_before_questions_of_identity_opens_and_asks(tmp_path: Path) -> None:
    world = load_world(FIXTURES, "tiny")
    session = await GameSession.open(settings_for(tmp_path), save="game", new=True, world="tiny",
                                     narrator=Introducing(world, 2, {"nodes": [KEEPER]}))
    try:
        await collect(session, "look")
        path = session._db.path
    finally:
        await session.close()
    at = next(i for i, script in enumerate(SCRIPTS) if "pending_identities" in script)
    with sqlite3.connect(path) as conn:  # as a Kith from before this migration left it
        conn.execute("DROP TABLE pending_identities")
        for later in ("deeds", "deed_knowers"):  # tables of later migrations, which that Kith had not made
            conn.execute(f"DROP TABLE {later}")
        conn.execute(f"PRAGMA user_version = {at}")
    reopened = await GameSession.open(settings_for(tmp_path), save="game",
                                      narrator=Introducing(world, 2, {"nodes": [KEEPER]}))
    try:
        assert await questions_of(reopened) == []
        await collect(reopened, "wait")
        [asked] = await questions_of(reopened)
        assert asked.id == "2-1"
        assert "is that Edda Marsh?" in text_of(await collect(reopened, "wait"))
    finally:
        await reopened.close()


async def test_an_answer_the_save_cannot_keep_changes_nothing(tmp_path: Path) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        await collect(session, "wait")
        before = await disk(session)
        with sqlite3.connect(session._db.path) as conn:  # the write of the answer fails inside SQLite
            conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON pending_identities WHEN NEW.status != 'open' "
                         "BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END")
        events = await collect(session, "yes")
        failed = [e for e in events if isinstance(e, TurnFailed)]
        assert failed and "simulated write failure" in failed[0].message and "nothing was saved" in failed[0].message
        assert await disk(session) == before and session.turn == 2
        [asked] = await questions_of(session)
        assert asked.new_id in session.graph.nodes
    finally:
        await session.close()
