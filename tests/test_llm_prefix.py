"""Prompts ordered for a server's prefix cache (issue 25): what does not change in a session first, the turn's
own part last; the narration's history appended, never rewritten, until it must be compacted, then once.

llama.cpp, vLLM and the hosted APIs evaluate again only what follows the longest prefix a request shares
with the previous one, so these are properties of the requests the server receives.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Received, Text, ToolCalls
from helpers.play import collect as play
from llm_helpers import (
    WORLDS,
    character,
    collect,
    edge,
    ir,
    llm_settings,
    narrator,
    relation,
    request,
    seeded_graph,
    tiny_world,
)

from game.config import Settings
from game.engine.events import TurnCommitted
from game.engine.session import GameSession
from game.narrator.base import PastTurn
from game.narrator.llm.narrator import OpenAINarrator

TRUST = "Edda Marsh trusts Sam Reed since Sam held the wick for her."
HELD = "You hold the wick while Edda ties it off. She nods once."


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def _step(request: Received) -> str:
    tools = request.tool_names
    if "upsert_npc_graph" in tools:
        return "extract"
    return "world-ir" if request.body.get("response_format") else "narrate"


def _by_step(server: ChatServer, step: str) -> list[Received]:
    return [r for r in server.chat_requests if _step(r) == step]


async def _game(tmp_path: Path, server: ChatServer) -> None:
    """Four turns on the tiny world: a relation opened, then three turns at the same place."""
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, max_tool_rounds=0))
    session = await GameSession.open(settings, save="game", new=True, world="tiny",
                                     narrator=OpenAINarrator(settings.llm, tiny_world(), env={}))
    here = ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
              nextCast=["Edda Marsh"])
    trusting = {**here, "relations": [{**relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.5, TRUST), "evidence": HELD}]}
    server.push(Text(HELD), Text(json.dumps(trusting)),
                ToolCalls([("upsert_npc_graph", {"edges": [edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.5, TRUST)]})]))
    for said in ("The wind hums in the glass.", "Edda trims the wick again.", "The lamp smokes a little."):
        server.push(Text(said), Text(json.dumps(here)), ToolCalls([("runtime_done", {})]))
    try:
        for command in ("help Edda with the wick", "wait", "watch Edda", "wait"):
            assert any(isinstance(e, TurnCommitted) for e in await play(session, command))
    finally:
        await session.close()


async def test_each_narration_prompt_extends_the_one_before(tmp_path: Path, server: ChatServer) -> None:
    await _game(tmp_path, server)
    told = _by_step(server, "narrate")
    assert len(told) == 4
    systems = {r.messages[0]["content"] for r in told}
    assert len(systems) == 1  # the system message never changes: no turn number, no scene, no memory lines
    assert "turn 2" not in told[1].messages[0]["content"].lower()
    for before, after in itertools.pairwise(told):
        # The whole previous conversation, its last message as it was sent, is where the next one starts.
        assert after.messages[: len(before.messages)] == before.messages
        assert after.messages[len(before.messages)]["role"] == "assistant"
    # Each turn's block says what is new: the first holds the scene and what the memory recalls, a turn at
    # the same place with nothing new says nothing again.
    first, second, quiet = (r.messages[-1]["content"] for r in told[:3])
    assert "Place: The Iron Stair" in first and "Place:" not in second
    assert "TRUSTS" in second and "TRUSTS" not in quiet  # the relation opened by the first turn, said once
    assert quiet.endswith("watch Edda")


async def test_the_memory_steps_put_the_turn_last(tmp_path: Path, server: ChatServer) -> None:
    await _game(tmp_path, server)
    for step in ("world-ir", "extract"):
        sent = _by_step(server, step)
        assert len({r.messages[0]["content"] for r in sent}) == 1, step  # instructions and vocabulary only
    extract = _by_step(server, "extract")[0].messages[1]["content"]
    assert extract.index("<existing-npcs>") < extract.index("<existing-relations>") < extract.index("<world-ir>")
    assert extract.rstrip().endswith("</world-ir>")


def _window_starts(sent: list[dict[str, Any]]) -> str:
    """The first past turn's words in a narration request ("" when it holds none)."""
    past = [m for m in sent[1:-1] if m["role"] == "user"]
    return str(past[0]["content"]) if past else ""


async def test_the_history_is_compacted_once_when_full_then_grows_again(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    said = "The wind keeps on howling around the tower and the lamp stays dark. " * 10
    teller = narrator(world, server.base_url, context_size=3000, narration_tokens=300, max_tool_rounds=0)
    history: list[PastTurn] = []
    try:
        for turn in range(1, 25):
            server.push(Text(said))
            await collect(teller.narrate(request(world, graph, f"wait {turn}", turn=turn, history=history)))
            history.append(PastTurn(turn, f"wait {turn}", said))
    finally:
        await teller.aclose()
    sent = [r.messages for r in server.chat_requests]
    starts = [_window_starts(messages) for messages in sent]
    compactions = [n for n in range(1, len(sent)) if starts[n] != starts[n - 1] and starts[n - 1]]
    assert 1 <= len(compactions) <= 4  # once each time the window is full, not every turn
    for n in range(1, len(sent)):
        if n not in compactions:
            assert sent[n][: len(sent[n - 1])] == sent[n - 1], n  # appended, never rewritten
    for n in compactions:
        assert len(sent[n]) < len(sent[n - 1]) - 4  # compacted well below the full window, at once
