"""A base model with no chat template (issue 25): ``kith doctor`` says so in one plain sentence with what to
use instead, and the game's first failed turn on such a model says the same, once, never "try again".

The shapes are llama-server's with a tiny base model (gemma3-270m, no template): ``/props`` shows the
server's built-in ChatML template beside the model's own ``<eos>``, and every reply runs to the length limit
writing ChatML's markers as text, often beginning with ``<|im_end|>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Endless, Text
from helpers.play import collect as play
from llm_helpers import WORLDS, llm_settings

from game.__main__ import main
from game.config import Settings
from game.engine.events import Notice, TurnCommitted, TurnFailed
from game.engine.session import GameSession
from game.narrator.llm.base_model import BASE_MODEL, props_without_template
from game.narrator.llm.narrator import OpenAINarrator
from game.world import load_world

CHATML_FALLBACK = ("{%- for message in messages -%}\n  {{- '<|im_start|>' + message.role + '\\n' + message.content + "
                   "'<|im_end|>\\n' -}}\n{%- endfor -%}\n{%- if add_generation_prompt -%}\n  {{- '<|im_start|>"
                   "assistant\\n' -}}\n{%- endif -%}")
"""What llama-server reports as the chat template of a model that has none."""
DOCS = Path(__file__).resolve().parent.parent / "docs" / "llm.md"
BASE_PROPS = {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1, "chat_template": CHATML_FALLBACK,
              "chat_template_caps": {"supports_tools": False, "supports_tool_calls": False},
              "bos_token": "<bos>", "eos_token": "<eos>"}
ECHO = "Reply with the single word: ready<|im_end|>\n<|im_start|>user\nReply with the single word"
"""The base model's answer to the doctor's first probe: the prompt again, then the template's markers."""


@pytest.fixture
def config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR", "KITH_CONFIG", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    empty = tmp_path / "kith.toml"
    empty.write_text("", encoding="utf-8")
    return empty


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def _doctor(capsys: pytest.CaptureFixture[str], config: Path, server: ChatServer) -> tuple[int, str]:
    code = main(["--config", str(config), "doctor", "--base-url", server.base_url, "--model", "gemma"])
    return code, capsys.readouterr().out


def test_props_tell_a_model_without_a_template_from_one_with_its_own() -> None:
    assert props_without_template(BASE_PROPS)
    assert props_without_template({**BASE_PROPS, "chat_template": ""})
    qwen = "{%- if tools %}{{- '<|im_start|>system\\n' }}{%- endif %}" + CHATML_FALLBACK
    assert not props_without_template({**BASE_PROPS, "chat_template": qwen, "eos_token": "<|im_end|>"})
    assert not props_without_template({**BASE_PROPS, "eos_token": "<|im_end|>"})  # a ChatML model of its own
    assert not props_without_template({"default_generation_settings": {"n_ctx": 8192}})  # says nothing


def test_doctor_says_a_base_model_cannot_narrate_from_its_props(
        config: Path, capsys: pytest.CaptureFixture[str], server: ChatServer) -> None:
    server.props = BASE_PROPS
    server.push(Text("ready"), Text("one, two, three", chunk_size=4))
    code, out = _doctor(capsys, config, server)
    assert code == 1
    assert f"✗ chat template: {BASE_MODEL}" in out
    assert "instruction-tuned chat model" in out
    # Nothing else is probed: each of a base model's replies runs to its length limit, to no purpose.
    assert len(server.chat_requests) == 2


