"""Escape sequences from a server or a typed line never reach the terminal (issue 21): ``kith doctor``
printed a server's model id raw (an OSC that retitles the window, a CSI that clears the screen), and
``--plain`` and ``run --transcript`` echoed the input line as it was. They are shown as escapes instead,
so what the server or the file really holds can still be read.

Case counts: 6 hostile sequences x (model id, server error text) through ``kith doctor``; 6 x a piped
``--plain`` line; 6 x a ``run --transcript`` command file; 1 ``kith:`` error line quoting a file name.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Failure, Text, ToolCalls

from game.__main__ import main
from game.cli.play import LineMode
from game.config import load_settings

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
ENVIRONMENT = ("OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR", "KITH_CONFIG", "OPENAI_API_KEY")
HOSTILE = {
    "title": ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
    "clear": ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),
    "clipboard": ("\x1b]52;c;cm0gLXJmIH4=\x1b\\", "\\x1b]52;c;cm0gLXJmIH4=\\x1b\\"),
    "c1-csi": ("\x9b2J", "\\x9b2J"),
    "bidi": ("\u202eevil", "\\u202eevil"),
    "bell": ("\x07\x08", "\\x07\\x08"),
}
CONTROL = [chr(code) for code in (*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0), 0x202e)]


def _no_control(out: str) -> None:
    found = [char for char in CONTROL if char in out]
    assert not found, f"control characters reached the terminal: {found!r}"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    return empty


def _kith(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("hostile", HOSTILE, ids=list(HOSTILE))
def test_doctor_shows_a_servers_model_id_escaped(hostile: str, server: ChatServer, clean_env: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    raw, escaped = HOSTILE[hostile]
    server.model = f"model{raw}"
    server.push(Text(f"ready{raw}"), Text("one, two, three, four, five"), ToolCalls([("ping", {"word": "hello"})]),
                ToolCalls([("ping", {"word": "hello"})]), Text('{"colour": "red", "count": 3}'))
    code, out = _kith(capsys, "--config", str(clean_env), "doctor", "--base-url", server.base_url)
    assert code == 0, out
    _no_control(out)
    assert f"Model     model{escaped}\n" in out


@pytest.mark.parametrize("hostile", HOSTILE, ids=list(HOSTILE))
def test_doctor_shows_a_servers_error_words_escaped(hostile: str, server: ChatServer, clean_env: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    raw, escaped = HOSTILE[hostile]
    server.push(*[Failure(500, f"overloaded{raw}")] * 8)
    code, out = _kith(capsys, "--config", str(clean_env), "doctor", "--base-url", server.base_url, "--model", "m")
    assert code == 1
    _no_control(out)
    assert f"overloaded{escaped}" in out, out


@pytest.mark.parametrize("hostile", HOSTILE, ids=list(HOSTILE))
def test_plain_mode_echoes_a_piped_line_escaped(hostile: str, tmp_path: Path) -> None:
    raw, escaped = HOSTILE[hostile]
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES, "world": "tiny"},
                             env={})
    out = io.StringIO()
    assert LineMode(settings, save="g", stdin=io.StringIO(f"look{raw}\n"), stdout=out).run() == 0
    shown = out.getvalue()
    _no_control(shown)
    assert f"> look{escaped}\n" in shown


@pytest.mark.parametrize("hostile", HOSTILE, ids=list(HOSTILE))
def test_a_transcript_echoes_each_command_escaped(hostile: str, tmp_path: Path, clean_env: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    raw, escaped = HOSTILE[hostile]
    commands = tmp_path / "commands.txt"
    commands.write_text(f"look{raw}\nx rail\n", encoding="utf-8")
    code, out = _kith(capsys, "--config", str(clean_env), "--content-dir", str(FIXTURES), "run", "--transcript",
                      "--world", "tiny", str(commands))
    assert code == 0, out
    _no_control(out)
    assert f"> look{escaped}\n" in out


def test_a_kith_error_line_shows_what_it_quotes_escaped(tmp_path: Path, clean_env: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no\x1b[2Jsuch.txt"
    code, out = _kith(capsys, "--config", str(clean_env), "run", "--transcript", str(missing))
    assert code == 2
    _no_control(out)
    assert "no\\x1b[2Jsuch.txt: no such command file" in out
