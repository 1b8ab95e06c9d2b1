"""Settings precedence and the worked example in docs/configuration.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from game.config import load_settings
from game.errors import ConfigError

DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


def documented_example(tmp_path: Path) -> Path:
    block = re.search(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block is not None
    path = tmp_path / "kith.toml"
    path.write_text(block.group(1), encoding="utf-8")
    return path


def test_the_documented_kith_toml_loads_as_described(tmp_path: Path) -> None:
    settings = load_settings(env={}, config_file=documented_example(tmp_path))
    assert settings.world == "brinefall" and settings.narrator == "auto"
    assert settings.retrieval.max_hops == 2 and settings.retrieval.hub_threshold == 30
    assert settings.llm.base_url == "http://localhost:11434/v1" and settings.llm.model == "llama3.1:8b"
    assert settings.uses_llm


def test_flags_beat_environment_beat_file_beat_defaults(tmp_path: Path) -> None:
    path = documented_example(tmp_path)
    env = {"KITH_MODEL": "from-env", "KITH_WORLD": "env-world"}
    settings = load_settings(flags={"llm": {"model": "from-flag"}}, env=env, config_file=path)
    assert settings.llm.model == "from-flag"
    assert settings.world == "env-world"
    assert settings.llm.base_url == "http://localhost:11434/v1"
    assert load_settings(env={}, config_file=None).seed == 0


def test_offline_is_the_default_without_an_endpoint(tmp_path: Path) -> None:
    empty = tmp_path / "kith.toml"
    empty.write_text("", encoding="utf-8")
    assert not load_settings(env={}, config_file=empty).uses_llm
    assert load_settings(env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, config_file=empty).uses_llm


@pytest.mark.parametrize(("content", "fragment"), [
    ("[llm]\ntemperature = 5\n", "llm.temperature"),
    ("[retrieval]\nmax_hopz = 2\n", "retrieval.max_hopz: unknown field"),
    ("world = \n", "not valid TOML"),
])
def test_bad_settings_name_the_file_and_field(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "kith.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(env={}, config_file=path)
    assert fragment in caught.value.message and "kith.toml" in caught.value.message


def test_a_settings_path_that_is_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot be read"):
        load_settings(env={}, config_file=tmp_path)


@pytest.mark.parametrize("url", ["http://[::1", "http://localhost:99999/v1", "http://", "ftp://host/v1"])
def test_an_unusable_base_url_is_refused_when_settings_load(url: str) -> None:
    with pytest.raises(ConfigError, match=r"llm\.base_url"):
        load_settings(flags={"llm": {"base_url": url}}, env={}, config_file=None)


def test_settings_read_only_what_they_are_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own kith.toml, KITH_CONFIG or endpoint variables never leak into a caller's settings."""
    broken = tmp_path / "kith.toml"
    broken.write_text("world = \n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KITH_CONFIG", str(broken))
    monkeypatch.setenv("KITH_MODEL", "from-the-machine")
    settings = load_settings()
    assert settings.llm.model is None and not settings.uses_llm
    assert load_settings(env={"KITH_MODEL": "given"}).llm.model == "given"


def test_the_working_folder_is_searched_only_when_given(tmp_path: Path) -> None:
    (tmp_path / "kith.toml").write_text('world = "from-the-folder"\n', encoding="utf-8")
    assert load_settings(env={}).world is None
    assert load_settings(env={}, cwd=tmp_path).world == "from-the-folder"
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text('world = "from-kith-config"\n', encoding="utf-8")
    assert load_settings(env={"KITH_CONFIG": str(elsewhere)}, cwd=tmp_path).world == "from-kith-config"


SECRET_URL = "http://kith-user:s3cret-token@models.example:99999/v1"


@pytest.mark.parametrize(("source", "named", "not_named"), [
    ("env", "OPENAI_BASE_URL", "kith.toml"),
    ("flag", "--base-url", "kith.toml"),
    ("file", "kith.toml", "OPENAI_BASE_URL"),
])
def test_a_bad_base_url_names_its_source_and_never_its_credentials(
        tmp_path: Path, source: str, named: str, not_named: str) -> None:
    path = tmp_path / "kith.toml"
    path.write_text(f'[llm]\nbase_url = "{SECRET_URL}"\n' if source == "file" else 'world = "brinefall"\n',
                    encoding="utf-8")
    env = {"OPENAI_BASE_URL": SECRET_URL} if source == "env" else {}
    flags = {"llm": {"base_url": SECRET_URL}} if source == "flag" else {}
    with pytest.raises(ConfigError) as caught:
        load_settings(flags=flags, env=env, config_file=path)
    message = caught.value.message
    assert "llm.base_url" in message and named in message and not_named not in message
    assert "s3cret-token" not in message and "kith-user" not in message
    assert "models.example:99999" in message, "the rest of the URL still helps find the typo"