def test_the_documented_base_model_report_is_what_doctor_prints(
        config: Path, capsys: pytest.CaptureFixture[str], server: ChatServer) -> None:
    server.props = BASE_PROPS
    server.push(Text(ECHO, finish_reason="length"), Text("<|im_end|>\n<|im_start|>user\n", chunk_size=6))
    code = main(["--config", str(config), "doctor", "--base-url", server.base_url, "--model", "gemma3-270m"])
    out = re.sub(r"answered in \d+\.\d s", "answered in 0.1 s", capsys.readouterr().out).replace(
        server.base_url, "http://localhost:8089/v1")
    blocks = re.findall(r"```text\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    documented = next(block for block in blocks if "--model gemma3-270m" in block).split("\n", 1)[1]
    assert code == 1
    assert out.split("\nFolders\n", 1)[0] == documented


def test_doctor_says_a_base_model_cannot_narrate_from_its_replies(
        config: Path, capsys: pytest.CaptureFixture[str], server: ChatServer) -> None:
    made_up = "<|im_end|>\n<|im_start|>user\nCount from one to five in words.<|im_end|>\n" * 10
    server.push(Text(ECHO, finish_reason="length"), Text(made_up, chunk_size=6, pause=0.05))
    code, out = _doctor(capsys, config, server)
    assert code == 1
    assert f"✗ chat template: {BASE_MODEL}" in out
    assert re.search(r"Narration does not work", out)
    # The streamed probe was closed at the marker it began with.
    [stream] = server.streams
    assert stream.over.wait(5) and stream.sent <= 3


def test_doctor_says_nothing_of_the_kind_for_a_chat_model(
        config: Path, capsys: pytest.CaptureFixture[str], server: ChatServer) -> None:
    server.props = {**BASE_PROPS, "eos_token": "<|im_end|>"}
    server.push(Text("ready"), Text("one, two, three", chunk_size=4), Text("no tools"), Text("no tools"),
                Text('{"colour": "red", "count": 3}'))
    code, out = _doctor(capsys, config, server)
    assert code == 0 and "chat template" not in out


async def test_the_first_failed_turn_on_a_base_model_says_what_to_use_instead_once(
        tmp_path: Path, server: ChatServer) -> None:
    server.push(*[Endless(start="<|im_end|>\n<|im_start|>user\n", word="What now? ", pause=0.1) for _ in range(2)])
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, max_tool_rounds=0))
    teller = OpenAINarrator(settings.llm, load_world(WORLDS, "tiny"), env={})
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    try:
        first = [e for e in await play(session, "look") if isinstance(e, TurnFailed)]
        second = [e for e in await play(session, "wait") if isinstance(e, TurnFailed)]
        assert session.turn == 0
    finally:
        await session.close()
    assert [e.message for e in first] == [f"{BASE_MODEL} Nothing of this turn was saved."]
    [again] = second
    assert BASE_MODEL not in again.message and "base model" in again.message
    assert "try again" not in again.message.replace("trying again will not help", "")
    # Each reply was closed at the marker it began with, not read to its 700-token limit.
    assert all(s.over.wait(5) and s.sent <= 2 and s.asked and s.asked >= 256 for s in server.streams)


async def test_a_base_model_that_echoes_the_command_before_its_marker_is_named_once(
        tmp_path: Path, server: ChatServer) -> None:
    """What the real llama-server check showed: gemma3-270m's narration is often the player's own command and
    then ``<|im_end|>``. That is not a failed turn (it has text), so the player must be told otherwise."""
    facts = '{"charactersPresent": [], "entities": [], "relations": [], "endedRelations": [], "nextCast": []}'
    for command in ("talk to the miller", "go north"):
        server.push(Text(f"{command}<|im_end|>\n<|im_start|>user\nWhat now?<|im_end|>", chunk_size=6), Text(facts))
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, max_tool_rounds=0))
    teller = OpenAINarrator(settings.llm, load_world(WORLDS, "tiny"), env={})
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    try:
        turns = [await play(session, command) for command in ("talk to the miller", "go north")]
    finally:
        await session.close()
    said = [[e.text for e in events if isinstance(e, Notice) and BASE_MODEL in e.text] for events in turns]
    assert said == [[BASE_MODEL], []]
    assert all(any(isinstance(e, TurnCommitted) for e in events) for events in turns)


async def test_a_chat_model_is_never_called_a_base_model(tmp_path: Path, server: ChatServer) -> None:
    facts = '{"charactersPresent": [], "entities": [], "relations": [], "endedRelations": [], "nextCast": []}'
    server.push(Text("The wind hums in the glass."), Text(facts))
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, max_tool_rounds=0))
    teller = OpenAINarrator(settings.llm, load_world(WORLDS, "tiny"), env={})
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    try:
        events = await play(session, "wait")
    finally:
        await session.close()
    assert not [e for e in events if isinstance(e, Notice) and "base model" in e.text]
