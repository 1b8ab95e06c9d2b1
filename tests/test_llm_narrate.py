"""Step 1, narration: streaming, character lookups between which text keeps streaming, the tool-round
bound, quirks of local servers (dropped tools, tool calls as text, think blocks), the history window."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from chat_server import Broken, ChatServer, Dynamic, Endless, Failure, Received, Text, ToolCalls
from llm_helpers import collect, narrator, request, seeded_graph, tiny_world

from game.errors import NarratorError
from game.narrator.base import PastTurn


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


async def test_narration_streams_in_pieces_with_the_prompt_sections(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text("Edda looks up from the wick. \"Mind the rail,\" she says.", chunk_size=5))
    teller = narrator(world, server.base_url)
    context = "## Known NPC relationships (from graph retrieval)\n\n- [+] **Tobin Hale** → **Edda Marsh** (SERVES): x"
    deltas = [d async for d in teller.narrate(request(world, graph, "talk to Edda", npc_context=context))]
    assert len(deltas) > 5
    assert "".join(deltas) == "Edda looks up from the wick. \"Mind the rail,\" she says."
    sent = server.chat_requests[0]
    system = sent.messages[0]["content"]
    turn = sent.messages[-1]
    assert sent.body["stream"] is True
    assert "A lighthouse on a rock" in system  # premise
    assert "Sam Reed" in system  # the player character
    # The scene and the memory are the turn's, in its own message before the player's words: the system
    # message stays the same from turn to turn, for the server's prefix cache.
    assert "The Iron Stair" not in system and "Tobin Hale" not in system
    assert turn["role"] == "user" and turn["content"].endswith("\n\ntalk to Edda")
    assert "Place: The Iron Stair" in turn["content"]
    assert "<npc-context>\n- [+] **Tobin Hale** → **Edda Marsh** (SERVES): x\n</npc-context>" in turn["content"]
    assert sent.tool_names == ["list_characters", "get_character"]
    await teller.aclose()


async def test_lookups_assembled_from_fragments_answer_from_world_and_graph(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(
        ToolCalls([("get_character", {"name": "the Board"}), ("list_characters", {})],
                  content="You wait. ", fragment_size=3),
        Text("The keeper mutters about the Lighthouse Board."),
    )
    teller = narrator(world, server.base_url)
    text = await collect(teller.narrate(request(world, graph, "ask about the board")))
    assert text == "You wait. The keeper mutters about the Lighthouse Board."
    second = server.chat_requests[1].messages
    assistant = second[-3]
    assert assistant["tool_calls"][0]["function"] == {"name": "get_character",
                                                      "arguments": json.dumps({"name": "the Board"})}
    board = json.loads(second[-2]["content"])
    assert board["name"] == "Lighthouse Board" and board["type"] == "faction"
    assert any("Edda Marsh → Lighthouse Board (MEMBER_OF" in line for line in board["relationships"])
    listed = json.loads(second[-1]["content"])
    assert {c["name"] for c in listed["characters"]} == {"Edda Marsh", "Tobin Hale", "Lighthouse Board"}
    await teller.aclose()


async def test_fragments_without_index_are_assembled_in_order(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(ToolCalls([("get_character", {"name": "Tobin"})], with_index=False, fragment_size=2),
                Text("Tobin keeps his eyes on the lamp."))
    teller = narrator(world, server.base_url)
    await collect(teller.narrate(request(world, graph, "look at Tobin")))
    answer = json.loads(server.chat_requests[1].messages[-1]["content"])
    assert answer["name"] == "Tobin Hale"
    await teller.aclose()


async def test_tool_rounds_are_bounded_then_the_turn_is_told(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(*[ToolCalls([("list_characters", {})]) for _ in range(2)], Text("At last, the story."))
    teller = narrator(world, server.base_url, max_tool_rounds=2)
    text = await collect(teller.narrate(request(world, graph, "who is here?")))
    assert text == "At last, the story."
    assert len(server.chat_requests) == 3
    assert server.chat_requests[2].body["tool_choice"] == "none"
    await teller.aclose()


async def test_a_model_that_only_calls_tools_fails_the_turn_clearly(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(*[ToolCalls([("list_characters", {})]) for _ in range(3)])
    teller = narrator(world, server.base_url, max_tool_rounds=2)
    with pytest.raises(NarratorError, match="no narration"):
        await collect(teller.narrate(request(world, graph, "who is here?")))
    assert len(server.chat_requests) == 3
    await teller.aclose()


async def test_a_server_that_refuses_tools_gets_the_turn_without_them(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)

    def refuse_tools(sent: Received) -> object:
        if "tools" in sent.body:
            return Failure(400, "this model does not support tools")
        return Text("You climb on.")

    server.push(Dynamic(refuse_tools), Dynamic(refuse_tools))
    teller = narrator(world, server.base_url)
    req = request(world, graph, "climb")
    assert await collect(teller.narrate(req)) == "You climb on."
    assert [("tools" in r.body) for r in server.chat_requests] == [True, False]
    assert any("without character lookups" in note for note in teller.caps.fallbacks)
    await teller.aclose()


async def test_an_unrelated_bad_request_surfaces_and_keeps_every_feature(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Failure(400, "temperature must be <= 1.0 for this model"), Text("Never sent."))
    teller = narrator(world, server.base_url, temperature=1.5)
    with pytest.raises(NarratorError, match=r"temperature must be <= 1\.0"):
        await collect(teller.narrate(request(world, graph, "listen")))
    assert len(server.chat_requests) == 1  # not sent again without a feature it never objected to
    assert teller.caps.tools and teller.caps.stream_usage and not teller.caps.fallbacks
    await teller.aclose()


async def test_a_server_that_refuses_stream_options_still_streams(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.reject_stream_options = True
    server.push(Text("The wind answers."))
    teller = narrator(world, server.base_url)
    assert await collect(teller.narrate(request(world, graph, "listen"))) == "The wind answers."
    assert ["stream_options" in r.body for r in server.chat_requests] == [True, False]
    assert teller.usage(1)["estimated"] == 1  # no usage from the server: Kith estimated it
    await teller.aclose()


async def test_a_server_that_drops_tools_silently_still_narrates(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text("Edda shrugs."))
    teller = narrator(world, server.base_url)
    assert await collect(teller.narrate(request(world, graph, "ask Edda about Tobin"))) == "Edda shrugs."
    await teller.aclose()


async def test_think_blocks_never_reach_the_player(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text("<think>The player wants the lamp. Keep it short.</think>\n\nThe lamp is cold.", chunk_size=3))
    teller = narrator(world, server.base_url)
    assert await collect(teller.narrate(request(world, graph, "look at lamp"))) == "The lamp is cold."
    await teller.aclose()


STRAY = "The player wants the lamp; Edda distrusts them. Keep it short.</think>\n\nThe lamp is cold."


async def test_reasoning_before_a_stray_closing_tag_is_never_shown(server: ChatServer) -> None:
    # R1-style chat templates open the think block in the prompt: the reply holds only its end.
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text(STRAY, chunk_size=3), Text("Edda hands you the matches without a word.", chunk_size=4),
                Text("You strike one; the wick takes.", chunk_size=4))
    teller = narrator(world, server.base_url, model="deepseek-r1:8b")
    assert await collect(teller.narrate(request(world, graph, "look at lamp"))) == "The lamp is cold."
    await teller.aclose()
    # The same model name behind a template that writes no reasoning: held once, then streamed again.
    teller = narrator(world, server.base_url, model="deepseek-r1:8b")
    deltas = [d async for d in teller.narrate(request(world, graph, "ask for matches"))]
    assert deltas == ["Edda hands you the matches without a word."]
    deltas = [d async for d in teller.narrate(request(world, graph, "light the wick", turn=2))]
    assert "".join(deltas) == "You strike one; the wick takes." and len(deltas) > 3
    await teller.aclose()


async def test_a_model_seen_closing_a_think_block_it_never_opened_is_held_back_from_then_on(
        server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text("Edda smiles.</think> She nods.", chunk_size=4), Text(STRAY, chunk_size=3))
    teller = narrator(world, server.base_url)  # a name that does not say it reasons: its first reply streams
    await collect(teller.narrate(request(world, graph, "look")))
    assert await collect(teller.narrate(request(world, graph, "look at lamp", turn=2))) == "The lamp is cold."
    await teller.aclose()


async def test_a_tool_call_written_as_text_is_not_shown_and_still_answered(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text('<tool_call>{"name": "get_character", "arguments": {"name": "Edda"}}</tool_call>'),
                Text("Edda nods at you."))
    teller = narrator(world, server.base_url)
    assert await collect(teller.narrate(request(world, graph, "greet Edda"))) == "Edda nods at you."
    follow_up = server.chat_requests[1].messages[-1]["content"]
    assert "Lookup results" in follow_up and "Edda Marsh" in follow_up
    await teller.aclose()


async def test_a_stream_that_breaks_midway_fails_the_turn(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Broken("Edda starts to say something about"))
    teller = narrator(world, server.base_url, retries=2)
    shown: list[str] = []
    with pytest.raises(NarratorError, match="broke in the middle of the reply"):
        async for delta in teller.narrate(request(world, graph, "talk to Edda")):
            shown.append(delta)
    assert "".join(shown).startswith("Edda starts")
    assert len(server.chat_requests) == 1  # text already reached the player: no silent retry
    await teller.aclose()


async def test_history_window_shrinks_with_a_warning_first(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    long = "The wind keeps on howling around the tower and the lamp stays dark. " * 12
    history = [PastTurn(n, f"wait {n}", long) for n in range(1, 13)]
    # About 1,550 tokens are left for past turns (4% of the context is never planned for), of which the
    # window grows into 85% before it is compacted; each of these costs about 240.
    teller = narrator(world, server.base_url, context_size=3500, narration_tokens=400)
    server.push(Text("You wait."), Text("You wait more."))
    req = request(world, graph, "wait", turn=13, history=history[:5])
    await collect(teller.narrate(req))
    assert any("nearly fills" in note for note in teller.pending_notices(13))
    sent = [m for m in server.chat_requests[0].messages if m["role"] == "user"]
    assert len(sent) == 6  # every past turn still fits, plus the new input

    req = request(world, graph, "wait", turn=14, history=history)
    await collect(teller.narrate(req))
    assert any("no longer sees" in note for note in teller.pending_notices(14))
    kept = [m["content"] for m in server.chat_requests[1].messages if m["role"] == "user"]
    # Compacted once, to the newest turns that fit half the room, so that the window grows again turn by
    # turn (each prompt a prefix of the next) before it must be compacted again.
    first = int(kept[0].removeprefix("wait "))
    assert 7 < first < 12 and kept[:-1] == [f"wait {n}" for n in range(first, 13)]
    assert kept[-1].endswith("\n\nwait")
    await teller.aclose()


async def test_a_long_story_costs_no_more_per_turn_than_its_window(server: ChatServer) -> None:
    # Only the turns that fit are weighed: a 3,000-turn story is told as fast as a 30-turn one.
    world = tiny_world()
    graph = await seeded_graph(world)
    said = "Mira glances at the door before she answers. " * 7
    story = [PastTurn(n, "ask mira about the ledger", said) for n in range(1, 3001)]
    teller = narrator(world, server.base_url)
    took: dict[int, float] = {}
    for turns in (30, 3000, 30, 3000):
        server.push(Text("You wait."))
        started = time.perf_counter()
        await collect(teller.narrate(request(world, graph, "wait", turn=turns + 1, history=story[-turns:])))
        took[turns] = min(took.get(turns, 1e9), time.perf_counter() - started)
    assert took[3000] - took[30] < 0.1, took
    assert len(server.chat_requests[-1].messages) < 200  # the window, not the story, was sent
    await teller.aclose()


async def test_an_endless_narration_is_cut_short_with_a_notice(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text("The sea goes on. " * 1000, chunk_size=400))
    teller = narrator(world, server.base_url)
    text = await collect(teller.narrate(request(world, graph, "look at the sea")))
    assert 8000 < len(text) < 8500
    assert any("cut short" in note for note in teller.pending_notices(1))
    await teller.aclose()


async def test_a_lookup_of_a_made_up_name_says_so(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(ToolCalls([("get_character", {"name": "Captain Morrow"}), ("get_character", "{not json")]),
                Text("Nobody by that name."))
    teller = narrator(world, server.base_url)
    await collect(teller.narrate(request(world, graph, "ask about Captain Morrow")))
    answers = [json.loads(m["content"]) for m in server.chat_requests[1].messages if m["role"] == "tool"]
    assert "no character, group or faction is called 'Captain Morrow'" in answers[0]["error"]
    assert "not valid JSON" in answers[1]["error"]
    await teller.aclose()


async def test_a_model_that_never_stops_is_bounded_by_max_tokens_and_the_player_is_told(
        server: ChatServer) -> None:
    """A base model writes on until the server's limit: max_tokens ends it, with a notice (issue 12)."""

    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Endless())
    teller = narrator(world, server.base_url, narration_tokens=100)
    req = request(world, graph, "look at the sea")
    text = await collect(teller.narrate(req))
    assert server.chat_requests[0].body["max_tokens"] == 100
    assert 0 < len(text) <= 100 * 4
    assert any("length limit" in notice for notice in teller.pending_notices(req.turn))
    await teller.aclose()


