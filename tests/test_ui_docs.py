"""docs/playing.md stays true: its map example is what the renderer draws, and its keys are bound."""

from __future__ import annotations

import re
from pathlib import Path

from helpers.maps import HARBOUR_POSITIONS, harbour

from game.graph.map import EMPTY_TEXT, LEGEND, render_map
from game.ui.app import KithApp
from game.ui.command_input import CommandInput
from game.ui.relationship_map import RelationshipMap

DOC = (Path(__file__).resolve().parent.parent / "docs" / "playing.md").read_text(encoding="utf-8")


def test_the_documented_map_is_what_the_renderer_draws() -> None:
    documented = re.search(r"```map\n(.*?)\n```", DOC, re.DOTALL)
    assert documented is not None
    nodes, edges = harbour()
    drawing = render_map(nodes, edges, 60, 14, positions=HARBOUR_POSITIONS)
    assert drawing.plain() == documented.group(1)


def test_the_documented_words_are_the_ones_shown() -> None:
    assert LEGEND in DOC
    assert EMPTY_TEXT in DOC


def _bound_keys() -> set[str]:
    keys: set[str] = set()
    for owner in (KithApp, RelationshipMap, CommandInput):
        for binding in owner.BINDINGS:
            keys.update(part.strip() for part in binding.key.split(","))  # type: ignore[union-attr]
    return keys | {"ctrl+p", "ctrl+q", "enter", "tab"}  # the palette, quit, submit and focus are Textual's


def test_every_documented_key_is_bound() -> None:
    table = DOC.split("## Keys")[1].split("\n## ")[0]
    names = {"Esc": "escape", "Up": "up", "Down": "down", "+": "plus", "-": "minus", "Enter": "enter",
             "Tab": "tab", "c": "c"}
    bound = _bound_keys()
    checked = 0
    for row in re.findall(r"^\| ([^|]+?) \|", table, re.MULTILINE)[2:]:
        for key in re.split(r" / ", row):
            if key == "Click a name":
                continue
            wanted = names.get(key, key.lower())
            assert wanted in bound, f"{key} is documented but not bound"
            checked += 1
    assert checked >= 10, f"only {checked} keys read from the table: has its layout changed?"
