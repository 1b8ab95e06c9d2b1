"""``kith`` itself (game/__main__.py): every command registered, settings from the real environment and
working folder, and a reader that goes away (``kith saves list | head -1``) ending the command quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from game.__main__ import COMMAND_FOLDERS_HEADING, FOLDERS_HEADING, build_parser, main

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", ["play", "run", "explore", "saves", "graph", "doctor", "llm"])
def test_every_command_is_registered(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A command module that fails to import is an error, never a command that silently disappears."""
    with pytest.raises(SystemExit) as leaving:
        build_parser().parse_args([command, "--help"])
    assert leaving.value.code == 0
    assert f"usage: kith {command}" in capsys.readouterr().out


def test_the_command_line_reads_the_working_folders_kith_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kith.toml").write_text("seed = 'not a number'\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KITH_CONFIG", raising=False)
    assert main(["--saves-dir", str(tmp_path), "saves", "list"]) == 2
    assert "kith.toml: seed" in capsys.readouterr().err


def test_the_command_line_reads_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KITH_NARRATOR", "telepathy")
    assert main(["--saves-dir", str(tmp_path), "saves", "list"]) == 2
    assert "KITH_NARRATOR" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["saves", "list"], ["graph", "dump", "--save", "none"], ["--help"],
    ["play", "--plain", "--new", "--save", "piped"], ["run", "tests/scripts/engine-meta.regtest"],
])
def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path, command: list[str]) -> None:
    reading, writing = os.pipe()
    os.close(reading)  # the reader is gone before kith writes a byte, as with `| head -1` on a long list
    try:
        result = subprocess.run([sys.executable, "-m", "game", "--saves-dir", str(tmp_path), *command],
                                stdin=subprocess.DEVNULL, stdout=writing, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                timeout=60)
    finally:
        os.close(writing)
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr, result.stderr
    assert result.returncode in (0, 1, 2)


def _help_of(words: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as leaving:
        main([*words, "--help"])
    assert leaving.value.code == 0
    return capsys.readouterr().out


def _every_command() -> list[list[str]]:
    """Every command and every action under one (``kith graph dump``, ``kith saves list``...)."""
    import argparse

    found: list[list[str]] = [[]]

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in dict(action.choices).items():
                    if [*words, name] not in found:
                        found.append([*words, name])
                        walk(sub, [*words, name])

    walk(build_parser(), [])
    return found


def test_every_commands_help_lays_out_the_folders_one_a_line(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``kith play --help`` as ``kith --help``: the folders paragraph is a list, never one squashed line."""
    from game.cli.worlds import folder_lines

    monkeypatch.setenv("COLUMNS", "100")
    folders = [f"  {line}" for line in folder_lines()]
    commands = _every_command()
    assert ["play"] in commands and ["graph", "dump"] in commands and ["llm", "check"] in commands
    for words in commands:
        expected = [FOLDERS_HEADING if not words else COMMAND_FOLDERS_HEADING, *folders]
        lines = _help_of(words, capsys).rstrip("\n").splitlines()
        at = lines.index(expected[0]) if expected[0] in lines else -1
        assert at >= 0, f"kith {' '.join(words)} --help has no folders list"
        assert lines[at:] == expected, f"kith {' '.join(words)} --help: {lines[at:]}"


def test_a_commands_help_sends_you_to_the_folder_options_where_they_are(capsys: pytest.CaptureFixture[str]) -> None:
    """`kith worlds --help` said "change them with the options above" above only -h and --json: the folder
    options go before the command (`kith --saves-dir DIR worlds`), and a command's help says so."""
    assert "options above" in FOLDERS_HEADING
    assert "options above" not in COMMAND_FOLDERS_HEADING
    assert "kith --saves-dir DIR COMMAND" in COMMAND_FOLDERS_HEADING
    worlds = _help_of(["worlds"], capsys)
    assert COMMAND_FOLDERS_HEADING in worlds and "--saves-dir" not in worlds.split(COMMAND_FOLDERS_HEADING)[0]
    parser = build_parser()
    assert parser.parse_args(["--saves-dir", "x", "worlds"]).saves_dir.name == "x"  # the form it names works


def test_play_help_does_not_say_a_world_must_be_under_content(capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`kith play --help` said --world is "a folder under content/"; a world of your own (worlds_dir) plays
    too, and `kith worlds` lists every id --world takes."""
    monkeypatch.setenv("COLUMNS", "200")
    world_line = next(line for line in _help_of(["play"], capsys).splitlines() if line.strip().startswith("--world ID"))
    assert "under content/" not in world_line and "kith worlds" in world_line


def test_help_lists_the_folders_this_command_line_would_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`kith --saves-dir DIR saves --help` listed the default saves folder, not DIR: the help now shows the
    folders the run would use (its options, then the environment, then the settings file), and a settings
    file that cannot be read leaves the help to the defaults instead of failing it."""
    from game.settings_source import default_saves_dir

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KITH_SAVES", raising=False)
    monkeypatch.delenv("KITH_CONFIG", raising=False)
    chosen = tmp_path / "chosen saves"
    assert f"saves           {chosen}\n" in _help_of(["--saves-dir", str(chosen), "saves"], capsys)
    assert f"saves           {chosen}\n" in _help_of([f"--saves-dir={chosen}", "graph", "dump"], capsys)
    assert f"shipped worlds  {tmp_path / 'w'}  " in _help_of(["--content-dir", str(tmp_path / "w")], capsys)
    (tmp_path / "kith.toml").write_text('saves_dir = "from-file"\nseed = 3\n', encoding="utf-8")
    assert "saves           from-file\n" in _help_of(["play"], capsys)
    monkeypatch.setenv("KITH_SAVES", str(tmp_path / "from-env"))
    assert f"saves           {tmp_path / 'from-env'}\n" in _help_of([], capsys)  # the environment beats the file
    monkeypatch.delenv("KITH_SAVES")
    (tmp_path / "kith.toml").write_text("saves_dir = [not toml", encoding="utf-8")
    assert f"saves           {default_saves_dir()}\n" in _help_of(["saves"], capsys)
    # Help printed by a parser outside a run (as tests and tools build it) shows the defaults, not the
    # folders of the run before it.
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    assert f"saves           {default_saves_dir()}\n" in capsys.readouterr().out