@pytest.mark.parametrize("marked", [
    "<|im_start|>assistant\nThe lamp is cold.<|im_end|>",
    "<start_of_turn>model\nThe lamp is cold.<end_of_turn>",
    "<|start_header_id|>assistant<|end_header_id|>\nThe lamp is cold.<|eot_id|>",
    "[INST]The lamp is cold.[/INST]</s>",
])
async def test_chat_template_markers_never_reach_the_story(server: ChatServer, marked: str) -> None:
    """A base model writes its template's markers as text: they are stripped, even split across chunks."""
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text(marked, chunk_size=3))
    teller = narrator(world, server.base_url)
    assert await collect(teller.narrate(request(world, graph, "look at lamp"))) == "The lamp is cold."
    await teller.aclose()


async def test_a_turn_the_model_makes_up_after_its_end_marker_is_not_told(server: ChatServer) -> None:
    """A model that writes past its end-of-turn marker invents the player's next line and answers it: the
    story ends at the marker, even with the marker split across chunks."""
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text("The lamp is cold.<|im_end|>\n<|im_start|>user\nlight the lamp", chunk_size=4))
    teller = narrator(world, server.base_url)
    assert await collect(teller.narrate(request(world, graph, "look at lamp"))) == "The lamp is cold."
    await teller.aclose()
