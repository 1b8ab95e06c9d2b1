"""A grid of character cells the map is drawn on, and its three output forms (runs, plain, ANSI).

Lines are kept as connection masks rather than characters, so where two edges meet or cross the cell
shows the right box-drawing junction instead of whichever line was drawn last.
"""

from __future__ import annotations

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
        self.styles: list[CellStyle] = [PLAIN] * size
        self.kind = bytearray(size)
        self.masks = bytearray(size)
        self.solid = bytearray(size)
        self.line_count = bytearray(size)
        self.line_style: list[CellStyle] = [PLAIN] * size

    def write(self, x: int, y: int, text: str, style: CellStyle, kind: int = TEXT) -> None:
        """Put text on one row, clipped to the canvas."""
        if not 0 <= y < self.height:
            return
        base = y * self.width
        for offset, char in enumerate(text):
            column = x + offset
            if 0 <= column < self.width:
                self.chars[base + column] = char
                self.styles[base + column] = style
                self.kind[base + column] = kind

    def add_line(self, cells: list[tuple[int, int]], style: CellStyle, solid: bool) -> None:
        """Merge one path (cell index, connection mask) into the line layer; later paths win the colour."""
        for index, mask in cells:
            self.masks[index] |= mask
            if solid:
                self.solid[index] = 1
            if self.line_count[index] < 255:
                self.line_count[index] += 1
            self.line_style[index] = style

    def finish_lines(self) -> None:
        """Turn masks into box-drawing characters wherever no label covers them."""
        for index, mask in enumerate(self.masks):
            if mask and self.kind[index] == EMPTY:
                table = _SOLID if self.solid[index] else _DASHED
                self.chars[index] = table.get(mask, "┼")
                self.styles[index] = self.line_style[index]

    def rows(self) -> list[list[Run]]:
        out: list[list[Run]] = []
        styles, chars, width = self.styles, self.chars, self.width
        for y in range(self.height):
            base = y * width
            runs: list[Run] = []
            start = 0
            while start < width:
                style = styles[base + start]
                end = start + 1
                # Identity first: neighbouring cells nearly always share one style object.
                while end < width and (styles[base + end] is style or styles[base + end] == style):
                    end += 1
                runs.append(Run("".join(chars[base + start:base + end]), style))
                start = end
            out.append(runs)
        return out


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
