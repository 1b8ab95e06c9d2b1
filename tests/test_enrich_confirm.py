"""A model that restates a fast reading unchanged CONFIRMS it: the version keeps its id, strength, fact and
validity, and its evidence trades ``fast:turn-N`` for ``enriched:turn-N`` plus ``confirmed:turn-M`` (M the
turn the model read it at), in the enrichment's own journaled commit, so `/why`, `kith graph history` and a
later enrichment all see a model's reading. A fast close the model ends too is confirmed the same way
(``fast-closed:turn-N`` -> ``enriched-closed:turn-N``). A relation the model changes is replaced and one it
omits is closed, as before; undo puts the marks back. Against the local Chat Completions server, the real
openai client and real saves."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Text, ToolCalls
from helpers.play import collect
from llm_helpers import WORLDS, character, edge, ir, llm_settings, open_relations, relation, tiny_world

from game.__main__ import main
from game.config import Settings
from game.engine.events import MetaOutput, TurnCommitted
from game.engine.session import GameSession
from game.graph.fast_extract.marks import (
    confirmed_at,
    enriched_closed_at,
    enriched_from,
    fast_closed_at,
    fast_from,
)
from game.graph.models import Edge
from game.narrator.llm.narrator import OpenAINarrator
from game.store import enrichment

NARRATION = "Edda Marsh is afraid of Tobin Hale. Sam Reed trusts Edda Marsh. Tobin Hale distrusts Sam Reed."
QUIET = "The lamp hums. Nobody says anything for a while."
CLAIM = "I updated the graph: all done."
TRUST = edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed since Sam steadied her wick.")
FACTS = ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
           relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, TRUST["fact"])], nextCast=["Edda Marsh"])
FEARS = ("Edda Marsh", "Tobin Hale", "FEARS")
TRUSTED = ("Sam Reed", "Edda Marsh", "TRUSTS")
DISTRUSTS = ("Tobin Hale", "Sam Reed", "DISTRUSTS")
DONE = ToolCalls([("runtime_done", {})])


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def _settings(tmp_path: Path, server: ChatServer) -> Settings:
    return Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                    llm=llm_settings(server.base_url, extractor_steps=2))


async def _open(tmp_path: Path, server: ChatServer, new: bool = True) -> GameSession:
    settings = _settings(tmp_path, server)
    return await GameSession.open(settings, save="game", new=new, world="tiny",
                                  narrator=OpenAINarrator(settings.llm, tiny_world(), env={}))


def _version(session: GameSession, key: tuple[str, str, str]) -> Edge:
    names = {node.id: node.name for node in session.graph.nodes.values()}
    (found,) = [e for e in session.graph.open_edges.values() if (names[e.source], names[e.target], e.relation) == key]
    return found


def _failed_turn(server: ChatServer, narration: str) -> None:
    """A turn whose narration and World IR arrive but whose extractor never calls its tool."""
    server.push(Text(narration), Text(json.dumps(FACTS)), Text(CLAIM), Text(CLAIM))


async def _fast_turns(session: GameSession, server: ChatServer) -> dict[tuple[str, str, str], Edge]:
    """Turn 1 read by the fast path (three relations), turn 2 a quiet one: the model reads them at turn 2."""
    _failed_turn(server, NARRATION)
    await collect(session, "watch")
    _failed_turn(server, QUIET)
    await collect(session, "wait")
    fast = {key: _version(session, key) for key in (FEARS, TRUSTED, DISTRUSTS)}
    assert all(fast_from(e) == 1 for e in fast.values())
    return fast


def _same_as(version: Edge) -> dict[str, Any]:
    """The model's call stating ``version``'s relation with exactly its strength and fact."""
    return {"sourceName": "Edda Marsh", "targetName": "Tobin Hale", "relation": version.relation,
            "strength": version.strength, "fact": version.fact}


async def _why(session: GameSession, name: str) -> str:
    return "\n".join(e.text for e in await collect(session, f"/why {name}") if isinstance(e, MetaOutput))


async def test_a_model_restating_a_fast_relation_unchanged_confirms_the_same_version(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(tmp_path, server)
    try:
        fast = await _fast_turns(session, server)
        assert "not yet confirmed" in await _why(session, "Tobin Hale")
        # The model reads turn 1: the fear exactly as the fast path read it, the trust with its own value,
        # and nothing of the distrust.
        changed = edge("Sam Reed", "Edda Marsh", "TRUSTS", 0.8, "Sam Reed trusts Edda Marsh with the lamp room.")
        server.push(ToolCalls([("upsert_npc_graph", {"edges": [_same_as(fast[FEARS]), changed]})]), DONE)
        readings = [r async for r in session.enrich()]
        assert [(r.number, r.ok, r.extraction) for r in readings] == [(1, True, "enriched"), (2, True, "enriched")]
        assert readings[0].story_note() == ("Turn 1's relations were read again by the model: 2 relations confirmed, "
                                            "1 replaced.")
        # Confirmed: the same version, its value and validity untouched, now marked as the model's reading.
        fear = _version(session, FEARS)
        old = fast[FEARS]
        assert (fear.id, fear.strength, fear.fact, fear.valid_at, fear.invalid_at) == (
            old.id, old.strength, old.fact, old.valid_at, None)
        assert fear.evidence_turn_ids == ["turn-1", "enriched:turn-1", "confirmed:turn-2"]
        assert fast_from(fear) is None and enriched_from(fear) == 1 and confirmed_at(fear) == 2
        # Changed: replaced by a new version as before. Omitted: closed as before.
        trust = _version(session, TRUSTED)
        assert trust.id != fast[TRUSTED].id and trust.strength == 0.8 and enriched_from(trust) == 1
        assert confirmed_at(trust) is None
        assert DISTRUSTS not in open_relations(session.graph)
        stored = {e.id: e for e in await session.all_edges()}
        assert stored[fear.id].evidence_turn_ids == fear.evidence_turn_ids, "the save holds it, not only memory"
        assert stored[fast[TRUSTED].id].invalid_at == 2 and stored[fast[DISTRUSTS].id].invalid_at == 2
        # No later reading of turn 1 takes it for the fast path's own.
        assert await enrichment.fast_reading(session._db, 1) == ([], [])
        why = await _why(session, "Tobin Hale")
        line = next(x for x in why.splitlines() if "(FEARS)" in x)
        assert "from turn 1" in line and "confirmed by a model at turn 2" in line and "not yet" not in line
        assert await session.extraction_counts() == {"enriched": 2}
    finally:
        await session.close()
    reopened = await _open(tmp_path, server, new=False)  # on disk, and read back whole
    try:
        assert confirmed_at(_version(reopened, FEARS)) == 2
    finally:
        await reopened.close()


async def test_undo_of_the_enrichment_puts_the_fast_marks_back(tmp_path: Path, server: ChatServer) -> None:
    session = await _open(tmp_path, server)
    try:
        fast = await _fast_turns(session, server)
        server.push(ToolCalls([("upsert_npc_graph", {"edges": [_same_as(fast[FEARS])]})]), DONE)
        assert all(r.ok for r in [r async for r in session.enrich()])
        assert confirmed_at(_version(session, FEARS)) == 2
        # The enrichment was journaled at turn 2: undoing turn 2 takes it back, marks and all.
        await collect(session, "undo")
        fear = _version(session, FEARS)
        assert fear.evidence_turn_ids == ["turn-1", "fast:turn-1"]
        stored = {e.id: e for e in await session.all_edges()}
        assert stored[fear.id].evidence_turn_ids == ["turn-1", "fast:turn-1"]
        assert stored[fast[DISTRUSTS].id].invalid_at is None and stored[fast[TRUSTED].id].invalid_at is None
        assert [(t.number, t.extraction) for t in await session.turns()] == [(1, "fast")]
        assert "not yet confirmed" in await _why(session, "Tobin Hale")
    finally:
        await session.close()


async def test_a_model_turn_restating_a_fast_relation_is_no_enrichment_and_leaves_it_fast(
        tmp_path: Path, server: ChatServer) -> None:
    # Only a model's reading OF the fast turn confirms it: a later turn's ordinary upsert of the same
    # relation, unchanged, is skipped as it always was.
    session = await _open(tmp_path, server)
    try:
        _failed_turn(server, NARRATION)
        await collect(session, "watch")
        fear = _version(session, FEARS)
        server.push(Text(QUIET), Text(json.dumps(FACTS)),
                    ToolCalls([("upsert_npc_graph", {"edges": [_same_as(fear)]})]), DONE)
        committed = next(e for e in await collect(session, "wait") if isinstance(e, TurnCommitted))
        assert committed.extracted
        assert _version(session, FEARS).evidence_turn_ids == ["turn-1", "fast:turn-1"]
    finally:
        await session.close()


LAPSE = "Edda pulls the lamp away from you. Edda Marsh no longer trusts Sam Reed."
ENDED = ir(charactersPresent=["Sam Reed", "Edda Marsh"], nextCast=["Edda Marsh"],
           endedRelations=[{"source": "Edda Marsh", "target": "Sam Reed", "relation": "TRUSTS",
                            "evidence": "Edda Marsh no longer trusts Sam Reed."}])


async def test_a_fast_close_the_model_ends_too_is_confirmed_and_undo_restores_it(
        tmp_path: Path, server: ChatServer) -> None:
    session = await _open(tmp_path, server)
    try:
        # Turn 1, a model's full reading, opens the trust; turn 2's extractor fails and the fast path reads
        # "no longer trusts", ending it.
        server.push(Text("Edda lets you hold the lamp."), Text(json.dumps(FACTS)),
                    ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]), DONE)
        await collect(session, "help Edda")
        server.push(Text(LAPSE), Text(json.dumps(ENDED)), Text(CLAIM), Text(CLAIM))
        await collect(session, "drop the lamp")
        (ended,) = [e for e in await session.all_edges() if fast_closed_at(e) == 2]
        # Turn 3, an ordinary model turn, then the model reads turn 2 again (journaled at turn 3).
        server.push(Text(QUIET), Text(json.dumps(ir(charactersPresent=["Sam Reed"]))))  # nothing to record
        assert next(e for e in await collect(session, "wait") if isinstance(e, TurnCommitted)).extracted
        close = {"sourceName": "Edda Marsh", "targetName": "Sam Reed", "relation": "TRUSTS"}
        server.push(ToolCalls([("upsert_npc_graph", {"closeEdges": [close]})]), DONE)
        (reading,) = [r async for r in session.enrich()]
        assert reading.ok and "put back" not in reading.line
        stored = {e.id: e for e in await session.all_edges()}
        confirmed = stored[ended.id]
        assert (confirmed.invalid_at, confirmed.strength, confirmed.fact) == (2, ended.strength, ended.fact)
        assert fast_closed_at(confirmed) is None and enriched_closed_at(confirmed) == 2
        assert confirmed.evidence_turn_ids == ["turn-1", "enriched-closed:turn-2"]
        assert ("Edda Marsh", "Sam Reed", "TRUSTS") not in open_relations(session.graph)
        assert await enrichment.fast_reading(session._db, 2) == ([], [])
        # Undo of turn 3 takes the reading back with it: the close is the fast path's again, and queued.
        await collect(session, "undo")
        assert {e.id: e for e in await session.all_edges()}[ended.id].evidence_turn_ids == [
            "turn-1", "fast-closed:turn-2"]
        assert [(t.number, t.extraction) for t in await session.pending_extraction()] == [(2, "fast")]
    finally:
        await session.close()


def _kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--saves-dir", str(tmp_path / "saves"), "--content-dir", str(WORLDS), "graph", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _saves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    assert main(["--saves-dir", str(tmp_path / "saves"), "saves", "list", "--json"]) == 0
    listed: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return listed


async def test_kith_graph_rebuild_confirms_history_shows_it_and_a_second_rebuild_changes_nothing(
        tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]) -> None:
    session = await _open(tmp_path, server)
    fast = await _fast_turns(session, server)
    await session.close()
    assert [s["fastTurns"] for s in await asyncio.to_thread(_saves, tmp_path, capsys)] == [2]
    server.push(ToolCalls([("upsert_npc_graph", {"edges": [_same_as(fast[FEARS])]})]), DONE)
    model = ("--base-url", server.base_url, "--model", "test-model")
    code, out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "rebuild", "--save", "game", "--json", *model)
    assert code == 0, err
    report = json.loads(out)
    assert report["extracted"] == [1, 2] and report["remaining"] == []
    # A confirmed relation is no change to the graph: only the two the model did not state are closed.
    assert report["diff"] == {"added": [], "changed": [], "people": [],
                              "closed": ["Sam Reed → Edda Marsh TRUSTS ended", "Tobin Hale → Sam Reed DISTRUSTS ended"]}
    code, out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "history", "--save", "game",
                                             "Edda Marsh", "Tobin Hale")
    assert code == 0, err
    assert f"({fast[FEARS].id}, turn-1, enriched:turn-1, confirmed:turn-2)" in out and "fast:turn-1" not in out
    assert [s["fastTurns"] for s in await asyncio.to_thread(_saves, tmp_path, capsys)] == [0]
    reopened = await _open(tmp_path, server, new=False)
    before = sorted((e.id, e.invalid_at, tuple(e.evidence_turn_ids)) for e in await reopened.all_edges())
    await reopened.close()
    code, out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "rebuild", "--save", "game", "--json", *model)
    assert code == 0, err
    assert json.loads(out)["extracted"] == []
    reopened = await _open(tmp_path, server, new=False)
    try:
        assert sorted((e.id, e.invalid_at, tuple(e.evidence_turn_ids)) for e in await reopened.all_edges()) == before
        assert confirmed_at(_version(reopened, FEARS)) == 2
    finally:
        await reopened.close()


async def test_a_rebuild_that_confirms_a_fast_close_of_its_own_turn_lists_no_change(
        tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]) -> None:
    # The fast path ended the trust at turn 2 and the rebuild runs at turn 2: the version's end is dated the
    # rebuild's turn, yet confirming it changes only its marks, no relation.
    session = await _open(tmp_path, server)
    server.push(Text("Edda lets you hold the lamp."), Text(json.dumps(FACTS)),
                ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]), DONE)
    await collect(session, "help Edda")
    server.push(Text(LAPSE), Text(json.dumps(ENDED)), Text(CLAIM), Text(CLAIM))
    await collect(session, "drop the lamp")
    (ended,) = [e for e in await session.all_edges() if fast_closed_at(e) == 2]
    await session.close()
    close = {"sourceName": "Edda Marsh", "targetName": "Sam Reed", "relation": "TRUSTS"}
    server.push(ToolCalls([("upsert_npc_graph", {"closeEdges": [close]})]), DONE)
    code, out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "rebuild", "--save", "game", "--base-url",
                                             server.base_url, "--model", "test-model")
    assert code == 0, err
    assert out.splitlines()[-1] == "Changes to the graph: 0 added, 0 changed, 0 closed."
    code, out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "history", "--save", "game",
                                             "Edda Marsh", "Sam Reed")
    assert f"({ended.id}, turn-1, enriched-closed:turn-2)" in out


async def test_a_fast_value_read_over_an_older_one_confirmed_confirms_both_the_version_and_the_end(
        tmp_path: Path, server: ChatServer) -> None:
    # Turn 1, a model's reading, records the fear at -0.7; turn 2's extractor fails and the fast path reads
    # the fear again in its own words (a new version, the old one ended). The model, reading turn 2, states
    # the fast path's version unchanged: both the new value and the end of the old one are its reading.
    session = await _open(tmp_path, server)
    try:
        older = edge("Edda Marsh", "Tobin Hale", "FEARS", -0.7, "Edda Marsh is afraid of Tobin Hale, who wants her post.")
        server.push(Text("Edda eyes the stair."), Text(json.dumps(FACTS)),
                    ToolCalls([("upsert_npc_graph", {"edges": [older]})]), DONE)
        await collect(session, "watch Edda")
        _failed_turn(server, "Edda Marsh is afraid of Tobin Hale.")
        await collect(session, "wait")
        fast = _version(session, FEARS)
        (ended,) = [e for e in await session.all_edges() if fast_closed_at(e) == 2]
        assert fast_from(fast) == 2 and ended.fact == older["fact"]
        server.push(ToolCalls([("upsert_npc_graph", {"edges": [_same_as(fast)]})]), DONE)
        (reading,) = [r async for r in session.enrich()]
        assert reading.ok and "put back" not in reading.line
        stored = {e.id: e for e in await session.all_edges()}
        assert stored[fast.id].evidence_turn_ids == ["turn-2", "enriched:turn-2", "confirmed:turn-2"]
        assert stored[ended.id].evidence_turn_ids == ["turn-1", "enriched-closed:turn-2"]
        assert stored[ended.id].invalid_at == 2 and _version(session, FEARS).id == fast.id
    finally:
        await session.close()
