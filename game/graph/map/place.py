"""Greedy name placement: each name takes the free spot nearest its layout position, most important
first. Names are never cut (a cut name cannot be told from another): a name with no room anywhere is
left out, and the map lists it below the drawing. Names never overlap and keep a one-cell margin, so
there is always room for an edge to reach them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class Placed:
    """Where a node's label landed: columns ``x`` to ``end`` on row ``y``."""

    node_id: str
    x: int
    y: int
    text: str

    @property
    def end(self) -> int:
        return self.x + len(self.text) - 1

    @property
    def centre(self) -> int:
        return self.x + len(self.text) // 2


@dataclass(frozen=True, slots=True)
class LabelRequest:
    node_id: str
    name: str
    brackets: tuple[str, str]
    at: tuple[float, float]


class Placer:
    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.taken = bytearray(width * height)

    def claim(self, x: int, y: int, length: int) -> None:
        left, right = max(0, x - 1), min(self.width, x + length + 1)
        for row in (y - 1, y, y + 1):
            if 0 <= row < self.height:
                start = row * self.width
                self.taken[start + left:start + right] = b"\x01" * (right - left)

    def place(self, request: LabelRequest) -> Placed | None:
        """The free spot nearest the layout position for the whole name; None when there is none."""
        open_, close = request.brackets
        text = f"{open_}{request.name}{close}"
        px = round(request.at[0] * (self.width - 1))
        py = round(request.at[1] * (self.height - 1))
        spot = self._nearest(px, py, len(text), None)
        return None if spot is None else self._take(request.node_id, spot[0], spot[1], text)

    def _nearest(self, px: int, py: int, length: int, limit: float | None) -> tuple[int, int] | None:
        """Row by row outwards from ``py``, the free run of cells closest to ``px``."""
        if length > self.width:
            return None
        x0 = min(max(px - length // 2, 0), self.width - length)
        py = min(max(py, 0), self.height - 1)
        zeros = bytes(length)
        best: tuple[float, int, int] | None = None
        for distance in range(self.height):
            floor = float(distance * distance)
            if (best is not None and floor >= best[0]) or (limit is not None and floor > limit):
                break
            for row in {py - distance, py + distance}:
                if not 0 <= row < self.height:
                    continue
                base = row * self.width
                found = [self.taken.find(zeros, base + x0, base + self.width),
                         self.taken.rfind(zeros, base, base + x0 + length)]
                for start in found:
                    if start == -1:
                        continue
                    x = start - base
                    cost = ((x - x0) / 2) ** 2 + floor
                    if (best is None or cost < best[0]) and (limit is None or cost <= limit):
                        best = (cost, x, row)
        return None if best is None else (best[1], best[2])

    def nearest_block(self, px: int, py: int, w: int, h: int) -> tuple[int, int] | None:
        """The free ``w`` x ``h`` block of cells whose top left is nearest (px, py); None when none is.
        Each band of ``h`` rows is read as one row (the rows OR-ed together), so a block costs a row's search
        per candidate row, not a cell-by-cell test."""
        if w > self.width or h > self.height:
            return None
        width = self.width
        tops = self.height - h + 1
        x0, y0 = min(max(px, 0), width - w), min(max(py, 0), tops - 1)
        zeros = bytes(w)
        best: tuple[float, int, int] | None = None
        for distance in range(tops):
            floor = float(distance * distance)
            if best is not None and floor >= best[0]:
                break
            for top in {y0 - distance, y0 + distance}:
                if not 0 <= top < tops:
                    continue
                band = 0
                for row in range(top, top + h):
                    band |= int.from_bytes(self.taken[row * width:(row + 1) * width], "big")
                line = band.to_bytes(width, "big")
                for x in (line.find(zeros, x0), line.rfind(zeros, 0, x0 + w)):
                    cost = ((x - x0) / 2) ** 2 + floor
                    if x != -1 and (best is None or cost < best[0]):
                        best = (cost, x, top)
        return None if best is None else (best[1], best[2])

    def claim_block(self, x: int, y: int, w: int, h: int) -> None:
        """Take the block and a cell round it, as ``claim`` does for a name."""
        for row in range(y, y + h):
            self.claim(x, row, w)

    def _take(self, node_id: str, x: int, y: int, text: str) -> Placed:
        self.claim(x, y, len(text))
        return Placed(node_id, x, y, text)


def place_labels(requests: Sequence[LabelRequest], width: int, height: int) -> dict[str, Placed]:
    """Place in order; a request that fits nowhere is left out."""
    placer = Placer(width, height)
    placed: dict[str, Placed] = {}
    for request in requests:
        spot = placer.place(request)
        if spot is not None:
            placed[request.node_id] = spot
    return placed


def place_packed(requests: Sequence[LabelRequest], width: int, height: int) -> dict[str, Placed]:
    """``place_labels`` with each name's row moved to the nearest even one: a name keeps the rows above and
    below it clear, so names on rows their positions chose freely can leave a one-row gap no name fits in,
    where names on every other row use the height whole. For a pane too short for its names."""
    last = max(0, height - 1)
    top = last - last % 2

    def packed(request: LabelRequest) -> LabelRequest:
        row = min(top, 2 * round(request.at[1] * last / 2))
        return replace(request, at=(request.at[0], row / last if last else 0.5))

    return place_labels([packed(request) for request in requests], width, height)


def place_shelved(requests: Sequence[LabelRequest], width: int, height: int) -> dict[str, Placed]:
    """Every name on every other row, in their positions' order (top to bottom, then left to right), as
    many to a row as fit and spread evenly along it, the rows in the middle of the height; {} when they do
    not all fit. For a pane too short for ``place_packed`` to find each name a spot near its position."""
    texts = {r.node_id: f"{r.brackets[0]}{r.name}{r.brackets[1]}" for r in requests}
    shelves: list[list[LabelRequest]] = [[]]
    for request in sorted(requests, key=lambda r: (r.at[1], r.at[0], r.node_id)):
        if shelves[-1] and sum(len(texts[r.node_id]) + 1 for r in shelves[-1]) + len(texts[request.node_id]) > width:
            shelves.append([])
        shelves[-1].append(request)
    if 2 * len(shelves) - 1 > height or any(len(text) > width for text in texts.values()):
        return {}
    top = (height - 2 * len(shelves) + 1) // 2
    placed: dict[str, Placed] = {}
    for number, shelf in enumerate(shelves):
        shelf.sort(key=lambda r: (r.at[0], r.node_id))
        gap = (width - sum(len(texts[r.node_id]) for r in shelf)) // (len(shelf) + 1)
        x = gap
        for request in shelf:
            placed[request.node_id] = Placed(request.node_id, x, top + 2 * number, texts[request.node_id])
            x += len(texts[request.node_id]) + max(1, gap)
    return placed
