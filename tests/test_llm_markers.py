"""End-of-turn markers (issue 25): the stream guard cuts at one and strips every chat-template marker
whatever secret it masks, and the reply is read no further than the marker.

A base model, or a server without the model's chat template, writes the template's markers as text
(``<|im_end|>``, ``<end_of_turn>`` ...) and then a made-up next turn. The guard holds back ``len(key) - 1``
characters so that a key split across pieces is still masked; that hold must never let a marker through.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Text, ToolCalls
from helpers.saves import stored_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llm_helpers import (
    character,
    collect,
    edge,
    ir,
    llm_settings,
    narrator,
    relation,
    request,
    run_recorded,
    seeded_graph,
    tiny_world,
)

from game.config import LLMSettings
from game.narrator.llm.guard import END_OF_TURN, TEMPLATE_MARKERS, SafeStream, mask_secrets, until_end
from game.narrator.llm.narrator import OpenAINarrator

END_MARKERS = ["<|im_end|>", "<end_of_turn>", "<|eot_id|>", "<|endoftext|>", "<|end_of_text|>", "</s>"]
OTHER_MARKERS = ["<|im_start|>", "<|im_start|>user\n", "<|im_start|>assistant\n", "<start_of_turn>model\n",
                 "<start_of_turn>", "<|start_header_id|>assistant<|end_header_id|>\n", "<|begin_of_text|>",
                 "<|eom_id|>", "[INST]", "[/INST]", "<s>"]
PROSE = st.text(alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,'!?\n-"
                                               "0123456789")), max_size=40)
KEYS = st.text(alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")),
               min_size=0, max_size=80)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def _told(text: str, size: int, secrets: list[str]) -> tuple[str, int | None]:
    """What the guard releases, fed ``text`` in pieces of ``size``; and the piece after which it said the
    reply had ended (None when it never did)."""
    guard = SafeStream(secrets)
    out = []
    ended_at = None
    for number, piece in enumerate(_pieces(text, size)):
        out.append(guard.feed(piece))
        if guard.ended and ended_at is None:
            ended_at = number
    out.append(guard.flush())
    return "".join(out), ended_at


@st.composite
def replies(draw: st.DrawFn) -> tuple[str, str]:
    """A reply made of prose, the key and markers of every family, and the key it may hold."""
    key = draw(KEYS)
    parts = draw(st.lists(st.one_of(PROSE, st.sampled_from(END_MARKERS), st.sampled_from(OTHER_MARKERS),
                                    st.just(key)), max_size=12))
    return "".join(parts), key


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(), st.integers(min_value=1, max_value=64))
def test_the_guard_cuts_at_the_end_of_turn_and_strips_every_marker_whatever_key_it_masks(
        reply: tuple[str, str], size: int) -> None:
    text, key = reply
    secrets = [key] if key else []
    told, ended_at = _told(text, size, secrets)
    end = END_OF_TURN.search(text)
    # What the player may read: the reply up to its first end-of-turn marker, markers gone, key masked.
    expected = mask_secrets(until_end(text)[0], secrets)
    assert told == expected
    assert TEMPLATE_MARKERS.search(told) is None
    assert not key or len(key) < 2 or key not in told
    if end is None:
        assert ended_at is None
    else:
        # The guard knows the reply has ended as soon as the piece that completes the marker arrives, so
        # the caller can stop reading there.
        assert ended_at == (end.end() - 1) // size


def test_the_issues_reply_with_an_eighteen_character_key_is_cut_at_the_marker() -> None:
    text = ("The bell tolls twice.<|im_end|>\n<|im_start|>user\nWhat happens next?<|im_end|>\n"
            "<|im_start|>assistant\nThe bell tolls again.")
    for secrets in ([], ["sk-live-0123456789"]):
        assert _told(text, 9, secrets)[0] == "The bell tolls twice."


# ------------------------------------------------------------------------------------------ the stream closed

MADE_UP = "\n<|im_start|>user\nWhat happens next?<|im_end|>\n<|im_start|>assistant\nThe bell tolls again." * 8
KEYED = "sk-live-0123456789"
"""Eighteen characters, as in the issue: the guard holds seventeen back."""


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def _marker_chunk(text: str, marker: str, size: int) -> int:
    """The (0-based) chunk of ``text`` cut in ``size`` pieces that completes the first ``marker``."""
    return (text.index(marker) + len(marker) - 1) // size


@pytest.mark.parametrize("marker", ["<|im_end|>", "<end_of_turn>", "<|eot_id|>"])
async def test_the_narration_request_ends_within_one_chunk_of_the_marker(server: ChatServer, marker: str) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    reply = f"The bell tolls twice.{marker}" + MADE_UP
    server.require_key = KEYED
    server.push(Text(reply, chunk_size=9, pause=0.3))
    teller = narrator(world, server.base_url, env={"OPENAI_API_KEY": KEYED}, max_tool_rounds=0)
    try:
        told = await collect(teller.narrate(request(world, graph, "ring the bell")))
    finally:
        await teller.aclose()
    assert told == "The bell tolls twice."
    [stream] = server.streams
    assert stream.over.wait(5)
    marked = _marker_chunk(reply, marker, 9)
    assert stream.planned > marked + 20  # the made-up turns were there to be sent
    assert stream.disconnected
    assert marked + 1 <= stream.sent <= marked + 2
    # The turn still counts its request, and its prompt, as a turn that was told.
    assert teller.usage(1)["narrate.calls"] == 1


def _closed_within_one_chunk(stream: Any, reply: str, marker: str, size: int) -> None:
    assert stream.over.wait(5)
    marked = _marker_chunk(reply, marker, size)
    assert stream.planned > marked + 20  # the made-up turns were there to be sent
    assert stream.disconnected
    assert marked + 1 <= stream.sent <= marked + 2


@pytest.mark.parametrize("model", ["deepseek-r1-distill", "test-model"])
async def test_a_lookup_round_recorded_with_a_key_is_closed_at_its_marker_too(
        tmp_path: Path, server: ChatServer, model: str) -> None:
    """Every streaming request of the turn, the one after a character lookup included, and also when
    recorded; a reasoning model's reply, whose start the narrator holds back while it may be a think block,
    is closed at the marker as soon as it comes, not when the hold would have ended."""
    world = tiny_world()
    graph = await seeded_graph(world)
    reply = "Edda trims the wick.<end_of_turn>" + MADE_UP
    server.require_key = KEYED
    server.push(ToolCalls([("get_character", {"name": "Edda Marsh"})]), Text(reply, chunk_size=9, pause=0.3))
    record = tmp_path / "lookup.jsonl"
    teller = OpenAINarrator(llm_settings(server.base_url, model=model, max_tool_rounds=2), world,
                            env={"OPENAI_API_KEY": KEYED}, record=record)
    try:
        told = await collect(teller.narrate(request(world, graph, "ask about Edda")))
    finally:
        await teller.aclose()
    assert told == "Edda trims the wick."
    assert len(server.chat_requests) == 2 and server.chat_requests[1].messages[-1]["role"] == "tool"
    _closed_within_one_chunk(server.streams[-1], reply, "<end_of_turn>", 9)
    recorded = record.read_text(encoding="utf-8")
    assert "end-of-turn" in recorded and "<end_of_turn>" not in recorded and KEYED not in recorded


# ------------------------------------------------------------------------------------------ a recorded game

LEAKY = [
    ("help Edda with the wick", [
        Text("You hold the wick straight while Edda ties it off. She grunts, which is thanks.<|im_end|>"
             + MADE_UP, chunk_size=9),
        Text(json.dumps(ir(charactersPresent=["Sam Reed", "Edda Marsh"],
                           entities=[character("Edda Marsh", "The old keeper<|im_end|> of the light.")],
                           relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6,
                                               "Edda Marsh trusts Sam Reed since Sam held her wick.")],
                           nextCast=["Edda Marsh"])) + "<|im_end|>\n<|im_start|>user\nNow the next turn."),
        ToolCalls([("upsert_npc_graph", {"edges": [edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6,
                                                        "Edda Marsh trusts Sam Reed<end_of_turn> since Sam "
                                                        "held her wick.")]})]),
    ]),
    ("wait", [
        Text("<|im_start|>assistant\nThe wind hums in the glass.<end_of_turn>\n<start_of_turn>user\nlook",
             chunk_size=9),
        Text(json.dumps(ir(charactersPresent=["Sam Reed", "Edda Marsh"], nextCast=["Edda Marsh"]))),
    ]),
]




def test_a_recorded_game_with_a_key_shows_no_marker_anywhere(tmp_path: Path, server: ChatServer,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    server.require_key = KEYED
    monkeypatch.setenv("OPENAI_API_KEY", KEYED)
    server.push(*[reply for _, replies in LEAKY for reply in replies])
    code, record = run_recorded(tmp_path, server.base_url, "keyed", ["transcript on", LEAKY[0][0], LEAKY[1][0]])
    story = capsys.readouterr().out
    assert code == 0, story
    assert "She grunts, which is thanks." in story and "The wind hums in the glass." in story
    assert len(server.chat_requests) == 5 and not server.replies
    transcript = (tmp_path / "saves" / "keyed.transcript.txt").read_text(encoding="utf-8")
    assert "The wind hums in the glass." in transcript
    recorded = record.read_text(encoding="utf-8")
    saved = stored_text(tmp_path / "saves" / "keyed.sqlite")
    assert "Sam held her wick" in saved and "The wind hums in the glass." in saved
    for where, text in (("story", story), ("transcript", transcript), ("recording", recorded), ("save", saved)):
        for marker in ("<|im_", "<end_of_turn>", "<start_of_turn>", "What happens next?", "Now the next turn"):
            assert marker not in text, (where, marker)
        assert KEYED not in text, where


async def test_a_reply_closed_at_its_marker_replays_to_the_same_turn(tmp_path: Path, server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    reply = "The bell tolls twice.<|im_end|>" + MADE_UP
    server.push(Text(reply, chunk_size=9))
    record = tmp_path / "closed.jsonl"
    live = OpenAINarrator(llm_settings(server.base_url, max_tool_rounds=0), world, env={}, record=record)
    told = await collect(live.narrate(request(world, graph, "ring the bell")))
    await live.aclose()
    [line] = [json.loads(text) for text in record.read_text(encoding="utf-8").splitlines()[1:]]
    assert line["ended"] == "end-of-turn" and "stopped" not in line
    assert "<|im_end|>" not in json.dumps(line)
    replay = OpenAINarrator(LLMSettings(max_tool_rounds=0), world, replay=record)
    assert await collect(replay.narrate(request(world, graph, "ring the bell"))) == told == "The bell tolls twice."
    assert replay.usage(1)["narrate.completion_tokens"] == live.usage(1)["narrate.completion_tokens"]
    await replay.aclose()
