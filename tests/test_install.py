"""Kith as an installed tool: the folders it uses (XDG rules), ``kith --version``, ``kith worlds``, a world
of the player's own, and (slow) a wheel built, installed into a fresh venv and played from another folder.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

import game
from game.__main__ import build_parser, main
from game.config import Settings, load_settings
from game.settings_source import (
    PROJECT_ROOT,
    default_content_dir,
    default_saves_dir,
    from_checkout,
    user_config_dir,
    user_data_dir,
)

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = "look\nask hob about the bell\nnorth\n"


def test_the_xdg_rules_place_data_and_settings_under_home_unless_the_variables_say_otherwise() -> None:
    home = {"HOME": "/home/wren"}
    assert user_data_dir(home) == Path("/home/wren/.local/share/kith")
    assert user_config_dir(home) == Path("/home/wren/.config/kith")
    chosen = {**home, "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/conf"}
    assert user_data_dir(chosen) == Path("/data/kith")
    assert user_config_dir(chosen) == Path("/conf/kith")
    # The spec: a relative path in these variables is invalid and ignored (saves never land in the cwd).
    relative = {**home, "XDG_DATA_HOME": "here", "XDG_CONFIG_HOME": "."}
    assert user_data_dir(relative) == Path("/home/wren/.local/share/kith")
    assert user_config_dir(relative) == Path("/home/wren/.config/kith")


def test_a_checkout_plays_its_own_content_and_keeps_saves_beside_the_code() -> None:
    assert from_checkout()
    assert default_content_dir() == PROJECT_ROOT / "content"
    assert default_saves_dir() == PROJECT_ROOT / "saves"


def test_the_users_settings_file_is_read_when_no_nearer_one_exists(tmp_path: Path) -> None:
    config = tmp_path / "conf" / "kith"
    config.mkdir(parents=True)
    (config / "kith.toml").write_text("seed = 42\n", encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    settings = load_settings(env={"XDG_CONFIG_HOME": str(tmp_path / "conf")}, cwd=work)
    assert settings.seed == 42
    (work / "kith.toml").write_text("seed = 7\n", encoding="utf-8")
    assert load_settings(env={"XDG_CONFIG_HOME": str(tmp_path / "conf")}, cwd=work).seed == 7


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as leaving:
        main(["--version"])
    assert leaving.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("kith ") and out.split()[1][0].isdigit()


def test_help_says_where_each_folder_is(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    for words in ("shipped worlds", "your worlds", "saves", "settings", str(PROJECT_ROOT / "content")):
        assert words in out


def _own_world(tmp_path: Path) -> Path:
    """The player's worlds folder holding ``saltmarsh``, a copy of Brinefall under another id."""
    worlds = tmp_path / "worlds"
    shutil.copytree(ROOT / "content" / "brinefall", worlds / "saltmarsh")
    return worlds


