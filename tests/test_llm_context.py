"""A small context against a server that counts more tokens than Kith estimates (issue 12): every prompt is
fitted, an overflow in any server's words drops the oldest history and the turn is told again, the
server's usage calibrates the estimate, and a long playthrough never gets stuck."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Dynamic, Received, Text, ToolCalls, _overflow
from helpers.play import collect as play
from llm_helpers import (
    character,
    collect,
    ir,
    llm_settings,
    narrator,
    open_relations,
    relation,
    request,
    seeded_graph,
    tiny_world,
)

from game.config import Settings
from game.engine.events import Notice, TurnCommitted, TurnFailed
from game.engine.session import GameSession
from game.errors import NarratorError
from game.narrator.base import PastTurn
from game.narrator.llm.compact import SKELETON
from game.narrator.llm.ir import IR_FIELDS
from game.narrator.llm.narrator import OpenAINarrator
from game.narrator.llm.tokens import Calibration, overflow_count
from game.world import load_world

LONG = ("The wind keeps on howling around the tower, the sea throws itself at the rocks below, and the great "
        "lamp stays dark while Edda Marsh mutters about the Board and the oil that never comes. ") * 6


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.mark.parametrize("wording", ["llama.cpp", "vllm", "openai", "ollama"])
async def test_an_overflow_in_any_servers_words_drops_old_turns_and_tells_the_turn(
        server: ChatServer, wording: str) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.context_size = 2048
    server.chars_per_token = 1.2  # the estimate says 3.6: the window it fits is refused
    server.overflow_wording = wording
    server.push(Text("You wait."))
    teller = narrator(world, server.base_url, context_size=2048, narration_tokens=300, max_tool_rounds=0)
    history = [PastTurn(n, f"wait {n}", LONG) for n in range(1, 9)]
    req = request(world, graph, "wait", turn=9, history=history)
    assert await collect(teller.narrate(req)) == "You wait."
    told = [n for n in teller.pending_notices(9) if "context is smaller" in n]
    assert len(told) == 1
    refused, accepted = server.chat_requests[0], server.chat_requests[-1]
    assert len(accepted.messages) < len(refused.messages)
    assert accepted.messages[-1]["content"].endswith("\n\nwait")
    await teller.aclose()


async def test_an_overflow_with_no_history_left_is_a_plain_error(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.context_size = 100
    teller = narrator(world, server.base_url, max_tool_rounds=0)
    with pytest.raises(NarratorError, match="longer than its context"):
        await collect(teller.narrate(request(world, graph, "wait")))
    await teller.aclose()


async def test_the_servers_usage_calibrates_the_estimate(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.chars_per_token = 1.8
    server.push(Text("You wait."))
    teller = narrator(world, server.base_url, max_tool_rounds=0)
    await collect(teller.narrate(request(world, graph, "wait")))
    assert teller._requests.calibration.scale > 1.5
    await teller.aclose()


STORY = ("Sergeant Lise Brack watches the landing from the lantern post while the ferry knocks at the steps. "
         "Hob Tarrant nods to her as he ties up, and she nods back. Hob Tarrant trusts Lise Brack to keep the "
         "Watch honest. Gulls quarrel over the mud and the tide turns slowly under the stilts of Lowtown. ")
FACTS = ir(charactersPresent=["Wren Tallis", "Lise Brack", "Hob Tarrant"],
           entities=[character("Lise Brack", "A watchwoman at the landing, said a small model."),
                     character("Hob Tarrant")],
           relations=[{**relation("Hob Tarrant", "Lise Brack", "TRUSTS", 0.6,
                                  "Hob Tarrant trusts Lise Brack to keep the Watch honest."),
                       "evidence": "Hob Tarrant trusts Lise Brack to keep the Watch honest."}],
           nextCast=["Lise Brack", "Hob Tarrant"])


def _bounded(text: str, request: Received) -> Text:
    """What a model writes under ``max_tokens`` at two characters a token: cut, and saying so, past it."""
    room = request.body.get("max_tokens")
    if isinstance(room, int) and len(text) > 2 * room:
        return Text(text[: 2 * room], finish_reason="length")
    return Text(text)


def _scripted(request: Received) -> Text | ToolCalls:
    """Narration for a narration request, a World IR for a World IR request, "done" for the extractor."""
    if "upsert_npc_graph" in request.tool_names:
        return ToolCalls([("runtime_done", {})])
    if "response_format" in request.body or "charactersPresent" in request.text():
        return _bounded(json.dumps(FACTS), request)
    return _bounded(STORY * 2, request)


def test_the_compact_world_ir_skeleton_names_every_field() -> None:
    assert list(json.loads(SKELETON)) == list(IR_FIELDS)


@pytest.mark.parametrize(("wording", "counted"), [("llama.cpp", 3000), ("vllm", 3000), ("openai", 3000),
                                                  ("ollama", None)])
def test_an_overflow_message_teaches_the_servers_own_count(wording: str, counted: int | None) -> None:
    message = _overflow(wording, 3000, 2048, 300)
    assert overflow_count(message) == counted
    calibration = Calibration()
    calibration.overflowed(1000, message)
    assert calibration.scale == (3.0 if counted else 1.25)
    calibration.observe(1000, 1500)  # a later, smaller count does not lower the scale while it is recent
    assert calibration.scale == (3.0 if counted else 1.5)


async def test_a_prompt_that_cannot_fit_even_bare_is_an_error_not_a_request(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    teller = narrator(world, server.base_url, context_size=1024)
    teller._requests.calibration.overflowed(1000, _overflow("llama.cpp", 4000, 1024))
    with pytest.raises(NarratorError, match="too small for this turn's prompt"):
        await collect(teller.narrate(request(world, graph, "wait")))
    assert server.chat_requests == []
    await teller.aclose()


async def test_a_small_context_drops_lookups_and_memory_lines_before_the_reply_room(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    memory = "## Known NPC relationships (from graph retrieval)\n\n" + "\n".join(
        f"- [+] **Edda Marsh** → **Sam Reed** (TRUSTS): Edda has trusted Sam since night {n}." for n in range(40))
    server.push(Text("You wait."))
    teller = narrator(world, server.base_url, context_size=1024, narration_tokens=700)
    await collect(teller.narrate(request(world, graph, "wait", npc_context=memory)))
    sent = server.chat_requests[0].body
    assert "tools" not in sent
    assert 256 <= sent["max_tokens"] <= 700
    told = sent["messages"][-1]["content"]
    assert "night 0." in told and "night 39." not in told
    await teller.aclose()


@pytest.mark.parametrize("family", ["llama.cpp", "vllm"])
async def test_thirty_turns_in_a_2048_token_context_at_two_characters_a_token(
        tmp_path: Path, server: ChatServer, family: str) -> None:
    """Issue 12: a small local model's context and tokenizer. Brinefall's full World IR prompt alone is
    more than 2,048 tokens at two characters a token (the server counts the JSON of the messages), so
    without fitting every such turn would be committed unrecorded. llama.cpp refuses a prompt longer than
    the context; vLLM also a prompt whose ``max_tokens`` does not fit beside it."""
    server.context_size = 2048
    server.chars_per_token = 2.0
    server.overflow_wording = family
    server.count_reply = family == "vllm"
    server.push(*[Dynamic(_scripted) for _ in range(300)])
    settings = Settings(world="brinefall", saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, context_size=2048))
    world = load_world(settings.content_dir, "brinefall")
    authored = next(c.summary for c in world.characters if c.name == "Lise Brack")
    teller = OpenAINarrator(settings.llm, world, env={})
    session = await GameSession.open(settings, save="game", new=True, world="brinefall", narrator=teller)
    try:
        extracted = 0
        for turn in range(1, 31):
            events = await play(session, f"wait {turn}")
            failed = [e for e in events if isinstance(e, TurnFailed)]
            assert not failed, failed
            committed = [e for e in events if isinstance(e, TurnCommitted)]
            assert committed, [e for e in events if isinstance(e, Notice)]
            extracted += committed[0].extracted
        assert session.turn == 30
        # Only the first request is sent before the server has counted a prompt (the estimate starts at 3.6
        # characters a token): it is refused once, and the refusal states the server's count, which the
        # calibration learns, so every later request fits. Every turn then records its memory (the compact
        # World IR prompt; the World IR recorded directly, as the extractor's tools cannot fit): a turn
        # not extracted here would be a turn the fitting lost, so the bound is all thirty.
        assert server.overflows <= 1
        assert extracted == 30
        later = server.chat_requests[-60:]
        assert all(server.prompt_tokens(r.body) + (r.body.get("max_tokens") or 0) <= 2048 for r in later)
        assert any("Reply with JSON only, shaped" in r.text() for r in later)
        lise = [n for n in session.graph.nodes.values() if n.name == "Lise Brack"]
        assert len(lise) == 1 and lise[0].summary == authored
        assert ("Hob Tarrant", "Lise Brack", "TRUSTS") in open_relations(session.graph)
    finally:
        await session.close()
