"""Enrichment made exact: a model's reading wins both ways over the fast path's (what the fast path ENDED
is put back when the model does not end it too), a turn's fast versions are read from the save by their
marks through an index (never by going through every open version), and each reading has one line for
the story log. Against the local Chat Completions server and real saves."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Text, ToolCalls
from helpers.play import collect
from helpers.saves import SCHEMA
from llm_helpers import WORLDS, character, edge, ir, llm_settings, open_relations, relation, tiny_world

from game.config import Settings
from game.engine.events import TurnCommitted
from game.engine.session import GameSession
from game.graph.fast_extract.marks import enriched_from, fast_closed_at
from game.narrator.llm.narrator import OpenAINarrator
from game.store import enrichment
from game.store.fast_marks import CLOSED_SQL, OPENED_SQL

TRUST = edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed since Sam steadied her wick.")
FEAR = edge("Edda Marsh", "Tobin Hale", "FEARS", -0.7, "Edda Marsh is afraid of Tobin Hale, who wants her post.")
FACTS = ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
           relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, TRUST["fact"])], nextCast=["Edda Marsh"])
TRUSTS = ("Edda Marsh", "Sam Reed", "TRUSTS")
LAPSE = "Edda pulls the lamp away from you. Edda Marsh no longer trusts Sam Reed."
CLAIM = "I updated the graph: all done."


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


async def _open(tmp_path: Path, server: ChatServer) -> GameSession:
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, extractor_steps=2))
    return await GameSession.open(settings, save="game", new=True, world="tiny",
                                  narrator=OpenAINarrator(settings.llm, tiny_world(), env={}))


ENDED = ir(charactersPresent=["Sam Reed", "Edda Marsh"], nextCast=["Edda Marsh"],
           endedRelations=[{"source": "Edda Marsh", "target": "Sam Reed", "relation": "TRUSTS",
                            "evidence": "Edda Marsh no longer trusts Sam Reed."}])


async def _trust_then_lapse(session: GameSession, server: ChatServer, facts: dict[str, Any] = FACTS) -> Any:
    """Turn 1 (a model's full reading) opens the trust; turn 2's extractor fails and the fast path reads
    "no longer trusts" in its narration, ending it. Returns the ended version."""
    server.push(Text("Edda lets you hold the lamp."), Text(json.dumps(FACTS)),
                ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]), ToolCalls([("runtime_done", {})]))
    assert next(e for e in await collect(session, "help Edda") if isinstance(e, TurnCommitted)).extracted
    assert TRUSTS in open_relations(session.graph)
    server.push(Text(LAPSE), Text(json.dumps(facts)), Text(CLAIM), Text(CLAIM))
    committed = next(e for e in await collect(session, "drop the lamp") if isinstance(e, TurnCommitted))
    assert committed.extraction == "fast" and TRUSTS not in open_relations(session.graph)
    (ended,) = [e for e in await session.all_edges() if fast_closed_at(e) == 2]
    assert ended.relation == "TRUSTS" and ended.invalid_at == 2
    return ended


async def test_a_model_reading_that_does_not_end_what_the_fast_path_ended_puts_it_back_versioned(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(tmp_path, server)
    try:
        ended = await _trust_then_lapse(session, server)
        # The model reads turn 2 and records only a fear: it never says the trust ended.
        server.push(ToolCalls([("upsert_npc_graph", {"edges": [FEAR]})]), ToolCalls([("runtime_done", {})]))
        (reading,) = [r async for r in session.enrich()]
        assert reading.ok and "1 relation(s) the fast path had ended put back" in reading.line
        assert reading.story_note() == ("Turn 2's relations were read again by the model: 0 relations confirmed, "
                                        "0 replaced, 1 the fast reading had ended put back.")
        assert TRUSTS in open_relations(session.graph)
        by_id = {e.id: e for e in await session.all_edges()}
        assert by_id[ended.id].invalid_at == 2, "the fast close stays in the history, closed at its turn"
        (back,) = [e for e in by_id.values() if e.relation == "TRUSTS" and e.is_open]
        assert back.id != ended.id and back.valid_at == 2 and enriched_from(back) == 2
        assert (back.strength, back.fact) == (ended.strength, ended.fact)
        # Who knew the trust knows the version put back: the player sees it on the map again.
        assert set(session.graph.knowers_of(back.id)) == set(session.graph.knowers_of(ended.id))
        # Undo takes the reading back with turn 2 (journaled at it): nothing of it is left.
        await collect(session, "undo")
        assert back.id not in {e.id for e in await session.all_edges()}
    finally:
        await session.close()


async def test_a_model_reading_that_ends_it_too_leaves_it_ended(tmp_path: Path, server: ChatServer) -> None:
    session = await _open(tmp_path, server)
    try:
        await _trust_then_lapse(session, server, ENDED)  # this time its World IR says the trust ended
        close = {"sourceName": "Edda Marsh", "targetName": "Sam Reed", "relation": "TRUSTS"}
        server.push(ToolCalls([("upsert_npc_graph", {"edges": [FEAR], "closeEdges": [close]})]),
                    ToolCalls([("runtime_done", {})]))
        (reading,) = [r async for r in session.enrich()]
        assert reading.ok and "put back" not in reading.line
        assert TRUSTS not in open_relations(session.graph)
    finally:
        await session.close()


async def test_a_confirmed_and_a_replaced_fast_relation_are_told_in_one_line(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(tmp_path, server)
    try:
        narration = "Edda Marsh is afraid of Tobin Hale. Sam Reed trusts Edda Marsh."
        server.push(Text(narration), Text(json.dumps(FACTS)), Text(CLAIM), Text(CLAIM))
        await collect(session, "watch")
        server.push(ToolCalls([("upsert_npc_graph", {"edges": [FEAR]})]), ToolCalls([("runtime_done", {})]))
        (reading,) = [r async for r in session.enrich()]
        assert reading.story_note() == "Turn 1's relations were read again by the model: 1 relation confirmed, 1 replaced."
        assert ("Sam Reed", "Edda Marsh", "TRUSTS") not in open_relations(session.graph)
    finally:
        await session.close()


def test_a_turns_fast_versions_are_read_through_their_index(tmp_path: Path) -> None:
    # The WHERE terms must stay the indexes' expressions word for word, or SQLite scans every version.
    from helpers.saves import SCRIPTS

    with sqlite3.connect(tmp_path / "s.sqlite") as conn:
        for script in SCRIPTS:
            conn.executescript(script)
        for sql, index in ((OPENED_SQL, "edges_fast_read"), (CLOSED_SQL, "edges_fast_closed")):
            plan = " ".join(str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", (3,)))
            assert f"USING INDEX {index}" in plan, plan


async def test_the_lookup_keeps_only_the_turn_asked_for(tmp_path: Path) -> None:
    from game.graph.index import GraphIndex
    from game.graph.upsert import UpsertExecution
    from game.graph.vocabulary import Vocabulary
    from game.store.database import SaveDatabase

    execution = UpsertExecution(GraphIndex(), Vocabulary.default(), 12)
    names = ["Mira", "Tomas", "Oren", "Lin"]
    await execution.run({"nodes": [{"name": n, "summary": f"{n}, a sailor."} for n in names]})
    marks = {"Tomas": ["turn-12", "fast:turn-1"], "Oren": ["turn-12", "fast:turn-12"], "Lin": ["turn-12"]}
    for name, evidence in marks.items():
        await execution.run({"edges": [{"sourceName": "Mira", "targetName": name, "relation": "TRUSTS",
                                        "strength": 0.5, "fact": f"Mira trusts {name} with the ledger."}]})
        created = next(e for e in execution.writes.edges.values() if e.target.endswith(name.lower()))
        execution.writes.edges[created.id] = created.model_copy(update={"evidence_turn_ids": evidence})
    async with await SaveDatabase.open(tmp_path / "s.sqlite", schema=SCHEMA, create=True) as db:
        await db.commit_graph(execution.writes)
        one, twelve, three = await enrichment.fast_reading(db, 1), await enrichment.fast_reading(db, 12), await enrichment.fast_reading(db, 3)
    assert [e.target for e in one.opened] == ["npc-tomas"] and [e.target for e in twelve.opened] == ["npc-oren"]
    assert three == ([], []) and one.ended == []