def test_worlds_lists_the_shipped_worlds_and_the_players_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KITH_WORLDS", str(_own_world(tmp_path)))
    assert main(["worlds"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("brinefall") and "Brinefall" in line and "shipped" in line for line in lines)
    assert any(line.startswith("saltmarsh") and str(tmp_path / "worlds" / "saltmarsh") in line for line in lines)
    assert main(["worlds", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(row["id"], row["source"]) for row in rows] == [("brinefall", "shipped"), ("thornwick", "shipped"),
                                                            ("saltmarsh", "yours")]


def test_a_world_of_the_players_own_is_played_from_their_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KITH_WORLDS", str(_own_world(tmp_path)))
    commands = tmp_path / "commands.txt"
    commands.write_text("look\n", encoding="utf-8")
    saves = tmp_path / "saves"
    code = main(["--saves-dir", str(saves), "run", "--transcript", "--world", "saltmarsh", "--save", "mine",
                 str(commands)])
    assert code == 0, capsys.readouterr().err
    assert "The Ferry Landing" in capsys.readouterr().out
    assert main(["--saves-dir", str(saves), "saves", "list", "--json"]) == 0
    assert [row["world"] for row in json.loads(capsys.readouterr().out)] == ["saltmarsh"]


def test_doctor_says_where_each_folder_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from game.cli.doctor import run_doctor

    settings = Settings(saves_dir=tmp_path / "saves", content_dir=ROOT / "content", worlds_dir=tmp_path / "w")
    run_doctor(build_parser().parse_args(["doctor"]), settings)
    out = capsys.readouterr().out
    assert f"saves           {tmp_path / 'saves'}" in out
    assert f"your worlds     {tmp_path / 'w'}" in out


@pytest.mark.slow
def test_the_wheel_carries_its_worlds_and_plays_from_any_folder(tmp_path: Path) -> None:
    """Build the wheel, install it alone into a fresh venv (dependencies from this venv through a .pth,
    so no network is needed), and play Brinefall from an unrelated folder with a fresh HOME."""
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels),
                            str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("kith-*.whl"))
    target = tmp_path / "venv"
    venv.create(target, with_pip=False, system_site_packages=False)
    python = target / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # The project venv's libraries (textual, pydantic, ...), but not its editable checkout of Kith.
    (site / "kith-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                                "--no-index", "--quiet", str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "commands.txt").write_text(COMMANDS, encoding="utf-8")
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("KITH_", "OPENAI_", "XDG_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), PATH=f"{target / 'bin'}:{env.get('PATH', '')}")
    kith = str(target / "bin" / "kith")

    def run(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([kith, *words], capture_output=True, text=True, cwd=elsewhere, env=env, timeout=120)

    where = subprocess.run([str(python), "-c", "import game; print(game.__file__)"], capture_output=True,
                           text=True, cwd=elsewhere, env=env, check=True).stdout
    assert str(site) in where, "the fresh venv must run the installed wheel, not the checkout"
    played = run("run", "--transcript", "--save", "first", "commands.txt")
    assert played.returncode == 0, played.stderr
    assert "The Ferry Landing" in played.stdout and "> north" in played.stdout
    saves = home / ".local" / "share" / "kith" / "saves"
    assert [path.name for path in saves.iterdir() if path.name.startswith("first")], list(saves.iterdir())
    assert not list(elsewhere.glob("saves*")), "saves must not land in the folder the player stands in"
    worlds = run("worlds")
    assert worlds.returncode == 0 and worlds.stdout.startswith("brinefall  Brinefall  [shipped: ")
    assert str(site / "game" / "_content" / "brinefall") in worlds.stdout
    version = run("--version")
    declared = subprocess.run([str(python), "-c", "from importlib.metadata import version; print(version('kith'))"],
                              capture_output=True, text=True, check=True).stdout.strip()
    assert declared == game.__version__  # the wheel's metadata carries the version the package declares
    assert version.returncode == 0 and version.stdout.strip() == f"kith {declared}"


def test_worlds_lines_up_titles_of_different_lengths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`kith worlds` padded ids but not titles, so each world's folder started in another column."""
    worlds = _own_world(tmp_path)
    world_toml = worlds / "saltmarsh" / "world.toml"
    world_toml.write_text(world_toml.read_text(encoding="utf-8").replace('title = "Brinefall"',
                                                                          'title = "The Salt Marsh"', 1),
                          encoding="utf-8")
    monkeypatch.setenv("KITH_WORLDS", str(worlds))
    assert main(["worlds"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("The Salt Marsh" in line for line in lines), lines
    assert len({line.index("[") for line in lines}) == 1, lines


def test_a_game_in_a_world_of_the_players_own_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A game started with `--world saltmarsh` (a world of the player's own) could not be opened again:
    `kith play --save mine` said "no world 'saltmarsh' in .../content" although KITH_WORLDS holds it."""
    monkeypatch.setenv("KITH_WORLDS", str(_own_world(tmp_path)))
    commands = tmp_path / "commands.txt"
    commands.write_text("look\n", encoding="utf-8")
    saves = tmp_path / "saves"
    first = main(["--saves-dir", str(saves), "run", "--transcript", "--world", "saltmarsh", "--save", "mine",
                  str(commands)])
    assert first == 0, capsys.readouterr().err
    capsys.readouterr()
    again = main(["--saves-dir", str(saves), "run", "--transcript", "--save", "mine", str(commands)])
    assert again == 0, capsys.readouterr().err
    assert "resumed at turn 1" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("look\nquit\n"))
    assert main(["--saves-dir", str(saves), "play", "--plain"]) == 0, capsys.readouterr().err
    assert "The Ferry Landing" in capsys.readouterr().out
