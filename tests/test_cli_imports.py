"""What each kith command loads: a command pays only for what it uses (issue 15). The parser of a command
is built from that command's module alone, so ``kith --version`` loads no library at all, ``kith graph
dump`` and ``retrieve`` none of the model client, the UI, the map's maths, the fast extractor's patterns,
pydantic, asyncio, dataclasses or the engine, nor any other ``kith graph`` action's module (their parser
is built from ``game.cli.graph_quick`` alone), and ``kith play`` draws its first frame before pydantic,
the engine or the map's widgets load."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from game.__main__ import main

WORLDS = Path(__file__).parent / "fixtures" / "worlds"

HEAVY = ("openai", "textual", "networkx", "numpy", "pydantic", "game.graph.fast_extract.patterns",
         "game.script.parser", "asyncio", "aiosqlite", "game.config", "game.store.database", "game.engine",
         "game.world", "game.narrator")


GRAPH_READ_MAY_LOAD = {"game.cli.graph_quick", "game.cli.graph_common"}
"""The only command modules ``graph dump`` and ``retrieve`` may load: a new ``kith graph`` action's module
(or ``game.cli.graph``, which imports them all to build the full parser) would cost every run of theirs."""


def _loaded_by(words: list[str], cwd: Path, heavy: tuple[str, ...] = HEAVY) -> set[str]:
    """The heavy modules loaded by running ``kith WORDS`` in a fresh interpreter, and any ``game.cli`` module
    a graph read may not load (``GRAPH_READ_MAY_LOAD``)."""
    code = ("import sys, json, game.__main__ as m\n"
            "try:\n    m.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            f"print(json.dumps(sorted(n for n in sys.modules if n in {heavy!r} or n.startswith('game.cli.') "
            f"and n not in {sorted(GRAPH_READ_MAY_LOAD)!r})), file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", code, *words], capture_output=True, text=True, cwd=cwd,
                            timeout=60)
    return set(json.loads(result.stderr.strip().splitlines()[-1]))


def test_version_loads_no_library(tmp_path: Path) -> None:
    assert _loaded_by(["--version"], tmp_path) == set()


@pytest.fixture(scope="module")
def small_save(tmp_path_factory: pytest.TempPathFactory) -> Path:
    saves = tmp_path_factory.mktemp("saves")
    commands = saves / "commands.txt"
    commands.write_text("look\nask hob about the bell\n", encoding="utf-8")
    assert main(["--saves-dir", str(saves), "run", "--transcript", "--save", "small", str(commands)]) == 0
    return saves


@pytest.mark.parametrize("action", [["dump"], ["retrieve", "Hob"], ["retrieve", "--cast", "Hob", "hello"]])
def test_graph_reads_load_no_pydantic_asyncio_client_ui_map_or_extractor(action: list[str], small_save: Path) -> None:
    loaded = _loaded_by(["--saves-dir", str(small_save), "graph", action[0], "--save", "small", *action[1:]],
                        small_save, (*HEAVY, "dataclasses", "inspect"))
    assert loaded == set(), loaded


def test_graph_reads_with_settings_beyond_folders_validate_them_first(small_save: Path) -> None:
    config = small_save / "retrieval.toml"
    config.write_text("[retrieval]\nlimit = 1\n", encoding="utf-8")
    loaded = _loaded_by(["--config", str(config), "--saves-dir", str(small_save), "graph", "dump", "--save", "small"],
                        small_save)
    assert {"pydantic", "game.config"} <= loaded
    assert not loaded & {"asyncio", "game.store.database", "game.engine", "game.cli.graph"}, loaded


FIRST_FRAME = """
import json, sys
import game.ui.app

class Timed(game.ui.app.KithApp):
    def on_ready(self) -> None:
        heavy = sorted(n for n in (*HEAVY, "game.ui.relationship_map", "game.ui.node_details") if n in sys.modules)
        print(json.dumps(heavy), file=sys.stderr)
        self.exit()

    def run(self, *args, **kwargs):
        return super().run(headless=True, size=(120, 36))

game.ui.app.KithApp = Timed
from game.__main__ import main
main(sys.argv[1:])
"""


def test_play_draws_its_first_frame_before_loading_pydantic_or_the_engine(tmp_path: Path) -> None:
    """``kith play`` on a terminal: the screen is up before settings are validated and the game opens."""
    leader, follower = pty.openpty()  # stdin and stdout are a terminal, so play opens the full screen
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    for name in ("KITH_CONFIG", "OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR"):
        env.pop(name, None)
    try:
        result = subprocess.run(
            [sys.executable, "-c", FIRST_FRAME.replace("HEAVY", repr(HEAVY)), "--saves-dir", str(tmp_path / "saves"),
             "--content-dir", str(WORLDS), "play", "--save", "first", "--world", "tiny"],
            stdin=follower, stdout=follower, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env, timeout=60)
    finally:
        os.close(follower)
        os.close(leader)
    assert result.stderr.strip().startswith("["), result.stderr[-2000:]
    loaded = set(json.loads(result.stderr.strip().splitlines()[-1]))
    # textual brings asyncio; everything else waits for the game to open, after the frame.
    assert loaded <= {"textual", "asyncio"}, loaded


def test_every_command_still_builds_its_parser_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("play", "run", "explore", "saves", "graph", "worlds", "doctor", "llm"):
        with pytest.raises(SystemExit) as leaving:
            main([command, "--help"])
        assert leaving.value.code == 0
        assert f"usage: kith {command}" in capsys.readouterr().out
