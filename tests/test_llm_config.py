"""Endpoint settings (flags > environment > kith.toml > defaults), the worked example of docs/llm.md, and
``kith doctor`` against capable, quirky and absent servers (its documented example included)."""

from __future__ import annotations

import argparse
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Text, ToolCalls

from game.__main__ import main
from game.cli.doctor import llm_flag_arguments, llm_settings_flags
from game.config import load_settings
from game.errors import ConfigError

DOCS = Path(__file__).resolve().parent.parent / "docs" / "llm.md"
ENVIRONMENT = ("OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR", "KITH_CONFIG", "OPENAI_API_KEY")


def _block(language: str, containing: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    return next(block for block in blocks if containing in block)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No endpoint variables from the machine running the tests, and an empty settings file."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    return empty


def _flags(*argv: str) -> dict[str, object]:
    parser = argparse.ArgumentParser()
    llm_flag_arguments(parser)
    return llm_settings_flags(parser.parse_args(list(argv)))


def test_the_documented_kith_toml_loads(tmp_path: Path) -> None:
    path = tmp_path / "kith.toml"
    path.write_text(_block("toml", "[llm]"), encoding="utf-8")
    settings = load_settings(env={}, config_file=path)
    llm = settings.llm
    assert settings.uses_llm
    assert (llm.base_url, llm.model) == ("http://localhost:11434/v1", "qwen2.5:7b-instruct")
    assert llm.narration_model == "qwen2.5:14b-instruct" and llm.extraction_model == "qwen2.5:3b-instruct"
    assert (llm.temperature, llm.context_size, llm.timeout, llm.retries, llm.max_tool_rounds) == (
        0.7, 16384, 90, 3, 3)
    # What the docs say about overriding it:
    flagged = load_settings(flags=_flags("--model", "llama3.1:8b"), env={}, config_file=path).llm
    assert flagged.model == "llama3.1:8b" and flagged.narration_model == "qwen2.5:14b-instruct"


def test_flags_beat_environment_beat_file_beat_defaults(tmp_path: Path) -> None:
    path = tmp_path / "kith.toml"
    path.write_text('[llm]\nbase_url = "http://file:1/v1"\nmodel = "from-file"\ntimeout = 90\n', encoding="utf-8")
    env = {"OPENAI_BASE_URL": "http://env:2/v1", "KITH_MODEL": "from-env"}
    settings = load_settings(flags=_flags("--model", "from-flag", "--api-key-env", "MY_KEY"), env=env,
                             config_file=path)
    assert settings.llm.base_url == "http://env:2/v1"
    assert settings.llm.model == "from-flag"
    assert settings.llm.api_key_env == "MY_KEY"
    assert settings.llm.timeout == 90 and settings.llm.retries == 2
    older = load_settings(env={"OPENAI_API_BASE": "http://old:3/v1"}, config_file=path)
    assert older.llm.base_url == "http://old:3/v1"


def test_nothing_configured_stays_offline(clean_env: Path) -> None:
    settings = load_settings(env={}, config_file=clean_env)
    assert not settings.uses_llm


def test_unusable_values_are_settings_errors(tmp_path: Path) -> None:
    path = tmp_path / "kith.toml"
    path.write_text('[llm]\nbase_url = "localhost:11434"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"llm\.base_url: must start with http:// or https://"):
        load_settings(env={}, config_file=path)
    with pytest.raises(ConfigError, match="api_key_env"):
        load_settings(flags=_flags("--api-key-env", "MY-KEY"), env={}, config_file=None)


def _doctor(capsys: pytest.CaptureFixture[str], config: Path, *args: str) -> tuple[int, str]:
    code = main(["--config", str(config), "doctor", *args])
    return code, capsys.readouterr().out


def test_doctor_on_a_capable_server(server: ChatServer, clean_env: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    server.push(Text("ready"), Text("one, two, three, four, five"), ToolCalls([("ping", {"word": "hello"})]),
                ToolCalls([("ping", {"word": "hello"})]), Text('{"colour": "red", "count": 3}'))
    code, out = _doctor(capsys, clean_env, "--base-url", server.base_url, "--model", "small")
    assert code == 0
    assert "✗" not in out
    for line in ("✓ reachable", "✓ streaming", "✓ tools", '✓ tool_choice: tool_choice "required" is honoured',
                 "✓ json_schema: json_schema works"):
        assert line in out
    assert "Narration works" in out and "the extractor records relations through tool calls" in out
    assert len(server.chat_requests) == 5


def test_doctor_matches_its_documented_example(server: ChatServer, clean_env: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    server.reject_response_formats = {"json_schema"}
    server.push(Text("ready"), Text("one, two, three, four, five", chunk_size=3),
                Text('<tool_call>{"name": "ping", "arguments": {"word": "hello"}}</tool_call>'),
                Text("Hello!"), Text('```json\n{"colour": "red", "count": 3}\n```'))
    code, out = _doctor(capsys, clean_env, "--base-url", server.base_url, "--model", "qwen2.5-7b")
    assert code == 0
    shown = re.sub(r"answered in \d+\.\d s", "answered in 0.4 s", out).replace(
        server.base_url, "http://localhost:8080/v1")
    documented = _block("text", "kith doctor").split("\n", 1)[1]
    # The report ends with Kith's folders (machine-specific paths, tested in test_install.py).
    report, folders = shown.split("\nFolders\n", 1)
    assert report == documented
    assert folders.startswith("  shipped worlds  ")


def test_doctor_fails_when_narration_cannot_work(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, out = _doctor(capsys, clean_env, "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m")
    assert code == 1
    assert "✗ reachable: Cannot reach the model server" in out and "connection was refused" in out
    assert "Narration does not work" in out


def test_doctor_without_an_endpoint_explains_the_offline_default(clean_env: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _doctor(capsys, clean_env)
    assert code == 1 and "offline narrator" in out and "--base-url" in out


def test_doctor_picks_the_servers_model_when_none_is_set(server: ChatServer, clean_env: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    server.push(Text("ready"), Text("one two"), Text("no tools"), Text("hi"), Text('{"colour": "red", "count": 1}'))
    code, out = _doctor(capsys, clean_env, "--base-url", server.base_url)
    assert code == 0 and "Model     test-model" in out
    assert "✗ tools: the model ignored the tools" in out


def test_the_documented_worst_case_turn_time_is_the_arithmetic_of_the_defaults() -> None:
    """docs/llm.md states how long a turn can take with the defaults; it must follow the defaults (change a
    deadline or the timeout and this fails until the sentence is changed too), and stay near three minutes."""
    from game.config import LLMSettings
    from game.narrator.llm.budget import REPLY_DEADLINE_TIMEOUTS, worst_case_turn_seconds

    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    stated = re.search(r"A turn takes at most (\d+) s with the defaults", text)
    assert stated is not None
    defaults = LLMSettings()
    assert float(stated.group(1)) == worst_case_turn_seconds(defaults)
    assert worst_case_turn_seconds(defaults) == REPLY_DEADLINE_TIMEOUTS * defaults.timeout + defaults.memory_deadline
    assert f"{REPLY_DEADLINE_TIMEOUTS} × `timeout` = {REPLY_DEADLINE_TIMEOUTS * defaults.timeout:g} s" in text
    assert f"`memory_deadline` = {defaults.memory_deadline:g} s" in text
    assert worst_case_turn_seconds(defaults) <= 180
