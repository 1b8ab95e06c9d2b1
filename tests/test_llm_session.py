"""Whole turns with the LLM narrator through ``GameSession`` and a real save: a turn commits with its
graph update, a failed extraction commits the narration marked not extracted (and re-extraction later
records it), a failed narration or a cancelled turn writes nothing."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Delayed, Failure, Text, ToolCalls
from helpers.play import collect
from helpers.saves import SCHEMA
from llm_helpers import WORLDS, character, edge, ir, llm_settings, open_relations, relation, tiny_world

from game.config import Settings
from game.engine.events import (
    GraphUpdating,
    NarrationDelta,
    NarrationDone,
    Notice,
    TurnCommitted,
    TurnFailed,
)
from game.engine.session import GameSession
from game.narrator.llm.narrator import OpenAINarrator
from game.store.database import SaveDatabase
from game.world import load_world

NARRATION = "You steady the wick while Edda ties it. She grunts, which is thanks."
TRUST = edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed since Sam steadied her wick.")
FACTS = ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
           relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, TRUST["fact"])], nextCast=["Edda Marsh"])


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def _settings(tmp_path: Path, server: ChatServer, **llm: Any) -> Settings:
    return Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                    llm=llm_settings(server.base_url, **llm))


async def _open(settings: Settings, new: bool = True) -> GameSession:
    teller = OpenAINarrator(settings.llm, tiny_world(), env={})
    return await GameSession.open(settings, save="game", new=new, world="tiny", narrator=teller)


async def _saved_turn(settings: Settings) -> int:
    async with await SaveDatabase.open(settings.saves_dir / "game.sqlite", schema=SCHEMA) as db:
        return await db.current_turn()


async def test_a_turn_commits_with_its_memory_update(tmp_path: Path, server: ChatServer) -> None:
    settings = _settings(tmp_path, server)
    server.push(Text(NARRATION), Text(json.dumps(FACTS)), ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]))
    session = await _open(settings)
    events = await collect(session, "help Edda with the wick")
    kinds = [type(e) for e in events if not isinstance(e, NarrationDelta)]
    assert kinds.index(NarrationDone) < kinds.index(GraphUpdating) < kinds.index(TurnCommitted)
    committed = next(e for e in events if isinstance(e, TurnCommitted))
    assert committed.extracted
    assert session.scene.cast == ["Edda Marsh"]
    assert session.narrator_label == "test-model @ 127.0.0.1:" + str(server.port)
    await session.close()
    reopened = await _open(settings, new=False)
    assert reopened.turn == 1
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") in open_relations(reopened.graph)
    await reopened.close()


async def test_a_failed_extraction_commits_the_story_and_can_be_redone(tmp_path: Path, server: ChatServer) -> None:
    settings = _settings(tmp_path, server, extractor_steps=2)
    claim = "I updated the graph: Edda trusts Sam now."
    server.push(Text(NARRATION), Text(json.dumps(FACTS)), Text(claim), Text(claim))
    session = await _open(settings)
    events = await collect(session, "help Edda with the wick")
    committed = next(e for e in events if isinstance(e, TurnCommitted))
    assert not committed.extracted
    warning = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert warning and "the graph was not updated" in warning[0] and "prose" in warning[0]
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") not in open_relations(session.graph)
    assert session.turn == 1 and session.history[-1].narration == NARRATION

    server.push(ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]))
    lines = await session.reextract_pending()
    assert lines == ["turn 1: extracted (1 calls)"]
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") in open_relations(session.graph)
    await session.close()


async def test_a_failed_narration_writes_nothing(tmp_path: Path, server: ChatServer) -> None:
    settings = _settings(tmp_path, server, retries=1)
    server.push(Failure(500, "boom"), Failure(500, "boom"))
    session = await _open(settings)
    events = await collect(session, "help Edda")
    failed = [e for e in events if isinstance(e, TurnFailed)]
    assert failed and "HTTP 500" in failed[0].message and "Nothing of this turn was saved" in failed[0].message
    assert session.turn == 0
    await session.close()
    assert await _saved_turn(settings) == 0


async def test_cancelling_a_turn_mid_stream_writes_nothing(tmp_path: Path, server: ChatServer) -> None:
    settings = _settings(tmp_path, server)
    record = tmp_path / "session.jsonl"
    server.push(Text(NARRATION, chunk_size=4, pause=0.05))
    teller = OpenAINarrator(settings.llm, tiny_world(), env={}, record=record)
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    seen = asyncio.Event()

    async def play() -> None:
        async for event in session.play_turn("help Edda"):
            if isinstance(event, NarrationDelta):
                seen.set()

    task = asyncio.create_task(play())
    await asyncio.wait_for(seen.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert session.turn == 0 and not session.history
    await session.close()
    assert await _saved_turn(settings) == 0
    assert len(record.read_text(encoding="utf-8").splitlines()) == 1  # the header only: nothing recorded


SEEN = ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
          relations=[{**relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, TRUST["fact"]),
                      "evidence": "You steady the wick while Edda ties it."}], nextCast=["Edda Marsh"])
"""FACTS whose evidence is in NARRATION, so the World IR path records it."""


async def test_a_server_that_refuses_tools_turns_them_off_with_one_notice(tmp_path: Path, server: ChatServer) -> None:
    """llama-server without --jinja answers 500 to any request with tools: the turn still commits,
    the graph is updated from the World IR, and later turns send no tools (issue 12)."""
    server.refuse_tools = (500, "tools param requires --jinja flag")
    settings = _settings(tmp_path, server)
    server.push(Text(NARRATION), Text(json.dumps(SEEN)), Text(NARRATION), Text(json.dumps(SEEN)))
    session = await _open(settings)
    first = await collect(session, "help Edda with the wick")
    assert next(e for e in first if isinstance(e, TurnCommitted)).extracted
    told = [e.text for e in first if isinstance(e, Notice) and "refuses tools" in e.text]
    assert len(told) == 1
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") in open_relations(session.graph)
    second = await collect(session, "wait")
    assert next(e for e in second if isinstance(e, TurnCommitted))
    assert not [e for e in second if isinstance(e, Notice) and "refuses tools" in e.text]
    assert all("tools" not in r.body for r in server.chat_requests[1:])
    await session.close()


async def test_tools_can_be_turned_off_by_choice(tmp_path: Path, server: ChatServer) -> None:
    settings = _settings(tmp_path, server, tools=False, max_tool_rounds=0)
    server.push(Text(NARRATION), Text(json.dumps(SEEN)))
    session = await _open(settings)
    events = await collect(session, "help Edda with the wick")
    assert next(e for e in events if isinstance(e, TurnCommitted)).extracted
    assert all("tools" not in r.body for r in server.chat_requests)
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") in open_relations(session.graph)
    await session.close()


JUNK_SUMMARY = '"}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 101, "'
JUNK = ir(charactersPresent=["Lise"] * 39 + ["allied_with"],
          entities=[character("Lise", JUNK_SUMMARY), character("allied_with", "A made-up person of the model.")],
          relations=[relation("allied_with", "Lise", "ALLIED_WITH", 0.5, "allied_with is allied with Lise now.")],
          nextCast=["1"])
"""What a looping tiny base model wrote on a real llama-server (issue 12): Lise forty times over, a
summary of numbers for her, a relation type taken for a person, ``nextCast ["1"]``."""


async def test_graph_rebuild_holds_a_junk_world_ir_to_the_turns_rules(tmp_path: Path, server: ChatServer) -> None:
    """``kith graph rebuild`` with ``extraction = "world-ir"``: a World IR asked for again (turn 1) and one
    stored by an older Kith (turn 2) are both junk; Lise Brack keeps her authored summary and nothing of
    the junk reaches the graph."""
    from game.__main__ import main

    config = tmp_path / "kith.toml"
    config.write_text(f'world = "brinefall"\n[llm]\nbase_url = "{server.base_url}"\nmodel = "test-model"\n'
                      'extraction = "world-ir"\nrepair_attempts = 0\ntimeout = 5\nretries = 0\n', encoding="utf-8")
    settings = Settings(world="brinefall", saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, extraction="world-ir", repair_attempts=0))
    session = await GameSession.open(settings, save="game", new=True, world="brinefall")
    story = "Hob Tarrant coils a wet rope on the ferry and says nothing about the tide."
    # Turn 1: the World IR is unreadable, so the turn is stored without one, marked not extracted.
    server.push(Text(story), Text("Lise Lise Lise Lise"), Text(story), Text(json.dumps(ir(nextCast=["Hob Tarrant"]))))
    try:
        first = await collect(session, "wait")
        assert not next(e for e in first if isinstance(e, TurnCommitted)).extracted
        second = await collect(session, "wait again")
        assert next(e for e in second if isinstance(e, TurnCommitted)).extracted
        before = {n.id: n.summary for n in session.graph.nodes.values()}
    finally:
        await session.close()
    # Turn 2 as a save from before the rules: its stored World IR is the junk, and it is pending.
    conn = sqlite3.connect(settings.saves_dir / "game.sqlite")
    conn.execute("UPDATE turns SET world_ir = ?, extracted = 0 WHERE number = 2", (json.dumps(JUNK),))
    conn.commit()
    conn.close()

    server.push(Text(json.dumps(JUNK)))
    args = ["--config", str(config), "--saves-dir", str(settings.saves_dir), "graph", "rebuild", "--save", "game",
            "--json"]
    code = await asyncio.to_thread(main, args)
    assert code == 0
    assert len(server.chat_requests) == 5, "turn 1's World IR was asked for again, and nothing else"

    reopened = await GameSession.open(settings, save="game")
    try:
        assert await reopened.pending_extraction() == []
        nodes = {n.id: n.summary for n in reopened.graph.nodes.values()}
        assert nodes == before, "no node was added and no summary replaced"
        lise = next(n for n in reopened.graph.nodes.values() if n.name == "Lise Brack")
        world = load_world(settings.content_dir, "brinefall")
        assert lise.summary == next(c.summary for c in world.characters if c.name == "Lise Brack")
        names = {n.name.casefold() for n in reopened.graph.nodes.values()}
        assert not names & {"lise", "allied_with", "1"}
        assert not [e for e in reopened.graph.open_edges.values() if e.relation == "ALLIED_WITH"]
    finally:
        await reopened.close()


async def test_graph_rebuild_asks_again_for_a_stored_world_ir_that_no_longer_validates(
        tmp_path: Path, server: ChatServer) -> None:
    settings = _settings(tmp_path, server, extraction="world-ir")
    server.push(Text(NARRATION), Text(json.dumps(FACTS)))
    session = await _open(settings)
    await collect(session, "help Edda with the wick")
    await session.close()
    conn = sqlite3.connect(settings.saves_dir / "game.sqlite")
    conn.execute("UPDATE turns SET world_ir = ?, extracted = 0 WHERE number = 1",
                 (json.dumps(ir(charactersPresent=["Edda Marsh"] * 41)),))
    conn.commit()
    conn.close()
    server.push(Text(json.dumps(FACTS)))
    session = await _open(settings, new=False)
    try:
        assert await session.reextract_pending() == ["turn 1: extracted (1 calls)"]
        assert len(server.chat_requests) == 3
    finally:
        await session.close()


async def test_a_turn_that_runs_into_both_deadlines_ends_within_the_worst_case(
        tmp_path: Path, server: ChatServer) -> None:
    """The slowest a server can make a turn: narration trickled until just before its deadline, then a
    World IR that never comes. The turn ends at the memory deadline, kept and marked not extracted."""
    from game.narrator.llm.budget import worst_case_turn_seconds

    settings = _settings(tmp_path, server, timeout=0.5, memory_deadline=0.6)
    assert worst_case_turn_seconds(settings.llm) == 1.6
    server.push(Text(NARRATION, chunk_size=len(NARRATION) // 5, pause=0.08), Delayed(30, Text("{}")))
    session = await _open(settings)
    try:
        started = asyncio.get_running_loop().time()
        events = await collect(session, "help Edda with the wick")
        took = asyncio.get_running_loop().time() - started
        committed = next(e for e in events if isinstance(e, TurnCommitted))
        assert not committed.extracted and session.history[-1].narration == NARRATION
        assert took >= 0.6  # the graph update was waited for, to its deadline
        # and not the 30 s the World IR would take: the bound is wide so a loaded machine cannot fail it
        assert took < worst_case_turn_seconds(settings.llm) + 8.0
    finally:
        await session.close()
