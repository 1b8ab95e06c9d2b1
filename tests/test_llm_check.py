"""``kith llm check`` is ``kith doctor`` under a second name: the same probe, the same
report and the same exit status, against the local test server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from chat_server import ChatServer, Text, ToolCalls

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
