"""A kept telling stores its scene and context once: the kept one leaves them to the turn's own rows, the
others store only what differs from it. Reading a telling back gives exactly what it gave when it was told,
through retries, edits, swipes back and forth, undo and reopening the save; tellings stored whole (the
first form, as saves written before hold them) still read and swipe."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
from chat_server import ChatServer, Text, ToolCalls
from helpers.play import collect, text_of
from helpers.saves import SCHEMA
from test_tellings_llm import RETOLD, SCORN, TOLD, TRUST, facts, open_game, settings_for, telling

from game.config import load_settings
from game.engine.events import TurnReplaced
from game.engine.session import GameSession
from game.features.tellings import delta as telling_delta
from game.features.tellings import store as tellings_store
from game.features.tellings.store import KeptTelling
from game.store import turn_log
from game.store.check import check_save
from game.store.packed import unpack_text


def whole(alt: KeptTelling) -> str:
    """A telling in the first form: everything it holds, whole (the payload saves were written with)."""
    r, w = alt.record, alt.writes
    return json.dumps({
        "record": {"input": r.input, "narration": r.narration, "npcContext": r.npc_context, "worldIR": r.world_ir,
                   "timings": r.timings, "extracted": r.extracted},
        "writes": {"nodes": [n.to_json_dict() for n in w.nodes.values()],
                   "edges": [e.to_json_dict() for e in w.edges.values()],
                   "createdNodes": sorted(w.created_nodes), "createdEdges": sorted(w.created_edges),
                   "knowings": [k.to_json_dict() for k in w.knowings.values()]},
        "scene": alt.scene,
        "told": [asdict(t) for t in alt.told],
        "rows": [{"table": row.table, "key": dict(row.key), "row": None if row.row is None else dict(row.row)}
                 for row in alt.rows],
    })


async def read(session: GameSession) -> list[KeptTelling]:
    return await tellings_store.tellings_of(session._db, session.turn)


async def check_tellings(session: GameSession, seen: dict[tuple[int, int], str]) -> None:
    """Every telling of the last turn reads as it did when first read; the kept one is the turn as saved."""
    alts = await read(session)
    assert [a.kept for a in alts].count(True) == 1
    for gone in [k for k in seen if k[0] == session.turn and k[1] not in {a.index for a in alts}]:
        del seen[gone]  # undo took an edit's telling back: its index may be a new telling's later
    for alt in alts:
        seen.setdefault((alt.turn, alt.index), whole(alt))
        assert whole(alt) == seen[(alt.turn, alt.index)], f"telling {alt.index} of turn {alt.turn} changed"
    kept = next(a for a in alts if a.kept)
    assert kept.scene == await turn_log.scene_at(session._db, session.turn)
    assert kept.record.narration == (await turn_log.turns(session._db, last=1))[0].narration


async def test_tellings_read_back_the_same_through_retry_edit_swipe_undo_and_reopening(tmp_path: Path) -> None:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    seen: dict[tuple[int, int], str] = {}
    async with await GameSession.open(settings, "game", new=True, world="brinefall") as session:
        for line in ("n", "e", "talk to maud"):
            await collect(session, line)
            await check_tellings(session, seen)
            for again in ("retry", "retry", "/edit Maud looks up from her nets.", "/edit-input ask maud about the tide",
                          "/swipe <", "/swipe 1", "/swipe >", "/swipe >", "undo", "/swipe 2"):
                await collect(session, again)
                await check_tellings(session, seen)
        assert len(await read(session)) >= 4
        path = session.save_path
    assert check_save(path, SCHEMA) == []
    async with await GameSession.open(settings, save=path) as session:
        await check_tellings(session, seen)
        for again in ("/swipe <", "/swipe <", "retry", "/swipe 1", "undo"):
            await collect(session, again)
            await check_tellings(session, seen)
        for _ in range(4):  # the edits' steps first, then the whole turn
            if session.turn == 3:
                await collect(session, "undo")
                await check_tellings(session, seen)
        assert session.turn == 2
        await check_tellings(session, seen)  # turn 2's tellings, kept since, read back as they were told
        await collect(session, "/swipe 3")
        await check_tellings(session, seen)
    assert check_save(path, SCHEMA) == []


async def test_a_telling_stores_no_scene_or_context_the_turn_already_holds(tmp_path: Path) -> None:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    async with await GameSession.open(settings, "game", new=True, world="brinefall") as session:
        for line in ("n", "e", "talk to maud", "retry"):
            await collect(session, line)
        path = session.save_path
    with sqlite3.connect(path) as conn:
        payloads = {(t, i): json.loads(unpack_text(p)) for t, i, p in
                    conn.execute("SELECT turn, idx, payload FROM swipes")}
        contexts = [zlib.decompress(c).decode() for (c,) in conn.execute("SELECT context FROM turn_context")]
    conn.close()
    assert len(payloads) == 4 and contexts
    for data in payloads.values():
        assert "scene" not in data and "npcContext" not in data["record"]
        assert not any(c in json.dumps(data) for c in contexts)  # no composed context, kept or not
        shared = [row for row in data["rows"] if row["table"] == "turn_context"]
        assert shared and all("row" not in row for row in shared)  # the same, or what differs (timings)
    assert payloads[(3, 1)]["sceneDelta"] == {}  # the retry, kept: the turn's scene row is its scene
    assert payloads[(3, 0)]["sceneDelta"]  # the first telling: what its scene has otherwise


def test_a_scene_delta_gives_back_exactly_the_scene_or_is_refused() -> None:
    base = {"clock": 3, "here": {"maud": {"mood": "calm"}, "hob": {}}, "flags": [1, 2], "gone": True}
    target = {"clock": 4, "here": {"maud": {"mood": "wary"}, "hob": {}}, "flags": [1, 2], "new": None}
    change = telling_delta.delta(base, target)
    assert change is not None and telling_delta.apply(base, change) == target
    assert json.dumps(telling_delta.apply(base, change)) == json.dumps(target)
    assert telling_delta.delta(base, base) == {}
    assert telling_delta.delta({"a": 1}, {"a": True}) == {"set": {"a": True}}
    assert telling_delta.delta({"a": [1]}, {"a": [True]}) is None  # equal in Python, not in JSON: whole
    assert telling_delta.delta({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == {"in": {"a": {"in": {"1": {"set": {"b": 3}}}}}}
    assert telling_delta.delta({"a": [1]}, {"a": [1, 2]}) == {"set": {"a": [1, 2]}}  # another length: whole
    assert telling_delta.delta({"a": {"x": 1, "y": 2}}, {"a": {"y": 2, "x": 1}}) is None  # order: kept whole


async def test_a_save_with_tellings_stored_whole_swipes_through_them_and_plays_on(tmp_path: Path) -> None:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    async with await GameSession.open(settings, "game", new=True, world="brinefall") as session:
        for line in ("n", "e", "retry", "talk to maud", "retry", "/edit Maud mends a net.", "retry"):
            await collect(session, line)
        before = {a.index: whole(a) for a in await read(session)}
        earlier = await tellings_store.tellings_of(session._db, 2)
        every = [a for turn in (1, 2, 3) for a in await tellings_store.tellings_of(session._db, turn)]
        path = session.save_path
    # The tellings as the code before this form wrote them: every payload whole, packed.
    with sqlite3.connect(path) as conn:
        for alt in every:
            conn.execute("UPDATE swipes SET payload = ? WHERE turn = ? AND idx = ?",
                         (zlib.compress(whole(alt).encode()), alt.turn, alt.index))
        olds = [json.loads(unpack_text(p)) for (p,) in conn.execute("SELECT payload FROM swipes")]
    conn.close()
    assert olds and all("scene" in d and "npcContext" in d["record"] and "form" not in d for d in olds)
    assert check_save(path, SCHEMA) == []
    async with await GameSession.open(settings, save=path) as session:
        assert {a.index: whole(a) for a in await read(session)} == before
        narrations = {}
        for _ in range(len(before)):  # around them all and back to the first one kept
            events = await collect(session, "/swipe >")
            shown = next(e for e in events if isinstance(e, TurnReplaced))
            narrations[shown.index] = shown.narration
            assert {a.index: whole(a) for a in await read(session)} == before
        assert set(narrations) == set(range(len(before)))
        assert len(before) == 4
        await collect(session, "retry")
        assert len(await read(session)) == 5
        for _ in range(3):  # the edit's step, then the whole turn 3
            if session.turn == 3:
                await collect(session, "undo")
        assert session.turn == 2
        assert [whole(a) for a in await read(session)] == [whole(a) for a in earlier]
        await collect(session, "/swipe >")
        await collect(session, "talk to maud")
        assert session.turn == 3
    assert check_save(path, SCHEMA) == []



async def test_a_telling_whose_shared_parts_are_gone_or_do_not_fit_is_one_damaged_message(tmp_path: Path) -> None:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    async with await GameSession.open(settings, "game", new=True, world="brinefall") as session:
        for line in ("n", "retry"):
            await collect(session, line)
        path = session.save_path
    with sqlite3.connect(path) as conn:
        (payload,) = conn.execute("SELECT payload FROM swipes WHERE turn = 1 AND idx = 0").fetchone()
        data = json.loads(unpack_text(payload))
        data["sceneDelta"] = {"in": {"no such field": {"set": {"x": 1}}}}  # a delta its base cannot take
        conn.execute("UPDATE swipes SET payload = ? WHERE turn = 1 AND idx = 0",
                     (zlib.compress(json.dumps(data).encode()),))
    conn.close()
    async with await GameSession.open(settings, save=path) as session:
        for command in ("/swipe <", "retry"):
            said = text_of(await collect(session, command))
            assert "is damaged" in said and "kith saves check game" in said
        assert session.turn == 1
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM turn_context WHERE turn = 1")  # the kept telling's context, gone
    conn.close()
    async with await GameSession.open(settings, save=path) as session:
        said = text_of(await collect(session, "/swipe <"))
        assert "is damaged" in said


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


async def test_a_model_narrators_retry_and_continue_read_back_the_same_after_swipes_and_reopening(
        tmp_path: Path, server: ChatServer) -> None:
    settings = settings_for(tmp_path, server)
    more = "Then she hands you the lamp."
    server.push(*telling(TOLD, TRUST), *telling(RETOLD, SCORN), Text(more), Text(json.dumps(facts(SCORN))),
                ToolCalls([("upsert_npc_graph", {"edges": [SCORN]})]))
    seen: dict[tuple[int, int], str] = {}
    session = await open_game(settings)
    try:
        for line in ("help Edda with the wick", "retry", "continue", "/swipe 1", "/swipe 3", "/swipe <"):
            await collect(session, line)
            await check_tellings(session, seen)
        assert [a.record.narration for a in await read(session)] == [TOLD, RETOLD, f"{RETOLD} {more}"]
    finally:
        await session.close()
    session = await open_game(settings, new=False)
    try:
        await check_tellings(session, seen)
        for line in ("/swipe 3", "undo", "/swipe 1"):  # undo takes the continuation back, to telling 2
            await collect(session, line)
            await check_tellings(session, seen)
        assert session.history[-1].narration == TOLD
    finally:
        await session.close()
