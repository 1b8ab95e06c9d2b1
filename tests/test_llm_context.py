"""A small context against a server that counts more tokens than Kith estimates (issue 12): every prompt is
fitted, an overflow in any server's words drops the oldest history and the turn is told again, the
server's usage calibrates the estimate, and a long playthrough never gets stuck."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Dynamic, Received, Text, ToolCalls
from helpers.play import collect as play
from llm_helpers import WORLDS, collect, ir, llm_settings, narrator, request, seeded_graph, tiny_world

from game.config import Settings
from game.engine.events import Notice, TurnCommitted, TurnFailed
from game.engine.session import GameSession
from game.narrator.base import PastTurn
from game.narrator.llm.narrator import OpenAINarrator

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
    assert accepted.messages[-1]["content"] == "wait"
    await teller.aclose()


async def test_an_overflow_with_no_history_left_is_a_plain_error(server: ChatServer) -> None:
    from game.errors import NarratorError
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


def _scripted(request: Received) -> Text | ToolCalls:
    """Narration for a narration request, a World IR for a World IR request, "done" for the extractor."""
    tools = request.tool_names
    if "upsert_npc_graph" in tools:
        return ToolCalls([("runtime_done", {})])
    if "response_format" in request.body or "World IR" in request.text():
        return Text(json.dumps(ir(charactersPresent=["Sam Reed", "Edda Marsh"], nextCast=["Edda Marsh"])))
    return Text(LONG)


async def test_thirty_turns_with_a_2048_token_context_all_commit(tmp_path: Path, server: ChatServer) -> None:
    server.context_size = 2048
    server.chars_per_token = 3.0  # more tokens than the estimate's 3.6 characters a token
    server.push(*[Dynamic(_scripted) for _ in range(200)])
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, context_size=2048, narration_tokens=300))
    teller = OpenAINarrator(settings.llm, tiny_world(), env={})
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    overflow_notices = 0
    for turn in range(1, 31):
        events = await play(session, f"wait {turn}")
        assert not [e for e in events if isinstance(e, TurnFailed)], [e for e in events if isinstance(e, TurnFailed)]
        committed = [e for e in events if isinstance(e, TurnCommitted)]
        assert committed and committed[0].extracted, [e for e in events if isinstance(e, Notice)]
        assert all(server.prompt_tokens(r.body) <= 2048 for r in server.chat_requests[-3:])
        overflow_notices += sum(1 for e in events if isinstance(e, Notice) and "context is smaller" in e.text)
    assert session.turn == 30
    assert overflow_notices <= 1
    assert teller._requests.calibration.scale > 1.1
    await session.close()
