"""A reply that writes Kith's own prompt tags back (issue 25 finding): cut there like an end-of-turn marker.

Against a real base model the narration was ``<npc-context>``, ``<mind>``, ``<thread>`` ... written as text to
the token limit, with no chat-template marker, and the game showed it as the story. An opening tag of ours
ends the reply, on every streamed step (also split across chunks) and in whole replies; angle brackets in
prose do not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Text, ToolCalls
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llm_helpers import (
    character,
    collect,
    edge,
    ir,
    llm_settings,
    relation,
    request,
    run_recorded,
    seeded_graph,
    tiny_world,
)

from game.config import LLMSettings
from game.narrator.llm.base_model import ECHOED, ECHOED_AGAIN
from game.narrator.llm.guard import END_OF_TURN, PROMPT_TAGS, SafeStream, mask_secrets, until_end
from game.narrator.llm.narrate import CannotNarrate
from game.narrator.llm.narrate_prompt import Item, narrate_system, render_block
from game.narrator.llm.narrator import OpenAINarrator

TAGS = [f"<{tag}>" for tag in PROMPT_TAGS]
ECHO = ("\n<turn-context>\n<scene>\nThe lamp room.\n</scene>\n<npc-context>\nEdda Marsh trusts Sam Reed.\n"
        "</npc-context>\n<mind>\n### Edda Marsh\nThe old keeper.\n</mind>\n<thread>\nPell.\n</thread>\n") * 8
"""What the base model wrote: the prompt's blocks, over and over."""
ANGLED = ("The sign on the door reads <CLOSED>, and under it someone has scrawled 3 < 5 > 2. Edda taps "
          "the <scenery> card, then the <Mind> one, then a torn </scene> label: <3, she says. <<wink>>")
"""Prose with angle brackets, none of them an opening tag of ours."""
PROSE = st.text(alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyz ABC.,'!?\n-<>/")), max_size=40)
KEYS = st.text(alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyz0123456789-")), max_size=40)
KEYED = "sk-live-0123456789"


def _told(text: str, size: int, secrets: list[str]) -> tuple[str, int | None, bool]:
    """What the guard releases fed ``text`` in pieces of ``size``, the piece after which it said the reply
    had ended (None: never), and whether it said the reply echoed the prompt."""
    guard = SafeStream(secrets)
    out, ended_at = [], None
    for number, piece in enumerate(text[i:i + size] for i in range(0, len(text), size)):
        out.append(guard.feed(piece))
        if guard.ended and ended_at is None:
            ended_at = number
    out.append(guard.flush())
    return "".join(out), ended_at, guard.echoed


def test_every_tag_the_narration_prompt_uses_ends_the_reply() -> None:
    """The tags are read from the prompt itself: a block added to it later must be added to the cut too."""
    items = [Item(section, "Edda Marsh" if section in ("mind", "knowledge") else "", "text")
             for section in ("scene", "npc", "mind", "knowledge", "thread")]
    prompt = render_block(items) + narrate_system(tiny_world())
    used = set(re.findall(r"<([a-z-]+)>", prompt))
    assert used == set(PROMPT_TAGS)
    for tag in used:
        assert _told(f"The bell tolls.<{tag}>\nmore", 3, [])[:3:2] == ("The bell tolls.", True)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(PROSE, st.sampled_from(TAGS), st.sampled_from(["<|im_end|>", "<s>", "</mind>"])),
                max_size=10), KEYS, st.integers(min_value=1, max_value=64))
def test_a_tag_split_across_chunks_is_cut_whatever_the_chunk_size(parts: list[str], key: str, size: int) -> None:
    text = "".join(parts)
    secrets = [key] if len(key) > 1 else []
    told, ended_at, _ = _told(text, size, secrets)
    assert told == mask_secrets(until_end(text)[0], secrets)
    assert not any(tag in told for tag in TAGS)
    end = END_OF_TURN.search(text)
    if end is None:
        assert ended_at is None
    else:
        # Known as soon as the piece completing the tag arrives, so the caller stops reading there.
        assert ended_at == (end.end() - 1) // size


def test_angle_brackets_in_prose_are_never_cut() -> None:
    for size in range(1, 65):
        assert _told(ANGLED, size, [KEYED]) == (ANGLED, None, False)


# ------------------------------------------------------------------------------------------ against the server


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


