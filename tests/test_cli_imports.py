"""What each kith command loads: a command pays only for what it uses (issue 15). The parser of a command
is built from that command's module alone, so ``kith --version`` loads no library at all and ``kith graph
dump`` none of the model client, the UI, the map's maths or the fast extractor's patterns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from game.__main__ import main

HEAVY = ("openai", "textual", "networkx", "numpy", "pydantic", "game.graph.fast_extract.patterns",
         "game.script.parser")


def _loaded_by(words: list[str], cwd: Path) -> set[str]:
    """The heavy modules loaded by running ``kith WORDS`` in a fresh interpreter."""
    code = ("import sys, json, game.__main__ as m\n"
            "try:\n    m.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            f"print(json.dumps(sorted(n for n in {HEAVY!r} if n in sys.modules)), file=sys.stderr)")
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


@pytest.mark.parametrize("action", [["dump"], ["retrieve", "Hob"]])
def test_graph_reads_load_no_client_ui_map_or_extractor(action: list[str], small_save: Path) -> None:
    loaded = _loaded_by(["--saves-dir", str(small_save), "graph", action[0], "--save", "small", *action[1:]],
                        small_save)
    # pydantic stays: the graph's records are its models. Everything else here is another command's.
    assert loaded <= {"pydantic"}, loaded


def test_every_command_still_builds_its_parser_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("play", "run", "saves", "graph", "worlds", "doctor", "llm"):
        with pytest.raises(SystemExit) as leaving:
            main([command, "--help"])
        assert leaving.value.code == 0
        assert f"usage: kith {command}" in capsys.readouterr().out
