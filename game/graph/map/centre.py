"""Centring a small drawing in its pane: a view offset applied after drawing, never a re-layout.

Stored positions come from the layout of everyone the save holds, so the few people a player knows early
on sit wherever that layout put them (often a corner), and their names end up squeezed against a border
with the rest of the pane empty. Moving the finished drawing as a whole (names, lines, labels together)
centres it without touching the stored positions or anyone's place relative to anyone else, so "only new
nodes move" still holds between turns: the drawing as a whole just re-centres as it grows. A drawing that
fills its pane gets an offset of zero, so large maps, zoom and focus-following draw as they did before.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, MutableSequence
from typing import TypeVar

from game.graph.map.canvas import Canvas
from game.graph.map.layout import Position

T = TypeVar("T")

Box = tuple[int, int, int, int]
"""Cells ``(left, top, right, bottom)``, all inclusive."""


def bounds(boxes: Iterable[Box]) -> Box | None:
    """The smallest box holding all of ``boxes`` (None when there are none)."""
    found = list(boxes)
    if not found:
        return None
    return (min(b[0] for b in found), min(b[1] for b in found),
            max(b[2] for b in found), max(b[3] for b in found))


def centring_offset(boxes: Iterable[Box], width: int, height: int) -> tuple[int, int]:
    """How far to move a drawing made of ``boxes`` so it sits centred in a ``width`` x ``height`` pane.

    Each axis on its own: the drawing's extent is centred (an odd spare cell goes after it), which leaves
    at least one cell of margin on both sides whenever the drawing is at least two cells smaller than the
    pane. An axis the drawing already fills (or overflows) is not moved; the result never moves a cell of
    the drawing out of the pane.
    """
    box = bounds(boxes)
    if box is None:
        return 0, 0
    left, top, right, bottom = box
    return _axis(left, right, width), _axis(top, bottom, height)


def _axis(low: int, high: int, size: int) -> int:
    extent = high - low + 1
    if extent >= size or low < 0 or high >= size:
        return 0
    return (size - extent) // 2 - low


def middled(positions: Mapping[str, Position]) -> dict[str, Position]:
    """The positions moved together so the middle of their extent is the middle of the unit square.

    Done before names are placed, so a group in a corner of the layout is not squashed against the
    border (a name is never drawn past the edge, so one near it would be pushed inwards, out of its place
    relative to the others); ``centring_offset`` then centres what was actually drawn, names included.
    """
    if not positions:
        return {}
    xs = [p[0] for p in positions.values()]
    ys = [p[1] for p in positions.values()]
    dx = 0.5 - (min(xs) + max(xs)) / 2
    dy = 0.5 - (min(ys) + max(ys)) / 2
    return {node_id: (x + dx, y + dy) for node_id, (x, y) in positions.items()}


STRETCH_STEP = 2 ** 0.25
"""A few names stretch to fill the pane by whole steps of this factor, not to their exact extent: a
newcomer who widens the group a little changes no step and moves nobody (beyond the re-centring), and a
step moves each name by at most a sixth of its distance from the middle (3 or 4 cells in a 46x30 pane)."""
MAX_STRETCH = 16.0
"""However close together the first names are laid out, they are spread at most this many times wider."""


def stretched(positions: Mapping[str, Position], fill: tuple[float, float]) -> dict[str, Position]:
    """``middled``, each axis first spread by the largest whole step of ``STRETCH_STEP`` (at most
    ``MAX_STRETCH``) that keeps its span within its share of ``fill`` (less than the whole axis: a name is
    wider than the point it is laid out at, and the drawing keeps a margin inside the pane's border).

    Positions come from the layout of everyone the save holds, so the few people a player knows early in
    a game sit close together, and drawn as laid out they fill only the middle of the pane, their lines too
    short to label. Spread, they use the pane; by steps, so the picture keeps still as people arrive.
    """
    if len(positions) < 2:
        return middled(positions)
    spread: list[float] = []
    for axis in (0, 1):
        values = [p[axis] for p in positions.values()]
        extent = max(values) - min(values)
        steps = MAX_STRETCH if extent < 1e-9 else min(MAX_STRETCH, fill[axis] / extent)
        spread.append(STRETCH_STEP ** math.floor(math.log(max(steps, 1.0), STRETCH_STEP) + 1e-9))
    return middled({node_id: (x * spread[0], y * spread[1]) for node_id, (x, y) in positions.items()})


def drawn_box(canvas: Canvas, rows: int) -> Box | None:
    """The cells of the canvas's first ``rows`` rows that hold anything (a name, a line, a label)."""
    left, right, top, bottom = canvas.width, -1, -1, -1
    chars, width = canvas.chars, canvas.width
    rows = min(rows, canvas.height)
    # Joined once and sliced per row, unless a cell holds other than one character.
    whole = "".join(chars[:rows * width])
    single = len(whole) == rows * width
    for y in range(rows):
        line = whole[y * width:(y + 1) * width] if single else "".join(chars[y * width:(y + 1) * width])
        text = line.strip(" ")
        if text:
            first = len(line) - len(line.lstrip(" "))
            left, right = min(left, first), max(right, first + len(text) - 1)
            top = y if top < 0 else top
            bottom = y
    return None if right < 0 else (left, top, right, bottom)


def shift(canvas: Canvas, rows: int, dx: int, dy: int) -> None:
    """Move everything drawn in the first ``rows`` rows by (dx, dy); cells moved away from are left blank.
    The caller keeps the drawing inside (``centring_offset`` does): what would leave the rows is dropped."""
    if not dx and not dy:
        return
    width = canvas.width
    rows = min(rows, canvas.height)
    low, high = max(0, -dx), min(width, width - dx)  # the source columns that stay inside
    _move(canvas.chars, " ", width, rows, dx, dy, low, high)
    _move(canvas.style_ids, 0, width, rows, dx, dy, low, high)
    _move(canvas.kind, 0, width, rows, dx, dy, low, high)


def _move(layer: MutableSequence[T], blank: T, width: int, rows: int, dx: int, dy: int, low: int, high: int) -> None:
    """One layer of the canvas moved by (dx, dy): whole row slices at a time, not cell by cell."""
    size = rows * width
    old = layer[:size]
    new = [blank] * size
    for y in range(max(0, -dy), min(rows, rows - dy)) if low < high else ():
        start = (y + dy) * width + dx
        new[start + low:start + high] = old[y * width + low:y * width + high]
    layer[:size] = new
