"""Adversarial base URLs (issue 21): a control character, a space or a malformed user part, from every
place a base URL is set, is one clear settings error in ``doctor`` and ``play``, never an ``InvalidURL``
traceback from inside the HTTP client; and no spelling of a password in a URL reaches any output.

Case counts: 7 control characters x 3 sources x 2 commands through ``kith`` (40: NUL cannot be in a
variable); 200 random URLs checked
against the HTTP client's own parser; 41 hand-written password shapes and 300 generated ones through the
settings error, the shown endpoint and the transport; 6 shapes through ``kith doctor`` end to end.
"""

from __future__ import annotations

import socket
from pathlib import Path

import httpx2
import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.__main__ import main
from game.base_url import check_base_url, shown_url
from game.config import LLMSettings, load_settings, with_endpoint
from game.errors import ConfigError
from game.narrator.llm.endpoint import display_url, short_host
from game.narrator.llm.transport import OpenAITransport

ENVIRONMENT = ("OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR", "KITH_CONFIG", "OPENAI_API_KEY")
PASSWORD = "Zq7pw"
CONTROLS = ["\n", "\r", "\t", "\x07", "\x1b", "\x00", "\u200b"]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    return empty


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _kith(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as stop:
        code = int(stop.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("command", ["doctor", "play"])
@pytest.mark.parametrize("source", ["flag", "environment", "kith.toml"])
@pytest.mark.parametrize("control", CONTROLS)
def test_a_control_character_in_the_base_url_is_a_settings_error(
        command: str, source: str, control: str, clean_env: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    if control == "\x00" and source == "environment":
        pytest.skip("an environment variable cannot hold NUL")
    url = f"http://127.0.0.1:{_closed_port()}/v1{control}x"
    config = clean_env
    endpoint: list[str] = []
    if source == "flag":
        endpoint = ["--base-url", url]
    elif source == "environment":
        monkeypatch.setenv("OPENAI_BASE_URL", url)
    else:
        config = tmp_path / "kith.toml"
        escaped = "".join(char if char.isprintable() else f"\\u{ord(char):04X}" for char in url)
        config.write_text(f'[llm]\nbase_url = "{escaped}"\nmodel = "m"\n', encoding="utf-8")
    play = ["play", "--plain", "--save", "g"] if command == "play" else ["doctor"]
    code, out = _kith(capsys, "--config", str(config), "--saves-dir", str(tmp_path / "saves"), *play,
                      *endpoint, "--model", "m")
    assert code == 2, out
    assert "llm.base_url: holds a control character" in out, out
    assert "Traceback" not in out and "InvalidURL" not in out
    assert control not in out.rstrip("\n"), "the control character itself reached the terminal"
    assert not (tmp_path / "saves" / "g.sqlite").exists()


URL_PARTS = st.sampled_from(["http://", "https://", "HTTP://", "http:/", "//", "http:", "ftp://", "alice", ":",
                             PASSWORD, "@", "[", "]", "::1", "/", "\\", "#", "?", "%", "%25", "%zz", "host",
                             "127.0.0.1", "999.1.1.1", "1.2.3", ":80", ":99999", ":x", "\u00e4", "\uff48", "\u3000",
                             " ", "\n", "\x07", "\x1b[2J", "\u200b", "\u202e", "xn--a", ".", "-", "v1", "\x85"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(URL_PARTS, min_size=1, max_size=9).map("".join))
def test_every_url_the_check_lets_through_the_client_accepts(url: str) -> None:
    """The check is the client's rules, said first: whatever it accepts, the client can be built on, and
    whatever it refuses is a ValueError whose words quote nothing of the URL."""
    if not url.strip():
        return
    try:
        checked = check_base_url(url.strip())
    except ValueError as error:
        assert PASSWORD not in str(error)
        return
    httpx2.URL(checked)
    openai.AsyncOpenAI(api_key="sk-test", base_url=checked)


SHAPES = [
    "http:/alice:{pw}@host", "http://[alice:{pw}]@host/", "http://alice:{pw}@host/v1", "http://alice:p/{pw}@host",
    "http://alice:{pw}@host:xx/v1", "http://alice:{pw}@[::1/v1", "http://alice:{pw}@", "ftp://alice:{pw}@host",
    "//alice:{pw}@host", "alice:{pw}@host", "http:alice:{pw}@host", "http://alice:{pw}\n@host",
    "http://alice:{pw} @host", "http://alice:p@{pw}@host", "http://alice:{pw}@host?x=1#y", "http://alice:{pw}@ho st",
    "http:\\\\alice:{pw}@host", "HTTP://alice:{pw}@host", "http://alice:{pw}@host\x07", "http://alice:{pw}@host:99999/",
    "http:///alice:{pw}@host", "http://alice:{pw}#@host", "http://alice:{pw}?@host", "http://al[ice:{pw}@host",
    "http://alice:{pw}]@host", "https://:{pw}@host", "http://{pw}@host", "http://alice:{pw}@@host",
    "http://alice:{pw}@host@", " http://alice:{pw}@host ", "http://alice:{pw}%40@host", "http://alice:{pw}@[::1]:x/",
    "http://alice:{pw}@\uff48ost/", "http://alice:{pw}@999.1.1.1/", "http://alice:{pw}\u202e@host",
    "http://host/v1?key={pw}", "http://host/v1#{pw}", "http://alice:{pw}@host/v1\x1b[2J",
    "http://[alice:{pw}@host]/", "http://alice:{pw}:{pw}@host", "mailto:alice:{pw}@host",
]


def _no_password_anywhere(url: str) -> None:
    """The settings error, or for a URL that passes, every way the endpoint is shown, holds no password."""
    try:
        checked = load_settings({"llm": {"base_url": url, "model": "m"}}).llm
    except ConfigError as error:
        assert PASSWORD not in error.message, error.message
        return
    for shown in (display_url(checked.base_url), short_host(checked.base_url), shown_url(url)):
        assert PASSWORD not in shown, shown
    transport = OpenAITransport(checked, {"OPENAI_API_KEY": "sk-test"})
    assert PASSWORD not in transport.endpoint and PASSWORD not in transport.label


@pytest.mark.parametrize("shape", SHAPES)
def test_no_malformed_user_part_shows_the_password(shape: str) -> None:
    _no_password_anywhere(shape.format(pw=PASSWORD))


@settings(max_examples=300, deadline=None)
@given(st.lists(URL_PARTS, max_size=5).map("".join), st.lists(URL_PARTS, max_size=5).map("".join),
       st.sampled_from(["@", "@@", "]@", "#@", "?@", "%40@", "\n@"]), st.lists(URL_PARTS, max_size=5).map("".join))
def test_no_generated_user_part_shows_the_password(before: str, between: str, at: str, after: str) -> None:
    _no_password_anywhere(f"{before}{PASSWORD}{between}{at}{after.replace(PASSWORD, 'h')}")


@pytest.mark.parametrize("shape", ["http:/alice:{pw}@127.0.0.1:{port}/v1", "http://[alice:{pw}]@127.0.0.1:{port}/",
                                   "http://alice:{pw}#@127.0.0.1:{port}/v1", "http://alice:{pw}@127.0.0.1:{port}/v1",
                                   "http://alice:{pw}\x07@127.0.0.1:{port}/v1", "http://alice:p/{pw}@127.0.0.1:{port}"])
def test_kith_doctor_never_prints_the_password(shape: str, clean_env: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    url = shape.format(pw=PASSWORD, port=_closed_port())
    code, out = _kith(capsys, "--config", str(clean_env), "doctor", "--base-url", url, "--model", "m")
    assert code in {1, 2}
    assert PASSWORD not in out and "Traceback" not in out, out


def test_the_settings_screen_checks_a_typed_url_as_a_flag_would(clean_env: Path) -> None:
    """The screen's choice used to be a ``model_copy``, which validates nothing: the bad URL reached the
    HTTP client at the next turn."""
    base = load_settings({}, env={}, config_file=clean_env)
    with pytest.raises(ConfigError, match=r"settings screen: base_url: holds a control character") as caught:
        with_endpoint(base, f"http://alice:{PASSWORD}@host/v1\x07", "m")
    assert PASSWORD not in caught.value.message
    assert with_endpoint(base, "http://localhost:11434/v1", "m").llm.base_url == "http://localhost:11434/v1"


def test_a_transport_built_around_the_check_refuses_clearly() -> None:
    """Settings made without validation (``model_construct``) still give a ``ConfigError``, not the
    client's ``InvalidURL`` with the password in it."""
    unchecked = LLMSettings.model_construct(base_url=f"http://alice:{PASSWORD}@127.0.0.1:9/v1\nx", model="m")
    with pytest.raises(ConfigError, match="cannot be used") as caught:
        OpenAITransport(unchecked, {"OPENAI_API_KEY": "sk-test"})
    assert PASSWORD not in caught.value.message


def test_check_base_url_keeps_what_servers_use() -> None:
    for url in ("http://localhost:11434/v1", "https://api.openai.com/v1", "http://[::1]:8080/v1",
                "http://192.168.1.20:8000/v1", "http://gpu-box.local:1234/v1/", "http://b\u00fccher.example/v1"):
        assert check_base_url(url) == url
