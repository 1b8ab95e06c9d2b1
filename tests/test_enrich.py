"""The fast path in turns and enrichment later, against the local Chat Completions server and real saves:
a model turn whose extractor fails keeps the relations its narration plainly states (marked ``fast``),
and a model's later reading replaces them, one committed turn at a time, undoable, resumable, and in the
background of a game without ever blocking a turn."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Delayed, Text, ToolCalls
from helpers.play import collect
from helpers.saves import SCHEMA
from llm_helpers import WORLDS, character, edge, ir, llm_settings, open_relations, relation, tiny_world

from game.config import Settings
from game.engine.events import Notice, TurnCommitted
from game.engine.session import GameSession
from game.graph.fast_extract.marks import enriched_from, fast_from
from game.narrator.llm.narrator import OpenAINarrator

PLAIN = "You steady the wick while Edda ties it. Edda Marsh is afraid of Tobin Hale."
QUIET = "The lamp hums. Nobody says anything for a while."
CLAIM = "I updated the graph: all done."
TRUST = edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed since Sam steadied her wick.")
FEAR = edge("Edda Marsh", "Tobin Hale", "FEARS", -0.7, "Edda Marsh is afraid of Tobin Hale, who wants her post.")
FACTS = ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
           relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, TRUST["fact"])], nextCast=["Edda Marsh"])
FEARS = ("Edda Marsh", "Tobin Hale", "FEARS")


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def _settings(tmp_path: Path, server: ChatServer, **llm: Any) -> Settings:
    return Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                    llm=llm_settings(server.base_url, extractor_steps=2, **llm))


async def _open(settings: Settings, new: bool = True) -> GameSession:
    return await GameSession.open(settings, save="game", new=new, world="tiny",
                                  narrator=OpenAINarrator(settings.llm, tiny_world(), env={}))


def _failed_turn(server: ChatServer, narration: str) -> None:
    """A turn whose narration and World IR arrive but whose extractor never calls its tool."""
    server.push(Text(narration), Text(json.dumps(FACTS)), Text(CLAIM), Text(CLAIM))


def _versions(session: GameSession, relation: tuple[str, str, str]) -> list[Any]:
    names = {node.id: node.name for node in session.graph.nodes.values()}
    return [e for e in session.graph.open_edges.values() if (names[e.source], names[e.target], e.relation) == relation]


async def test_a_model_turn_whose_extractor_fails_still_adds_the_relations_its_narration_plainly_states(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(_settings(tmp_path, server))
    _failed_turn(server, PLAIN)
    events = await collect(session, "help Edda with the wick")
    committed = next(e for e in events if isinstance(e, TurnCommitted))
    assert not committed.extracted and committed.extraction == "fast"
    assert FEARS in open_relations(session.graph)
    fear = _versions(session, FEARS)[0]
    assert fear.strength < 0 and fast_from(fear) == 1 and "afraid of Tobin Hale" in fear.fact
    warning = next(e.text for e in events if isinstance(e, Notice) and e.level == "warning")
    assert "fast path" in warning and "1 relation(s)" in warning and "kith graph enrich" in warning
    # The model's claim in prose changed nothing, and the trust it never recorded is not invented.
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") not in open_relations(session.graph)
    assert [(t.extracted, t.extraction) for t in await session.turns()] == [(False, "fast")]
    assert await session.extraction_counts() == {"fast": 1}
    await session.close()
    reopened = await _open(_settings(tmp_path, server), new=False)  # on disk, not only in memory
    assert FEARS in open_relations(reopened.graph)
    await reopened.close()


async def test_a_turn_nothing_plain_is_said_in_is_read_by_the_fast_path_and_keeps_nothing(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(_settings(tmp_path, server))
    before = open_relations(session.graph)
    _failed_turn(server, QUIET)
    events = await collect(session, "wait")
    assert next(e for e in events if isinstance(e, TurnCommitted)).extraction == "fast"
    assert open_relations(session.graph) == before
    assert any(isinstance(e, Notice) and "nothing was kept" in e.text for e in events)
    await session.close()


async def test_enrichment_replaces_the_fast_versions_with_the_models_reading_and_undo_puts_them_back(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(_settings(tmp_path, server))
    _failed_turn(server, PLAIN)
    await collect(session, "help Edda with the wick")
    _failed_turn(server, QUIET)
    await collect(session, "wait")
    fast = _versions(session, FEARS)[0]
    # The model reads turn 1 (its stored World IR) and records only the trust: the fear it does not state goes.
    server.push(ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]), ToolCalls([("runtime_done", {})]))
    readings = [reading async for reading in session.enrich()]
    assert [(r.number, r.ok, r.extraction) for r in readings] == [(1, True, "enriched"), (2, True, "enriched")]
    assert readings[0].line == "turn 1: extracted (1 calls), 1 fast relation(s) replaced"
    assert FEARS not in open_relations(session.graph)
    trust = _versions(session, ("Edda Marsh", "Sam Reed", "TRUSTS"))[0]
    assert enriched_from(trust) == 1 and trust.valid_at == 2
    stored = {e.id: e for e in await session.all_edges()}
    assert stored[fast.id].invalid_at == 2, "the fast version is closed, versioned like any change"
    assert [(t.extracted, t.extraction) for t in await session.turns()] == [(True, "enriched"), (True, "enriched")]
    assert await session.pending_extraction() == []
    # Undo takes back turn 2, and the enrichment journaled at it: turn 1 is fast and queued again.
    await collect(session, "undo")
    assert FEARS in open_relations(session.graph)
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") not in open_relations(session.graph)
    assert [(t.number, t.extracted, t.extraction) for t in await session.turns()] == [(1, False, "fast")]
    await session.close()


async def test_a_model_that_states_the_fast_relation_again_supersedes_it(tmp_path: Path, server: ChatServer) -> None:
    session = await _open(_settings(tmp_path, server))
    _failed_turn(server, PLAIN)
    await collect(session, "help Edda with the wick")
    fast = _versions(session, FEARS)[0]
    server.push(ToolCalls([("upsert_npc_graph", {"edges": [FEAR]})]))
    readings = [reading async for reading in session.enrich()]
    assert readings[0].ok and "replaced" not in readings[0].line
    (now,) = _versions(session, FEARS)
    assert now.id != fast.id and now.fact == FEAR["fact"] and fast_from(now) is None and enriched_from(now) == 1
    await session.close()


async def test_stopping_enrichment_midway_keeps_what_was_committed_and_the_next_run_resumes(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(_settings(tmp_path, server))
    for _ in range(2):
        _failed_turn(server, PLAIN)
        await collect(session, "help Edda with the wick")
    # Turn 1 is read; turn 2's reading is a slow model, interrupted (Ctrl+C cancels the walk).
    server.push(ToolCalls([("upsert_npc_graph", {"edges": [FEAR]})]),
                Delayed(20, ToolCalls([("upsert_npc_graph", {"edges": [FEAR]})])))
    walk = session.enrich()
    first = await anext(walk)
    second = asyncio.ensure_future(anext(walk))
    await asyncio.sleep(0.3)
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    await walk.aclose()
    assert first.ok and [t.extraction for t in await session.turns()] == ["enriched", "fast"]
    await session.close()
    resumed = await _open(_settings(tmp_path, server), new=False)
    server.push(ToolCalls([("upsert_npc_graph", {"edges": [FEAR]})]))
    assert [r.number async for r in resumed.enrich()] == [2]
    assert await resumed.pending_extraction() == []
    await resumed.close()


async def test_the_queue_drains_in_the_background_between_turns(tmp_path: Path, server: ChatServer) -> None:
    session = await _open(_settings(tmp_path, server))
    background = session.enrich_in_background(delay=0)
    assert background is not None
    _failed_turn(server, PLAIN)
    server.push(ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]))  # the background reading of turn 1
    await collect(session, "help Edda with the wick")
    await background.idle()
    assert [r.line for r in background.read] == ["turn 1: extracted (1 calls), 1 fast relation(s) replaced"]
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") in open_relations(session.graph)
    assert await session.pending_extraction() == []
    await session.close()


async def test_a_turn_starting_cancels_the_background_reading_and_is_not_blocked(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(_settings(tmp_path, server))
    background = session.enrich_in_background(delay=0)
    assert background is not None
    _failed_turn(server, PLAIN)
    # The background reading meets a model that takes 20 s to answer; the player types meanwhile.
    server.push(Delayed(20, ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})])))
    await collect(session, "help Edda with the wick")
    await asyncio.sleep(0.2)
    assert background.running
    server.push(Text(QUIET), Text(json.dumps(FACTS)), ToolCalls([("runtime_done", {})]))
    started = asyncio.get_running_loop().time()
    events = await collect(session, "wait")
    assert asyncio.get_running_loop().time() - started < 5
    assert next(e for e in events if isinstance(e, TurnCommitted)).extracted
    assert [(t.number, t.extraction) for t in await session.turns()] == [(1, "fast"), (2, "full")]
    await session.close()  # cancels the walk the turn woke again; nothing hangs
    assert not background.running


async def test_a_version_with_several_evidence_marks_reads_back_whole(tmp_path: Path) -> None:
    # Regression: the reader's shortcut for one ``turn-N`` took '["turn-3", "fast:turn-3"]' for one mark.
    from game.graph.index import GraphIndex
    from game.graph.upsert import UpsertExecution
    from game.graph.vocabulary import Vocabulary
    from game.store.database import SaveDatabase

    execution = UpsertExecution(GraphIndex(), Vocabulary.default(), 3)
    await execution.run({"nodes": [{"name": "Mira", "summary": "A thief."}, {"name": "Tomas", "summary": "A priest."}],
                         "edges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS",
                                    "strength": 0.5, "fact": "Mira trusts Tomas with the ledger."}]})
    (edge_id,) = execution.writes.created_edges
    edge = execution.writes.edges[edge_id]
    execution.writes.edges[edge_id] = edge.model_copy(update={"evidence_turn_ids": ["turn-3", "fast:turn-3"]})
    async with await SaveDatabase.open(tmp_path / "s.sqlite", schema=SCHEMA, create=True) as db:
        await db.commit_graph(execution.writes)
        (stored,) = await db.graph.all_edges()
    assert stored.evidence_turn_ids == ["turn-3", "fast:turn-3"] and fast_from(stored) == 3


async def test_writes_from_the_background_and_the_front_end_never_interleave_their_transactions(
        tmp_path: Path) -> None:
    # The background reading commits through the session's one connection while the app may be saving the
    # map's layout: two transactions on one connection must take turns, not nest.
    from game.store.database import SaveDatabase

    async with await SaveDatabase.open(tmp_path / "s.sqlite", schema=SCHEMA, create=True) as db:
        async def write(key: str) -> None:
            for n in range(20):
                await db.set_meta({key: str(n)})

        await asyncio.gather(write("a"), write("b"), write("c"))
        assert {k: v for k, v in (await db.meta()).items() if k in "abc"} == {"a": "19", "b": "19", "c": "19"}


async def test_a_recorded_or_replayed_session_never_reads_the_queue_in_the_background(
        tmp_path: Path, server: ChatServer) -> None:
    # Their exchanges are the turns' own, in order: a background request would shift every later one.
    settings = _settings(tmp_path, server)
    replay = Path(__file__).parent / "scripts" / "llm-tiny.jsonl"
    for narrator in (OpenAINarrator(settings.llm, tiny_world(), env={}, replay=replay),
                     OpenAINarrator(settings.llm, tiny_world(), env={}, record=tmp_path / "rec.jsonl")):
        session = await GameSession.open(settings, save="game", new=not (tmp_path / "saves" / "game.sqlite").exists(),
                                         world="tiny", narrator=narrator)
        try:
            assert session.enrich_in_background(delay=0) is None
        finally:
            await session.close()
    live = await _open(settings, new=False)
    try:
        assert live.enrich_in_background(delay=60) is not None
    finally:
        await live.close()
