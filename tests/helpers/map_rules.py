"""The map's reading rules, checked on a drawing's ``--json`` geometry (``game.graph.map.geometry``):
shared by the property test over random graphs and the test over played saves.

Every drawing, in every view: a name is drawn whole and never overlaps another; no line runs under a
name; two lines share a cell only where one crosses the other straight at right angles (never at an
end, a corner or a junction); no label overlaps a name or another label; every line shows its sign as
a glyph (on its label or its line) or is listed (unless the list is full and says how many more).
"""

from __future__ import annotations

from collections import Counter
from typing import Any


def check_reading_rules(shape: dict[str, Any], text: str) -> None:
    lines = text.splitlines()
    width, height = shape["width"], shape["height"]
    names: dict[tuple[int, int], str] = {}
    for node in shape["nodes"]:
        if not node["shown"]:
            continue
        x, y, w = node["x"], node["y"], node["w"]
        assert x >= 0 and x + w <= width and 0 <= y < height
        drawn = lines[y][x:x + w]
        assert drawn[1:-1] == node["name"], f"name cut or covered: {drawn!r} for {node['name']!r}"
        for column in range(x, x + w):
            assert (column, y) not in names, f"{node['name']} overlaps {names[(column, y)]}"
            names[(column, y)] = node["name"]
    use: Counter[tuple[int, int]] = Counter()
    through: dict[tuple[int, int], list[str]] = {}
    for edge in shape["edges"]:
        cells = [tuple(c) for c in edge["cells"]]
        for number, cell in enumerate(cells):
            assert cell not in names, f"{edge['relation']} runs under {names[cell]}"
            assert 0 <= cell[0] < width and 0 <= cell[1] < height
            if number:
                before = cells[number - 1]
                assert abs(before[0] - cell[0]) + abs(before[1] - cell[1]) == 1, "a line is unbroken"
            use[cell] += 1
            if 0 < number < len(cells) - 1:
                before, after = cells[number - 1], cells[number + 1]
                straight = "h" if before[1] == after[1] == cell[1] else "v" if before[0] == after[0] else "turn"
            else:
                straight = "end"
            through.setdefault(cell, []).append(straight)
    for cell, count in use.items():
        if count > 1:
            kinds = sorted(through[cell])
            assert kinds == ["h", "v"], f"cell {cell} shared other than by a straight crossing: {kinds}"
    for edge in shape["edges"]:
        if not edge["cells"]:
            continue
        on_line = any(lines[y][x:x + 1] == edge["sign"] for x, y in edge["cells"])
        on_label = edge["label"] is not None and edge["label"]["text"].startswith(edge["sign"])
        # Listed under the drawing with its sign (a label cut short of its sign is then only a reminder).
        listed = edge["labelled"] and (edge["label"] is None or any(
            f"{edge['sign']}{relation}" in text for relation in edge["relation"].split("/")))
        full = "more" in text  # the list had no room left: it counts what it could not show
        assert on_line or on_label or listed or full, f"{edge['relation']} shows no sign in monochrome"
    border = check_frames(shape, names, through)
    labels: set[tuple[int, int]] = set()
    for edge in shape["edges"]:
        label = edge["label"]
        if label is None:
            continue
        cells = {(label["x"] + i, label["y"]) for i in range(len(label["text"]))}
        assert not cells & set(names), f"label {label['text']} overlaps a name"
        assert not cells & set(border), f"label {label['text']} covers a group's frame"
        assert not cells & labels, f"label {label['text']} overlaps another label"
        assert lines[label["y"]][label["x"]:label["x"] + len(label["text"])] == label["text"]
        labels |= cells


def check_frames(shape: dict[str, Any], names: dict[tuple[int, int], str],
                  through: dict[tuple[int, int], list[str]]) -> dict[tuple[int, int], str]:
    """Groups drawn as frames: inside the pane, holding their members and no other name; a line crosses a
    frame's border only straight through it at right angles, never at a corner nor ending on it; a
    membership said by a frame has no line. Returns the border cells, each with the crossing it allows."""
    nodes = {n["name"]: n for n in shape["nodes"]}
    border: dict[tuple[int, int], str] = {}
    for group in shape["groups"]:
        x, y, w, h = group["x"], group["y"], group["w"], group["h"]
        assert min(x, y) >= 0 and x + w <= shape["width"] and y + h <= shape["height"]
        title = nodes[group["name"]]
        assert title["y"] == y and x < title["x"] and title["x"] + title["w"] < x + w, "the name is on the frame"
        inside = {group["name"], *group["members"]}
        for name in group["members"]:
            node = nodes[name]
            assert x < node["x"] and node["x"] + node["w"] < x + w - 1 and y < node["y"] < y + h - 1, name
        for (column, row), name in names.items():
            if x <= column < x + w and y <= row < y + h:
                assert name in inside, f"{name} is drawn inside {group['name']}'s frame"
        for column in range(x, x + w):
            for row in (y, y + h - 1):
                if (column, row) not in names:
                    border[(column, row)] = "corner" if column in (x, x + w - 1) else "v"
        for row in range(y + 1, y + h - 1):
            border[(x, row)] = border[(x + w - 1, row)] = "h"
        framed = [e for e in shape["edges"] if e["boxed"]]
        for edge in framed:
            assert not edge["cells"] and edge["labelled"]
    for cell, crossings in through.items():
        if cell in border:
            assert crossings == [border[cell]], f"a line meets a frame at {cell} other than straight across"
    for edge in shape["edges"]:
        if edge["boxed"]:
            owner = next(g for g in shape["groups"] if g["name"] in (edge["source"], edge["target"]))
            assert {edge["source"], edge["target"]} - {owner["name"]} <= set(owner["members"])
    return border
