"""Record and replay: a session against the test server is stored as JSONL and played back with no
network, as a narrator and as a headless script with ``{graph}`` checks; a changed request is a clear
error; the key never reaches a recording."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Failure, Text, ToolCalls
from llm_helpers import (
    KEY,
    WORLDS,
    character,
    edge,
    ir,
    llm_settings,
    relation,
    seeded_graph,
    tiny_world,
)

from game.__main__ import main
from game.config import LLMSettings, Settings
from game.engine.session import GameSession
from game.errors import ConfigError, InputError
from game.narrator.base import NarrationRequest
from game.narrator.factory import make_narrator
from game.narrator.llm.narrator import OpenAINarrator
from game.narrator.llm.record import ReplayTransport

TRUST = edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed since Sam steadied her wick.")
FEAR = edge("Tobin Hale", "Sam Reed", "DISTRUSTS", -0.5, "Tobin Hale distrusts Sam Reed, who asked about the post.")
TURNS = [
    ("help Edda with the wick", [
        ToolCalls([("get_character", {"name": "Edda"})], fragment_size=4),
        Text("You steady the wick while Edda ties it. She grunts, which is thanks."),
        Text(json.dumps(ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
                           relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, TRUST["fact"])],
                           nextCast=["Edda Marsh"]))),
        ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]),
    ]),
    ("ask Tobin about the post", [
        Text("Tobin reddens. \"Someone has to keep it when she can't.\" He does not look at you again."),
        Text("```json\n" + json.dumps(ir(
            charactersPresent=["Sam Reed", "Tobin Hale"], entities=[character("Tobin Hale")],
            relations=[relation("Tobin Hale", "Sam Reed", "DISTRUSTS", -0.5, FEAR["fact"])],
            nextCast=["Tobin Hale"], location="The Lamp Room")) + "\n```"),
        ToolCalls([("upsert_npc_graph", {"edges": [dict(FEAR, relation="MISTRUSTS")]})]),
    ]),
]
SCRIPT = """\
** world: tiny
** narrator: replay:session.jsonl
* replayed-playthrough
> help Edda with the wick
You steady the wick
{graph} Edda Marsh -> Sam Reed: TRUSTS sign=+
{graph} !Tobin Hale -> Sam Reed: DISTRUSTS
> ask Tobin about the post
Tobin reddens
{graph} Tobin Hale -> Sam Reed: DISTRUSTS sign=-
{state} location = lamp
"""


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


async def _record(tmp_path: Path, server: ChatServer, record: Path, env: dict[str, str] | None = None,
                  *, full: bool = False) -> list[str]:
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "recorded",
                        # A loaded machine (the suite runs on every core) can take more than the helpers' 2 s
                        # for a reply: a timed-out turn would record exchanges its replay never asks for.
                        llm=llm_settings(server.base_url, record_full=full, timeout=20.0))
    teller = OpenAINarrator(settings.llm, tiny_world(), env=env or {}, record=record)
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    stories = []
    for text, replies in TURNS:
        server.push(*replies)
        stories.append("".join([getattr(e, "text", "") async for e in session.play_turn(text)
                                if type(e).__name__ == "NarrationDone"]))
    await session.close()
    return stories


async def test_a_recorded_session_replays_with_no_server(tmp_path: Path, server: ChatServer) -> None:
    record = tmp_path / "session.jsonl"
    told = await _record(tmp_path, server, record)
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["format"] == "kith-llm-recording"
    assert [line["step"] for line in lines[1:]] == ["narrate", "narrate", "world-ir", "extract",
                                                    "narrate", "world-ir", "extract"]
    server.close()  # from here on, any request would fail

    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "replayed")
    teller = make_narrator(settings, tiny_world(), replay=record)
    assert "replay of session.jsonl" in teller.label
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    replayed = []
    for text, _ in TURNS:
        replayed.append("".join([getattr(e, "text", "") async for e in session.play_turn(text)
                                 if type(e).__name__ == "NarrationDone"]))
    assert replayed == told
    names = {n.id: n.name for n in session.graph.nodes.values()}
    relations = {(names[e.source], names[e.target], e.relation) for e in session.graph.open_edges.values()}
    assert {("Edda Marsh", "Sam Reed", "TRUSTS"), ("Tobin Hale", "Sam Reed", "DISTRUSTS")} <= relations
    assert session.scene.location == "lamp"
    await session.close()


def test_a_replayed_playthrough_is_a_script_with_graph_checks(
        tmp_path: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(_record(tmp_path, server, tmp_path / "session.jsonl"))
    server.close()
    script = tmp_path / "llm.regtest"
    script.write_text(SCRIPT, encoding="utf-8")
    capsys.readouterr()
    code = main(["--content-dir", str(WORLDS), "run", str(script)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1 passed, 0 failed" in out

    # A script that asks something else than was recorded fails, saying what changed.
    script.write_text(SCRIPT.replace("> ask Tobin about the post", "> ask Tobin about the lamp"), encoding="utf-8")
    code = main(["--content-dir", str(WORLDS), "run", str(script)])
    out = capsys.readouterr().out
    assert code == 1
    assert "recorded for a different request" in out and "ask Tobin about the post" in out


async def test_replay_refuses_a_different_request_and_an_exhausted_recording(tmp_path: Path,
                                                                            server: ChatServer) -> None:
    record = tmp_path / "session.jsonl"
    await _record(tmp_path, server, record)
    replay = ReplayTransport(record)
    assert len(replay.exchanges) == 7
    world = tiny_world()
    teller = OpenAINarrator(LLMSettings(), world, replay=record)
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "other")
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    failed = [e async for e in session.play_turn("threaten Edda") if type(e).__name__ == "TurnFailed"]
    assert failed and "exchange 1 was recorded for a different request" in failed[0].message
    await session.close()

    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(record.read_text(encoding="utf-8").splitlines()[:2]) + "\n", encoding="utf-8")
    teller = OpenAINarrator(LLMSettings(), world, replay=short)
    session = await GameSession.open(settings, save="game2", new=True, world="tiny", narrator=teller)
    failed = [e async for e in session.play_turn("help Edda with the wick") if type(e).__name__ == "TurnFailed"]
    assert failed and "holds only 1 exchanges" in failed[0].message
    await session.close()


async def test_a_recorded_failure_replays_as_the_same_failure(tmp_path: Path, server: ChatServer) -> None:
    record = tmp_path / "failure.jsonl"
    world = tiny_world()
    teller = OpenAINarrator(llm_settings(server.base_url), world, env={}, record=record)
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "a")
    server.push(Failure(503, "overloaded"))
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=teller)
    first = [e.message async for e in session.play_turn("look") if type(e).__name__ == "TurnFailed"]
    await session.close()
    teller = OpenAINarrator(LLMSettings(), world, replay=record)
    session = await GameSession.open(settings.model_copy(update={"saves_dir": tmp_path / "b"}), save="game",
                                     new=True, world="tiny", narrator=teller)
    second = [e.message async for e in session.play_turn("look") if type(e).__name__ == "TurnFailed"]
    await session.close()
    assert first == second and "HTTP 503" in first[0]


async def test_the_key_never_reaches_a_recording(tmp_path: Path, server: ChatServer) -> None:
    record = tmp_path / "keyed.jsonl"
    server.require_key = KEY
    await _record(tmp_path, server, record, env={"OPENAI_API_KEY": KEY})
    assert server.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"
    text = record.read_text(encoding="utf-8")
    assert KEY not in text and KEY[-8:] not in text
    save = (tmp_path / "recorded" / "game.sqlite").read_bytes()
    assert KEY.encode() not in save


def test_files_that_are_not_recordings_are_refused(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(InputError, match="No recording"):
        ReplayTransport(missing)
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match="not a Kith model recording"):
        ReplayTransport(other)
    other.write_text("not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1: not JSON"):
        ReplayTransport(other)


def test_the_factory_chooses_offline_unless_an_endpoint_or_recording_says_otherwise(tmp_path: Path) -> None:
    world = tiny_world()
    offline = Settings(world="tiny", content_dir=WORLDS)
    assert make_narrator(offline, world).label == "offline narrator"
    online = offline.model_copy(update={"llm": LLMSettings(base_url="http://localhost:11434/v1", model="llama3.2")})
    assert make_narrator(online, world).label == "llama3.2 @ localhost:11434"
    forced = offline.model_copy(update={"llm": online.llm, "narrator": "offline"})
    assert make_narrator(forced, world).label == "offline narrator"
    with pytest.raises(ConfigError, match="--record"):
        make_narrator(offline, world, record=tmp_path / "x.jsonl")


def test_kith_play_records_through_the_flags(tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "kith.toml"
    config.write_text("", encoding="utf-8")
    record = tmp_path / "played.jsonl"
    text, replies = TURNS[0]
    server.push(*replies)
    monkeypatch.setattr("sys.stdin", io.StringIO(text + "\n"))
    code = main(["--config", str(config), "--content-dir", str(WORLDS), "--saves-dir", str(tmp_path / "saves"),
                 "play", "--plain", "--new", "--save", "recorded", "--world", "tiny",
                 "--base-url", server.base_url, "--model", "test-model", "--record", str(record)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "You steady the wick" in out and f"test-model @ 127.0.0.1:{server.port}" in out
    steps = [json.loads(line).get("step") for line in record.read_text(encoding="utf-8").splitlines()[1:]]
    assert steps == ["narrate", "narrate", "world-ir", "extract"]


async def test_a_recording_keeps_the_story_word_for_word_and_drops_only_the_key(tmp_path: Path,
                                                                               server: ChatServer) -> None:
    # Words that look like credentials ("bearer", "api key:") are prose here; only the real key is a secret,
    # masked in what the player sees (and so in the save) as in the recording.
    told = (f"The standard-bearer of Vell nods. Her api key: brass, she says; the key {KEY} is hers. "
            "He is the bearer ")
    record = tmp_path / "prose.jsonl"
    world = tiny_world()
    server.push(Text(told, chunk_size=len(told)))
    teller = OpenAINarrator(llm_settings(server.base_url), world, env={"OPENAI_API_KEY": KEY}, record=record)
    graph = await seeded_graph(world)
    req = NarrationRequest(turn=1, player_input="look", npc_context="", scene=world.initial_scene(), graph=graph)
    assert "".join([piece async for piece in teller.narrate(req)]) == told.replace(KEY, "***")
    await teller.aclose()
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]  # every line is JSON
    recorded = "".join(choice["delta"].get("content") or "" for chunk in lines[1]["chunks"]
                       for choice in chunk["choices"])
    assert recorded == told.replace(KEY, "***")
    assert KEY not in record.read_text(encoding="utf-8")


def _lines(record: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()[1:]]


async def test_a_recording_says_which_requests_streamed(tmp_path: Path, server: ChatServer) -> None:
    record = tmp_path / "session.jsonl"
    await _record(tmp_path, server, record)
    streamed = [(line["step"], line["request"]["stream"]) for line in _lines(record)]  # type: ignore[index]
    assert ("narrate", True) in streamed
    # What the server saw, request by request, is what the recording says.
    assert [flag for _, flag in streamed] == [bool(r.body.get("stream")) for r in server.chat_requests]
    assert "body" not in _lines(record)[0]  # a plain recording keeps summaries only


async def test_a_full_recording_keeps_the_bodies_with_the_key_masked(tmp_path: Path, server: ChatServer) -> None:
    record = tmp_path / "full.jsonl"
    server.require_key = KEY
    await _record(tmp_path, server, record, env={"OPENAI_API_KEY": KEY}, full=True)
    lines = _lines(record)
    sent = server.chat_requests
    assert len(lines) == len(sent)
    for line, request in zip(lines, sent, strict=True):
        body = line["body"]
        assert isinstance(body, dict)
        assert body["messages"] == request.body["messages"]  # the whole prompt, to read what was asked
        assert body.get("max_tokens") == request.body.get("max_tokens")
    told = lines[1]
    assert "You steady the wick" in str(told["reply"])  # the streamed reply assembled, to read what came back
    assert KEY not in record.read_text(encoding="utf-8")
    # A full recording replays as a plain one does.
    replayed = ReplayTransport(record)
    assert len(replayed.exchanges) == len(lines)


def test_kith_play_records_full_bodies_through_the_flag(tmp_path: Path, server: ChatServer,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "kith.toml"
    config.write_text("", encoding="utf-8")
    record = tmp_path / "played.jsonl"
    text, replies = TURNS[0]
    server.push(*replies)
    monkeypatch.setattr("sys.stdin", io.StringIO(text + "\n"))
    flags = ["--config", str(config), "--content-dir", str(WORLDS), "--saves-dir", str(tmp_path / "saves"),
             "play", "--plain", "--new", "--save", "recorded", "--world", "tiny",
             "--base-url", server.base_url, "--model", "test-model"]
    code = main([*flags, "--record", str(record), "--record-full"])
    assert code == 0, capsys.readouterr().out
    assert all("messages" in line["body"] for line in _lines(record))  # type: ignore[operator]
    # --record-full alone has nowhere to write: one clear message, nothing played.
    code = main([*flags, "--record-full"])
    captured = capsys.readouterr()
    assert code != 0 and "--record" in captured.err + captured.out