async def test_the_narration_stops_at_the_echo_and_replays_the_same_from_its_recording(
        tmp_path: Path, server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    reply = "The bell tolls twice." + ECHO
    server.push(Text(reply, chunk_size=9, pause=0.2), Text(ANGLED, chunk_size=5))
    record = tmp_path / "echo.jsonl"
    live = OpenAINarrator(llm_settings(server.base_url, max_tool_rounds=0), world, env={}, record=record)
    try:
        told = await collect(live.narrate(request(world, graph, "ring the bell")))
        angled = await collect(live.narrate(request(world, graph, "read the sign", turn=2)))
    finally:
        await live.aclose()
    assert told.strip() == "The bell tolls twice."
    assert angled == ANGLED
    stream = server.streams[0]
    assert stream.over.wait(5) and stream.disconnected
    cut = (reply.index("<turn-context>") + len("<turn-context>") - 1) // 9
    assert stream.planned > cut + 20 and cut + 1 <= stream.sent <= cut + 2
    lines = [json.loads(text) for text in record.read_text(encoding="utf-8").splitlines()[1:]]
    assert lines[0]["ended"] == "end-of-turn"
    recorded = ["".join(choice["delta"].get("content") or "" for chunk in line["chunks"]
                        for choice in chunk.get("choices", [])) for line in lines]
    assert "<turn-context>" not in recorded[0] and recorded[0].strip() == told.strip() and recorded[1] == ANGLED
    replay = OpenAINarrator(LLMSettings(max_tool_rounds=0), world, replay=record)
    try:
        assert await collect(replay.narrate(request(world, graph, "ring the bell"))) == told
        assert await collect(replay.narrate(request(world, graph, "read the sign", turn=2))) == ANGLED
    finally:
        await replay.aclose()


async def test_a_reply_of_nothing_but_the_echo_says_so_once_plainly(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text(ECHO.lstrip(), chunk_size=7, pause=0.05), Text(ECHO, chunk_size=7, pause=0.05))
    teller = OpenAINarrator(llm_settings(server.base_url, max_tool_rounds=0), world, env={})
    said = []
    try:
        for turn in (1, 2):
            with pytest.raises(CannotNarrate) as failure:
                await collect(teller.narrate(request(world, graph, "wait", turn=turn)))
            said.append(failure.value.message)
    finally:
        await teller.aclose()
    assert said == [ECHOED, ECHOED_AGAIN]
    assert "try again" not in ECHOED.lower() and "base model" in ECHOED
    assert all(stream.over.wait(5) and stream.disconnected and stream.sent < 5 for stream in server.streams)


def test_a_recorded_game_keeps_no_echo_in_the_story_the_memory_or_the_save(
        tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Whole replies too: the World IR and the extractor's reply are read up to the echoed tag."""
    monkeypatch.setenv("OPENAI_API_KEY", KEYED)
    server.require_key = KEYED
    server.push(
        Text("You hold the wick straight while Edda ties it off. She grunts, which is thanks." + ECHO,
             chunk_size=9),
        Text(json.dumps(ir(charactersPresent=["Sam Reed", "Edda Marsh"],
                           entities=[character("Edda Marsh", "The old keeper of the light.")],
                           relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6,
                                               "Edda Marsh trusts Sam Reed since Sam held her wick.")],
                           nextCast=["Edda Marsh"])) + ECHO),
        ToolCalls([("upsert_npc_graph", {"edges": [edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6,
                                                        "Edda Marsh trusts Sam Reed since Sam held her wick.")]})],
                  content="Done." + ECHO),
    )
    code, record = run_recorded(tmp_path, server.base_url, "echo", ["transcript on", "help Edda with the wick"])
    story = capsys.readouterr().out
    assert code == 0, story
    assert "She grunts, which is thanks." in story
    saved = b"".join(path.read_bytes() for path in (tmp_path / "saves").glob("echo.sqlite*"))
    assert b"Sam held her wick" in saved  # the World IR was read up to the echo, not thrown away
    transcript = (tmp_path / "saves" / "echo.transcript.txt").read_text(encoding="utf-8")
    recorded = record.read_text(encoding="utf-8")
    for where, text in (("story", story), ("transcript", transcript), ("recording", recorded)):
        for tag in TAGS:
            assert tag not in text, (where, tag)
    assert not any(tag.encode() in saved for tag in TAGS)
