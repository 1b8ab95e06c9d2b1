"""Issue 24's bar on played games, not only random graphs: two Brinefall saves made by playing command lists
headless (54 turns, mid game; 150 turns, a long wandering game) and a generated 40-person save, drawn with
``kith graph map --json`` at the pane's sizes (46x30 at 120x40, 32x18 at 80x24).

In the scene and person views every name in view is drawn whole or listed, and every relation of the stage
or of the person at the centre is labelled (on its line or in the list, never counted away as "+N more");
in every view the reading rules hold (lines unshared but for straight crossings, labels clear).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.map_rules import check_reading_rules
from helpers.maps import import_lines

from game.__main__ import main

COMMANDS = Path(__file__).parent / "data" / "maps"
SIZES = [(46, 30), (32, 18)]
FOCUS = {
    "mid": [None, "Aldous Crane", "Hob Tarrant", "Ness Tallis"],
    "long": [None, "Maud Quaile", "Pell Garrow", "Lise Brack"],
    "forty": [None, "Kest 0", "Ilse 2", "Rook 13"],
}

pytestmark = pytest.mark.slow  # plays 204 turns to make the saves


@pytest.fixture(scope="module")
def saves(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("map-saves")
    for save, commands in (("mid", "brinefall-54.commands"), ("long", "brinefall-150.commands")):
        assert main(["--saves-dir", str(folder), "run", "--transcript", "--world", "brinefall", "--save", save,
                     str(COMMANDS / commands)]) == 0
    source = folder / "cast.jsonl"
    source.write_text("\n".join(import_lines(40, seed=4)) + "\n", encoding="utf-8")
    assert main(["--saves-dir", str(folder), "graph", "import", "--save", "forty", str(source)]) == 0
    return folder


def _draw(folder: Path, capsys: pytest.CaptureFixture[str], save: str, view: str, size: tuple[int, int],
          focus: str | None) -> tuple[dict[str, Any], str]:
    args = ["--saves-dir", str(folder), "graph", "map", "--save", save, "--view", view,
            "--width", str(size[0]), "--height", str(size[1])]
    if focus is not None:
        args += ["--focus", focus]
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    shape = json.loads(capsys.readouterr().out)
    assert main([*args, "--color", "never"]) == 0
    return shape, capsys.readouterr().out


CASES = [(save, view, size) for save in FOCUS for view in ("scene", "person", "everyone") for size in SIZES]


@pytest.mark.parametrize(("save", "view", "size"), CASES)
def test_played_saves_keep_the_reading_rules(saves: Path, capsys: pytest.CaptureFixture[str], save: str,
                                             view: str, size: tuple[int, int]) -> None:
    for focus in FOCUS[save]:
        shape, text = _draw(saves, capsys, save, view, size, focus)
        where = (save, view, size, focus)
        assert shape["nodes"], where
        check_reading_rules(shape, text)
        if view == "everyone":
            continue
        unseen = [n["name"] for n in shape["nodes"] if not n["shown"] and n["name"] not in shape["listed"]]
        assert unseen == [], (where, unseen, text)
        assert all(n["w"] == len(n["name"]) + 2 for n in shape["nodes"] if n["shown"]), where
        unlabelled = [(e["source"], e["relation"], e["target"]) for e in shape["edges"] if not e["labelled"]]
        assert unlabelled == [], (where, unlabelled, text)


PANE_SIZES = [(46, 36), *SIZES]  # 46x36: the pane of a 120x40 screen as the game lays it out now


@pytest.mark.parametrize("save", ["mid", "long"])
def test_the_players_lines_never_cross_in_the_scene_view(saves: Path, capsys: pytest.CaptureFixture[str],
                                                         save: str) -> None:
    """Issue 24's "who is this to whom" at a glance: the player, in the middle of every relation they
    know, drew long lines across the others' (``──+┼┐``, ``└─+┼┼↑``); now a line of theirs that would
    cross another is listed (first) and the drawing shows the stage's ties. On the long game nothing
    crosses at all at the 120x40 pane's sizes."""
    for size in PANE_SIZES:
        shape, text = _draw(saves, capsys, save, "scene", size, None)
        use: dict[tuple[int, int], list[str]] = {}
        for edge in shape["edges"]:
            for cell in edge["cells"]:
                use.setdefault(tuple(cell), []).append(f"{edge['source']} {edge['relation']} {edge['target']}")
        shared = {cell: lines for cell, lines in use.items() if len(lines) > 1}
        assert not [lines for lines in shared.values() if any("Wren Tallis" in line for line in lines)], (size, text)
        if save == "long" and size[1] >= 30:
            assert shared == {}, (size, text)
        unlabelled = [(e["source"], e["relation"], e["target"]) for e in shape["edges"] if not e["labelled"]]
        assert unlabelled == [], (size, unlabelled, text)
