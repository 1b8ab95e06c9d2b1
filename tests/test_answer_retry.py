"""Retry, continue, edit and swipe on the turn that answered a question of identity.

An answer ("yes": Keeper Marsh is Edda Marsh) is a turn of its own, kept by the game and told by no narrator;
its "yes" folds two people into one (graph and minds). Telling it again would tell "yes" as an ordinary story
turn and silently part them again, so every way of re-telling that turn is refused with one message and the
save is left exactly as it was; ``undo`` is how an answer is taken back. Real saves in tmp folders, played
through the real session (the tiny fixture world, the offline narrator whose graph update names a newcomer:
``test_mind_merge``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers.play import collect, text_of
from helpers.ui import SIZE, make_app, play, settle
from test_mind_merge import FIXTURES, Witnessed, settings_for, start

from game.engine.events import TurnCommitted, TurnReplaced
from game.engine.session import GameSession
from game.features.tellings.rules import ANSWERED
from game.ui.story_log import StoryLog
from game.world import load_world

KEEPER, EDDA = "npc-keeper-marsh", "npc-edda-marsh"
REFUSED = "Turn 3 answered a question (is Keeper Marsh Edda Marsh?); `undo` it to answer again."


def save_rows(session: GameSession) -> dict[str, list[tuple[object, ...]]]:
    """Every table of the save, every row, sorted: what a refused command must leave exactly as it was."""
    with sqlite3.connect(session._db.path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in names}


async def answered(tmp_path: Path, answer: str) -> GameSession:
    """A game at turn 3: the keeper met at turn 1, asked about at turn 2, ``answer`` given at turn 3."""
    session = await start(tmp_path)
    await collect(session, "look")
    await collect(session, "wait")
    said = text_of(await collect(session, answer))
    assert ("Edda Marsh it is" if answer == "yes" else "Two people, then") in said
    assert session.turn == 3
    return session


def people(session: GameSession) -> set[str]:
    return {node_id for node_id in (KEEPER, EDDA) if node_id in session.graph.nodes}


@pytest.mark.parametrize("command", ["retry", "/retry", "continue", "/edit Edda nods.", "/edit-input yes, it is"])
async def test_telling_a_yes_again_is_refused_and_the_merge_stays(tmp_path: Path, command: str) -> None:
    session = await answered(tmp_path, "yes")
    try:
        assert people(session) == {EDDA}
        before = save_rows(session)
        events = await collect(session, command)
        assert text_of(events) == REFUSED
        assert not any(isinstance(e, TurnCommitted | TurnReplaced) for e in events)
        assert save_rows(session) == before  # nothing written: the answer and its merge are as they were
        assert people(session) == {EDDA} and session.turn == 3
        assert "Sam Reed helped me." in [m.text for m in session.memories.of(EDDA)]
        # Undo still takes the answer back, merge and all, and the question can be answered again.
        await collect(session, "undo")
        assert people(session) == {KEEPER, EDDA} and session.turn == 2
        assert "Edda Marsh it is" in text_of(await collect(session, "yes"))
        assert people(session) == {EDDA}
    finally:
        await session.close()


async def test_a_no_is_not_told_again_either(tmp_path: Path) -> None:
    session = await answered(tmp_path, "no")
    try:
        before = save_rows(session)
        assert text_of(await collect(session, "retry")) == REFUSED
        assert save_rows(session) == before
        assert people(session) == {KEEPER, EDDA}
        [question] = [p for p in await session.pending_identities(open_only=False) if p.new_id == KEEPER]
        assert (question.status, question.resolved_turn) == ("different", 3)
    finally:
        await session.close()


async def test_swipe_on_an_answer_says_the_same(tmp_path: Path) -> None:
    session = await answered(tmp_path, "yes")
    try:
        before = save_rows(session)
        assert text_of(await collect(session, "/swipe <")) == REFUSED
        assert save_rows(session) == before
    finally:
        await session.close()


async def test_the_turn_that_asks_can_be_told_again_and_the_question_still_answered(tmp_path: Path) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        await collect(session, "wait")  # turn 2 asks; no answer yet
        events = await collect(session, "retry")
        assert any(isinstance(e, TurnReplaced) for e in events), text_of(events)
        [asked] = await session.pending_identities()
        assert (asked.new_id, asked.asked_turn) == (KEEPER, 2)
        assert "Edda Marsh it is" in text_of(await collect(session, "yes"))
        assert people(session) == {EDDA}
    finally:
        await session.close()


async def test_ctrl_r_and_left_on_an_answer_say_so_in_the_app(tmp_path: Path) -> None:
    """The keys send the commands a player could type: the screen shows the same one message."""
    app = make_app(tmp_path, settings_for(tmp_path), world="tiny", narrator=Witnessed(load_world(FIXTURES, "tiny")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for line in ("look", "wait", "yes"):
            await play(pilot, line)
        assert app.session is not None and app.session.turn == 3
        assert people(app.session) == {EDDA}
        before = save_rows(app.session)
        for key in ("ctrl+r", "ctrl+g", "left"):
            await pilot.press(key)
            await settle(pilot)
        shown = str(app.query_one(StoryLog).plain_text())
        assert shown.count(REFUSED) == 3, shown[-600:]
        assert "Telling 2" not in shown
        assert save_rows(app.session) == before and people(app.session) == {EDDA}


def test_playing_md_quotes_the_message_the_game_gives() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "playing.md").read_text(encoding="utf-8")
    said = ANSWERED.format(turn=3, new="Captain Kettle", candidate="Bram Kettle")
    assert said in " ".join(doc.split())


@pytest.mark.parametrize("command", ["retry", "continue", "/edit Edda nods.", "/edit-input look"])
async def test_a_command_kept_as_a_turn_is_not_told_again(tmp_path: Path, command: str) -> None:
    """``/relationship NAME set`` is a turn the game keeps, like an answer: told again as story, the trust
    it set would be lost."""
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        assert "now 40" in text_of(await collect(session, "/relationship Edda set trust 40"))
        before = save_rows(session)
        said = text_of(await collect(session, command))
        assert said == ("Turn 2 is the command `/relationship Edda set trust 40`, kept as a turn and told by no "
                        "narrator; `undo` it to change it.")
        assert save_rows(session) == before
        assert session.attitudes.of(session.graph.nodes[EDDA]).trust == 40
        await collect(session, "undo")
        assert session.turn == 1 and session.attitudes.of(session.graph.nodes[EDDA]).trust != 40
    finally:
        await session.close()
