"""A grid of character cells the map is drawn on, and its three output forms (runs, plain, ANSI).

Lines are kept as connection masks rather than characters, so where two edges meet or cross the cell
shows the right box-drawing junction instead of whichever line was drawn last.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from game.graph.map.style import PLAIN, CellStyle

NORTH, EAST, SOUTH, WEST = 1, 2, 4, 8
HORIZONTAL = EAST | WEST
VERTICAL = NORTH | SOUTH

_SOLID = {
    NORTH: "│", SOUTH: "│", VERTICAL: "│", EAST: "─", WEST: "─", HORIZONTAL: "─",
    SOUTH | EAST: "┌", SOUTH | WEST: "┐", NORTH | EAST: "└", NORTH | WEST: "┘",
    VERTICAL | EAST: "├", VERTICAL | WEST: "┤", HORIZONTAL | SOUTH: "┬", HORIZONTAL | NORTH: "┴",
    VERTICAL | HORIZONTAL: "┼",
}
_DASHED = {**_SOLID, NORTH: "╎", SOUTH: "╎", VERTICAL: "╎", EAST: "╌", WEST: "╌", HORIZONTAL: "╌"}

# What a cell holds besides lines; lines are never drawn over a label.
EMPTY, NODE_LABEL, EDGE_LABEL, TEXT = 0, 1, 2, 3

_RUN = re.compile(rb"(.)\1*", re.DOTALL)
"""A run of one repeated byte: cells of one style, found in C rather than cell by cell."""
MAX_STYLES = 255
SEARCH_BUDGET = 1200
"""Cells all the detour searches of one drawing may expand together. A search that fails explores all it
can reach, so a crowded map could spend a second on edges it cannot draw; past the budget, an edge with
no simple shape is listed at once. The redraw stays within a frame, and every drawing of the same graph
at the same size still comes out the same."""


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive cells of one style on one row."""

    text: str
    style: CellStyle


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        size = width * height
        self.chars = [" "] * size
        self.style_ids = bytearray(size)
        """Each cell's style as an index into ``style_table`` (0 is the plain style)."""
        self.style_table: list[CellStyle] = [PLAIN]
        self._style_index: dict[CellStyle, int] = {PLAIN: 0}
        self._last_style, self._last_id = PLAIN, 0
        """The style last looked up: hashing a style reads all six of its fields."""
        self.kind = bytearray(size)
        self.masks = bytearray(size)
        self.solid = bytearray(size)
        self.line_count = bytearray(size)
        self.line_style = bytearray(size)
        self.across = {HORIZONTAL: bytearray(size), VERTICAL: bytearray(size)}
        """Per axis, 1 where a straight stretch along it may not pass: a name, or a line with a part along
        that axis (a shared run, a corner, a junction). Kept as lines and names are added, so a route's
        shape is tested a stretch at a time in C (``route._cheapest``) instead of cell by cell."""
        self.ends = bytearray(size)
        """1 where a line ends beside a name (its arrowhead): no other line may pass there."""
        self._line_cells: list[int] = []
        self.search_left = SEARCH_BUDGET
        """What is left of the drawing's detour search budget (``route.detour`` spends it)."""

    def style_id(self, style: CellStyle) -> int:
        if style is self._last_style:
            return self._last_id  # the same style as the call before (a name's, a line and its label)
        found = self._style_index.get(style)
        if found is None:
            # A map uses a few dozen styles at most; past 255 the rest fall back to plain text.
            found = len(self.style_table) if len(self.style_table) <= MAX_STYLES else 0
            if found:
                self.style_table.append(style)
                self._style_index[style] = found
        self._last_style, self._last_id = style, found
        return found

    def set_cell(self, index: int, char: str, style: CellStyle) -> None:
        self.chars[index] = char
        self.style_ids[index] = self.style_id(style)

    def write(self, x: int, y: int, text: str, style: CellStyle, kind: int = TEXT) -> None:
        """Put text on one row, clipped to the canvas."""
        if not 0 <= y < self.height:
            return
        base = y * self.width
        ident = self.style_id(style)
        # The part inside the canvas, a slice at a time rather than a cell at a time.
        first, last = max(0, -x), min(len(text), self.width - x)
        if first < last:
            low, high = base + x + first, base + x + last
            self.chars[low:high] = text[first:last]
            self.style_ids[low:high] = bytes((ident,)) * (last - first)
            self.kind[low:high] = bytes((kind,)) * (last - first)
        if kind == NODE_LABEL:
            low, high = base + max(0, x), base + min(self.width, x + len(text))
            for layer in self.across.values():
                layer[low:high] = b"\x01" * max(0, high - low)

    def add_line(self, cells: Sequence[tuple[int, int]], style: CellStyle, solid: bool) -> None:
        """Merge one path (cell index, connection mask) into the line layer; later paths win the colour."""
        ident = self.style_id(style)
        masks, counts, styles, solid_layer = self.masks, self.line_count, self.line_style, self.solid
        along, down = self.across[HORIZONTAL], self.across[VERTICAL]
        new_cell = self._line_cells.append
        for index, mask in cells:
            existing = masks[index]
            if not existing:
                new_cell(index)
            merged = existing | mask
            masks[index] = merged
            if merged & HORIZONTAL:
                along[index] = 1
            if merged & VERTICAL:
                down[index] = 1
            if solid:
                solid_layer[index] = 1
            count = counts[index]
            if count < 255:
                counts[index] = count + 1
            styles[index] = ident
        if cells:
            self.ends[cells[0][0]] = self.ends[cells[-1][0]] = 1

    def add_frame(self, cells: list[tuple[int, int]], style: CellStyle) -> None:
        """A group's border (cell index, connection mask) into the line layer: lines may cross it as they
        cross another line, straight, and labels keep off it; it has no ends."""
        ident = self.style_id(style)
        for index, mask in cells:
            if not self.masks[index]:
                self._line_cells.append(index)
            self.masks[index] |= mask
            for axis, layer in self.across.items():
                if self.masks[index] & axis:
                    layer[index] = 1
            self.solid[index] = 1
            self.line_count[index] = min(255, self.line_count[index] + 1)
            self.line_style[index] = ident

    def finish_lines(self) -> None:
        """Turn masks into box-drawing characters wherever no label covers them."""
        kind, solid, masks, chars, style_ids, line_style = (self.kind, self.solid, self.masks, self.chars,
                                                              self.style_ids, self.line_style)
        for index in self._line_cells:
            if kind[index] == EMPTY:
                table = _SOLID if solid[index] else _DASHED
                chars[index] = table.get(masks[index], "┼")
                style_ids[index] = line_style[index]

    def rows(self) -> list[list[Run]]:
        """Each row as runs of one style. The cells are joined into one string once and each run sliced
        from it (a redraw makes several hundred runs), unless a cell holds other than one character."""
        out: list[list[Run]] = []
        chars, width, table, ids = self.chars, self.width, self.style_table, self.style_ids
        text = "".join(chars)
        if len(text) != len(chars):
            text = ""
        for y in range(self.height):
            base = y * width
            spans = [match.span() for match in _RUN.finditer(ids, base, base + width)]
            if text:
                out.append([Run(text[start:stop], table[ids[start]]) for start, stop in spans])
            else:
                out.append([Run("".join(chars[start:stop]), table[ids[start]]) for start, stop in spans])
        return out


def may_cross(existing: int, mask: int, is_end: bool) -> bool:
    """Whether a line with connection ``mask`` may take a cell whose lines are ``existing``: a free cell,
    or one straight line crossed straight at right angles, away from any line's end. Anything else
    (sharing a run, a corner or a junction) would leave a reader unable to tell which line goes where."""
    if not existing:
        return True
    if is_end:
        return False
    return (existing, mask) in ((HORIZONTAL, VERTICAL), (VERTICAL, HORIZONTAL))


def runs_plain(rows: list[list[Run]]) -> str:
    return "\n".join("".join(run.text for run in row).rstrip() for row in rows)


def runs_ansi(rows: list[list[Run]]) -> str:
    lines: list[str] = []
    for row in rows:
        parts: list[str] = []
        for run in row:
            code = run.style.sgr()
            parts.append(f"{code}{run.text}\x1b[0m" if code else run.text)
        lines.append("".join(parts).rstrip())
    return "\n".join(lines)
