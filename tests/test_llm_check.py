"""``kith llm check`` is ``kith doctor`` under a second name: the same probe, the same
report and the same exit status, against the local test server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from chat_server import ChatServer, Dropped, Endless, Text, ToolCalls

from game.__main__ import main

ENVIRONMENT = ("OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR", "KITH_CONFIG", "OPENAI_API_KEY")


def _probe_replies() -> list[object]:
    """A server that streams and calls tools but writes its JSON in fences (one repair)."""
    return [Text("ready"), Text("one, two, three, four, five", chunk_size=4),
            ToolCalls([("ping", {"word": "hello"})]), ToolCalls([("ping", {"word": "hello"})]),
            Text('```json\n{"colour": "red", "count": 3}\n```')]


def _report(capsys: pytest.CaptureFixture[str], config: Path, *words: str) -> tuple[int, str]:
    code = main(["--config", str(config), *words])
    # The only part of the report that may differ between two probes is how long the first answer took.
    return code, re.sub(r"answered in \d+\.\d s", "answered in N s", capsys.readouterr().out)


@pytest.fixture
def config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    empty = tmp_path / "kith.toml"
    empty.write_text("", encoding="utf-8")
    return empty


def test_llm_check_reports_what_doctor_reports(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer() as server:
        flags = ["--base-url", server.base_url, "--model", "small"]
        server.push(*_probe_replies())
        doctor = _report(capsys, config, "doctor", *flags)
        asked_by_doctor = [r.body for r in server.chat_requests]
        server.received.clear()
        server.push(*_probe_replies())
        check = _report(capsys, config, "llm", "check", *flags)
        asked_by_check = [r.body for r in server.chat_requests]
    assert check == doctor
    assert doctor[0] == 0
    assert "✓ tools" in doctor[1] and "Narration works" in doctor[1]
    assert asked_by_check == asked_by_doctor  # the same probe, request for request


def test_llm_check_fails_as_doctor_does(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Nothing configured: both explain the offline default and exit 1.
    assert _report(capsys, config, "llm", "check") == _report(capsys, config, "doctor")
    code, out = _report(capsys, config, "llm", "check")
    assert code == 1 and "offline narrator" in out


def test_llm_needs_a_subcommand(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--config", str(config), "llm"])
    assert stopped.value.code == 2
    assert "the following arguments are required: SUBCOMMAND" in capsys.readouterr().err


def _doctor(capsys: pytest.CaptureFixture[str], config: Path, server: ChatServer) -> tuple[int, str]:
    return _report(capsys, config, "doctor", "--base-url", server.base_url, "--model", "small")


def test_doctor_sends_the_games_request_shapes(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A server that refuses stream_options or a bounded reply must be found by the doctor, not by turn one.
    with ChatServer() as server:
        server.push(*_probe_replies())
        code, _ = _doctor(capsys, config, server)
        asked = server.chat_requests
    assert code == 0
    assert all(isinstance(r.body.get("max_tokens"), int) for r in asked)
    streamed = [r.body for r in asked if r.body.get("stream")]
    assert streamed and streamed[0]["stream_options"] == {"include_usage": True}
    assert any(r.tool_names == ["ping"] for r in asked)


def test_doctor_retries_a_dropped_connection_before_judging_tools(
        config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replies = _probe_replies()
    with ChatServer() as server:
        # Both the transport's own retry and the doctor's meet a dropped connection; the third try answers.
        server.push(*replies[:2], Dropped(), Dropped(), *replies[2:])
        code, out = _doctor(capsys, config, server)
    assert code == 0
    assert "✓ tools" in out and "refuses tools" not in out


def test_doctor_does_not_call_a_lost_connection_a_refusal(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replies = _probe_replies()
    with ChatServer() as server:
        server.push(*replies[:2], Dropped(), Dropped(), Dropped(), Dropped(), *replies[3:])
        _, out = _doctor(capsys, config, server)
    assert "✗ tools" in out and "refuses tools" not in out
    assert "connection" in out.split("✗ tools", 1)[1].splitlines()[0]


def test_doctor_reports_a_reply_cut_by_length(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replies = _probe_replies()
    with ChatServer() as server:
        server.push(replies[0], Endless(), *replies[2:])  # a model that never stops by itself
        code, out = _doctor(capsys, config, server)
    assert code == 0
    assert "✗ length:" in out and "max_tokens" in out


def test_doctor_reads_llama_cpp_props_and_recommends_settings(
        config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer() as server:
        server.props = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1,
                        "chat_template_caps": {"supports_tools": False, "supports_tool_calls": False}}
        server.refuse_tools = (500, "tools param requires --jinja flag")
        server.push(Text("ready"), Text("one, two, three", chunk_size=4), Text('{"colour": "red", "count": 3}'))
        code, out = _doctor(capsys, config, server)
    assert code == 0
    assert "context size 4096" in out
    recommended = out.split("Recommended settings", 1)[1]
    assert "tools = false" in recommended and "context_size = 4096" in recommended
    # Tools refused, the game keeps memory from each turn's World IR by itself: the plan must not say
    # graph updates will fail (nor ask for a setting the recommendations leave out).
    assert "graph updates will fail" not in out and "relations are recorded from each turn's World IR" in out


def test_doctor_without_props_recommends_nothing_it_cannot_know(
        config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer() as server:
        server.push(*_probe_replies())
        code, out = _doctor(capsys, config, server)
    assert code == 0
    assert "context_size =" not in out and "tools = false" not in out
    assert "The default settings suit this endpoint" in out
