"""The model narrator's prompt names one person the player knows of who has gone quiet, as a thread to
pick up (``kith graph gaps``' rule, ``prompts.thread_section``): never someone on stage, never before they
have been quiet for ten turns."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chat_server import ChatServer, Text
from llm_helpers import collect, narrator, request, seeded_graph, tiny_world

from game.graph.names import normalize_name
from game.world.scene import Awareness

THREAD = "<thread>\n"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


async def system_prompt(server: ChatServer, turn: int, cast: list[str]) -> str:
    world = tiny_world()
    graph = await seeded_graph(world)
    known = {}
    for name in ("Edda Marsh", "Tobin Hale"):
        node = (await graph.nodes_named([normalize_name(name)]))[normalize_name(name)][0]
        known[node.id] = Awareness(name=name, how="heard", since_turn=0)
    scene = world.initial_scene().model_copy(update={"known": known, "cast": cast})
    server.push(Text("The wind keeps on."))
    teller = narrator(world, server.base_url, max_tool_rounds=0)
    try:
        await collect(teller.narrate(request(world, graph, "wait", turn=turn, scene=scene)))
    finally:
        await teller.aclose()
    return server.chat_requests[-1].text()  # the thread is the turn's own: in its message, not the system's


async def test_a_quiet_person_the_player_knows_of_is_offered_as_a_thread(server: ChatServer) -> None:
    system = await system_prompt(server, 15, ["Edda Marsh"])
    assert f"{THREAD}Tobin Hale, whom the player character knows of, has not come up for a long while." in system
    assert "never force it" in system


async def test_nobody_on_stage_and_nobody_quiet_for_less_than_ten_turns(server: ChatServer) -> None:
    assert THREAD not in await system_prompt(server, 5, ["Edda Marsh"])
    assert THREAD not in await system_prompt(server, 15, ["Edda Marsh", "Tobin Hale"])
