"""Retry, swipes, continue, edit, Memory and Author's note with the model narrator, through a real save and
the local chat server: the graph holds only the kept telling's extraction, the player's notes reach the
prompt, and the tokens each telling cost are kept (``kith saves list --json``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Text, ToolCalls
from helpers.play import collect, text_of
from helpers.saves import SCHEMA
from llm_helpers import WORLDS, character, edge, ir, llm_settings, open_relations, relation, tiny_world

from game.config import Settings
from game.engine.events import TurnReplaced
from game.engine.session import GameSession
from game.narrator.llm.narrator import OpenAINarrator
from game.narrator.llm.record import ReplayTransport
from game.store.saves import list_saves
from game.ui.status_line import token_summary

TOLD = "You steady the wick while Edda ties it. She grunts, which is thanks."
RETOLD = "Edda snatches the wick from your hands and turns her back on you."
TRUST = edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed since Sam steadied her wick.")
SCORN = edge("Edda Marsh", "Sam Reed", "DISTRUSTS", -0.5, "Edda Marsh distrusts Sam Reed after he fumbled the wick.")


def facts(e: dict[str, object]) -> dict[str, object]:
    return ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
              relations=[relation("Edda Marsh", "Sam Reed", str(e["relation"]), float(str(e["strength"])),
                                  str(e["fact"]))], nextCast=["Edda Marsh"])


def telling(narration: str, e: dict[str, object]) -> tuple[Text, Text, ToolCalls]:
    return Text(narration), Text(json.dumps(facts(e))), ToolCalls([("upsert_npc_graph", {"edges": [e]})])


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def settings_for(tmp_path: Path, server: ChatServer) -> Settings:
    return Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                    llm=llm_settings(server.base_url))


async def open_game(settings: Settings, record: Path | None = None, new: bool = True) -> GameSession:
    teller = OpenAINarrator(settings.llm, tiny_world(), env={}, record=record)
    return await GameSession.open(settings, save="game", new=new, world="tiny", narrator=teller)


def relations(session: GameSession) -> set[tuple[str, str, str]]:
    return set(open_relations(session.graph))


async def test_a_retry_keeps_both_tellings_and_the_graph_holds_only_the_kept_one(
        tmp_path: Path, server: ChatServer) -> None:
    settings = settings_for(tmp_path, server)
    server.push(*telling(TOLD, TRUST), *telling(RETOLD, SCORN))
    session = await open_game(settings)
    await collect(session, "help Edda with the wick")
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") in relations(session)

    events = await collect(session, "retry")
    replaced = next(e for e in events if isinstance(e, TurnReplaced))
    assert (replaced.turn, replaced.index, replaced.count, replaced.narration) == (1, 1, 2, RETOLD)
    assert session.turn == 1 and session.history[-1].narration == RETOLD
    assert ("Edda Marsh", "Sam Reed", "DISTRUSTS") in relations(session)
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") not in relations(session)  # the first telling's never stays

    await collect(session, "/swipe <")  # back to the first telling: its extraction, and only it
    assert session.history[-1].narration == TOLD
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") in relations(session)
    assert ("Edda Marsh", "Sam Reed", "DISTRUSTS") not in relations(session)
    assert not [e for e in await session.all_edges() if e.relation == "DISTRUSTS"]

    await session.close()
    reopened = await open_game(settings, new=False)  # the choice and both tellings are in the save
    assert reopened.history[-1].narration == TOLD
    await collect(reopened, "/swipe >")
    assert reopened.history[-1].narration == RETOLD
    assert ("Edda Marsh", "Sam Reed", "DISTRUSTS") in relations(reopened)
    assert "Undone" in text_of(await collect(reopened, "undo"))  # undo takes the whole turn back
    assert reopened.turn == 0 and not relations(reopened) & {("Edda Marsh", "Sam Reed", "DISTRUSTS")}
    await reopened.close()


async def test_continue_writes_on_and_the_whole_turn_is_extracted(tmp_path: Path, server: ChatServer) -> None:
    settings = settings_for(tmp_path, server)
    more = "Then she hands you the lamp."
    server.push(*telling(TOLD, TRUST), Text(more), Text(json.dumps(facts(TRUST))),
                ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]))
    session = await open_game(settings)
    await collect(session, "help Edda with the wick")
    await collect(session, "continue")
    assert session.history[-1].narration == f"{TOLD} {more}"
    asked = server.chat_requests
    narrate = asked[3].messages
    assert narrate[-2] == {"role": "assistant", "content": TOLD} and "Continue" in narrate[-1]["content"]
    assert f"{TOLD} {more}" in asked[4].text()  # the World IR reads the whole turn
    assert "Undone the continuation" in text_of(await collect(session, "undo"))
    assert session.turn == 1 and session.history[-1].narration == TOLD
    await session.close()


async def test_an_edit_replaces_the_narration_and_undo_restores_it(tmp_path: Path, server: ChatServer) -> None:
    settings = settings_for(tmp_path, server)
    server.push(*telling(TOLD, TRUST), Text(json.dumps(facts(SCORN))),
                ToolCalls([("upsert_npc_graph", {"edges": [SCORN]})]))
    session = await open_game(settings)
    await collect(session, "help Edda with the wick")
    await collect(session, f"/edit {RETOLD}")
    assert session.history[-1].narration == RETOLD
    assert RETOLD in server.chat_requests[-2].text()  # re-extracted from the edited text
    assert ("Edda Marsh", "Sam Reed", "DISTRUSTS") in relations(session)
    await collect(session, "undo")
    assert session.history[-1].narration == TOLD
    assert ("Edda Marsh", "Sam Reed", "TRUSTS") in relations(session)
    assert ("Edda Marsh", "Sam Reed", "DISTRUSTS") not in relations(session)
    await session.close()


async def test_memory_and_authors_note_reach_the_prompt(tmp_path: Path, server: ChatServer) -> None:
    settings = settings_for(tmp_path, server)
    server.push(*telling(TOLD, TRUST))
    session = await open_game(settings)
    await collect(session, "/memory Sam owes Edda three silver pieces.")
    await collect(session, "/note Grim and terse.")
    await collect(session, "help Edda with the wick")
    narrate = server.chat_requests[0].messages
    assert "Sam owes Edda three silver pieces." in narrate[0]["content"]
    assert narrate[-1]["content"].endswith("[Author's note: Grim and terse.]")
    await session.close()


async def test_tokens_are_kept_per_turn_and_counted_for_the_save(tmp_path: Path, server: ChatServer) -> None:
    settings = settings_for(tmp_path, server)
    server.push(*telling(TOLD, TRUST), *telling(RETOLD, SCORN))
    session = await open_game(settings)
    await collect(session, "help Edda with the wick")
    first = await session.turn_usage()
    assert first["narrate.prompt_tokens"] > 0 and first["world-ir.completion_tokens"] > 0
    assert first["extract.prompt_tokens"] > 0
    await collect(session, "retry")
    figures = token_summary(await session.turn_usage(), settings.llm.context_size)
    assert figures.startswith("narrate ") and " · IR " in figures and " · extract " in figures and "ctx " in figures
    await session.close()
    listed = next(s for s in list_saves(settings.saves_dir, SCHEMA) if s.name == "game").to_json_dict()
    tokens = listed["tokens"]
    assert tokens["total"] == tokens["prompt"] + tokens["completion"] > 0
    assert tokens["prompt"] > first["narrate.prompt_tokens"]  # both tellings were paid for


async def test_a_recorded_retry_replays_without_a_server(tmp_path: Path, server: ChatServer) -> None:
    settings = settings_for(tmp_path, server)
    server.push(*telling(TOLD, TRUST), *telling(RETOLD, SCORN))
    recording = tmp_path / "retry.jsonl"
    session = await open_game(settings, record=recording)
    await collect(session, "help Edda with the wick")
    await collect(session, "retry")
    await session.close()

    replay_settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "replayed",
                               llm=llm_settings("http://127.0.0.1:9/v1"))
    teller = OpenAINarrator(replay_settings.llm, tiny_world(), env={}, replay=recording)
    assert isinstance(teller.transport, ReplayTransport)
    async with await GameSession.open(replay_settings, save="game", new=True, world="tiny", narrator=teller) as again:
        await collect(again, "help Edda with the wick")
        await collect(again, "retry")
        assert again.history[-1].narration == RETOLD
        assert ("Edda Marsh", "Sam Reed", "DISTRUSTS") in relations(again)


async def test_a_memory_too_long_for_a_small_context_is_named_as_what_to_shorten(
        tmp_path: Path, server: ChatServer) -> None:
    settings = settings_for(tmp_path, server)
    settings = settings.model_copy(update={"llm": settings.llm.model_copy(update={"context_size": 1024})})
    session = await open_game(settings)
    await collect(session, "/memory " + "Remember the sea and the lamp. " * 60)
    said = text_of(await collect(session, "greet the keeper"))  # nothing is sent: the prompt cannot fit
    assert "too small" in said and "/memory" in said, said
    assert session.turn == 0 and server.chat_requests == []
    await session.close()
