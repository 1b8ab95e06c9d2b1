"""A line's words on the drawing: its relation written along it (``+TRUSTS``), or at least its sign as a
glyph on a cell of its own, each kept clear of names, other labels and other lines."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from game.graph.map.canvas import EDGE_LABEL, EMPTY, Canvas
from game.graph.map.route import ARROWS, Route
from game.graph.map.style import CellStyle, shared_style
from game.graph.models import Edge


def lead_of(versions: Sequence[Edge]) -> Edge:
    """The relation a line's colour and sign stand for: the strongest, the newest on a tie."""
    return max(versions, key=lambda e: (abs(e.strength), e.valid_at))


def mark_sign(canvas: Canvas, route: Route, glyph: str, style: CellStyle) -> bool:
    """An unlabelled line still shows its sign (``glyph``): on the cell nearest its middle that is this
    line's alone (not a crossing, a corner shared with another line, an arrow or a name). An end without
    an arrowhead counts too, so a line only two cells long (one end an arrow) still shows its sign."""
    inner = [index for index, _mask in route.cells[1:-1]]
    middle = len(inner) // 2
    arrows = set(ARROWS.values())
    ends = [index for index, _mask in (route.cells[0], route.cells[-1]) if canvas.chars[index] not in arrows]
    for index in [index for _distance, index in sorted((abs(order - middle), index)
                                                         for order, index in enumerate(inner))] + ends:
        if canvas.kind[index] == EMPTY and canvas.line_count[index] == 1:
            canvas.set_cell(index, glyph, shared_style(style.fg, style.dim, bold=True))
            canvas.kind[index] = EDGE_LABEL
            return True
    return False  # no cell of its own to spare (a one-cell line is all arrowhead): the list says it


def label_edge(canvas: Canvas, route: Route, relations: Sequence[str], glyph: str,
               style: CellStyle) -> tuple[int, int, str] | None:
    """Write the relation names (``relations``, strongest first, each once), after the sign (``glyph``:
    ``+TRUSTS``), along the route's longest straight stretch, if it fits without covering another line or
    name; where only the bare name fits, that. Returns the label written, or None when the line is left
    unlabelled. The caller has the names and the sign already (the line's entry says them)."""
    names = ["/".join(relations)] + ([relations[0]] if len(relations) > 1 else [])
    texts = [glyph + name for name in names] + names
    segments = sorted(route.segments(), key=lambda s: -(abs(s[1][0] - s[0][0]) + abs(s[1][1] - s[0][1])))
    own: set[int] | None = None  # the line's own cells, once a spot on it meets a line
    first, last = route.cells[0][0], route.cells[-1][0]
    width, height, kind, counts = canvas.width, canvas.height, canvas.kind, canvas.line_count
    for text in texts:
        length = len(text)
        # On the line first (it reads as part of it), then beside it; beside, it covers no line at all.
        # The spots beside are only worked out once none on the line fits: most labels fit on it.
        for on_line in (True, False):
            for p, q in segments:
                if not on_line and p[1] == q[1] and p[0] != q[0]:
                    spot = _beside_row(canvas, p, q, length)
                    if spot is not None:
                        canvas.write(*spot, text, shared_style(style.fg, style.dim), EDGE_LABEL)
                        return *spot, text
                    continue
                for x, y in (_spots_on(p, q, length) if on_line else _spots_beside(p, q, length)):
                    # The label and a cell either side cover no name, no other label, no line's end and no
                    # other edge's line (written out here: a drawing tries about a thousand spots).
                    if x < 1 or x + length >= width or not 0 <= y < height:
                        continue
                    low = y * width + x - 1
                    high = low + length + 2
                    if kind.count(EMPTY, low, high) != high - low or low <= first < high or low <= last < high:
                        continue  # a name or a label there, or a line's end
                    lines = counts[low:high]
                    free = lines.count(0)
                    # No line at all (the common case, read in C); else, on its line, only its own cells.
                    if free != high - low:
                        if not on_line or free + lines.count(1) != high - low:
                            continue
                        if own is None:
                            own = {index for index, _ in route.cells}
                        if not _only_own(lines, low, own):
                            continue
                    canvas.write(x, y, text, shared_style(style.fg, style.dim), EDGE_LABEL)
                    return x, y, text
    return None


def _beside_row(canvas: Canvas, p: tuple[int, int], q: tuple[int, int], length: int) -> tuple[int, int] | None:
    """The first spot ``_spots_beside`` gives for a horizontal stretch where a label fits (see
    ``label_edge``), found without trying each in turn. Beside a line, a label and a cell either side may
    cover nothing at all (not even its own line, so no line's end either): in each of the rows above and
    below, the nearest start on either side of the middle where that many cells are free is a search in C;
    of those, the spot the spots would reach first (the nearer the middle, then the left one, then the row
    above)."""
    width, height, kind, counts = canvas.width, canvas.height, canvas.kind, canvas.line_count
    low, high = min(p[0], q[0]), max(p[0], q[0])
    half = length // 2
    middle = (low + high) // 2 - half
    first, last = max(1, low - half), min(width - length - 1, high - half)  # the starts on the canvas
    if first > last:
        return None
    free = bytes(length + 2)
    centre = min(max(middle, first), last) - first
    found: list[tuple[int, int, int]] = []
    for side, row in enumerate((p[1] - 1, p[1] + 1)):
        if not 0 <= row < height:
            continue
        # The cells any start covers, from the one before the first start's label: a start x is free
        # when the length + 2 cells from x - first are.
        start, stop = row * width + first - 1, row * width + last + length + 1
        taken = (int.from_bytes(kind[start:stop], "big")
                 | int.from_bytes(counts[start:stop], "big")).to_bytes(stop - start, "big")
        for at in (taken.rfind(free, 0, centre + length + 2), taken.find(free, centre)):
            if at != -1:
                x = first + at
                found.append((abs(x - middle), x, side))
    if not found:
        return None
    _distance, x, side = min(found)
    return x, p[1] - 1 + 2 * side


def _only_own(lines: bytearray, low: int, own: set[int]) -> bool:
    """Whether every cell with a line, in a label's cells from ``low`` (``lines``, at most one line each),
    is one of the labelled line's own: the cells with one are found in C, one by one."""
    found = lines.find(1)
    while found != -1:
        if low + found not in own:
            return False
        found = lines.find(1, found + 1)
    return True


def _outwards(middle: int, low: int, high: int) -> Iterator[int]:
    """``low`` to ``high`` (``middle`` among them) nearest ``middle`` first, the lower first on a tie: the
    order a sort by distance from the middle gives, without sorting a stretch's worth of spots."""
    yield middle
    for distance in range(1, max(middle - low, high - middle) + 1):
        if middle - distance >= low:
            yield middle - distance
        if middle + distance <= high:
            yield middle + distance


def _spots_on(p: tuple[int, int], q: tuple[int, int], length: int) -> Iterator[tuple[int, int]]:
    """Where a label may sit on one straight stretch, nearest its middle first: inside a horizontal one
    (with line on both sides) or across a vertical one."""
    if p[1] == q[1] and p[0] != q[0]:
        low, high = min(p[0], q[0]), max(p[0], q[0])
        if high - low + 1 >= length + 2:
            yield low + (high - low + 1 - length) // 2, p[1]
        return
    if p[0] != q[0]:
        return
    low, high = min(p[1], q[1]), max(p[1], q[1])
    if high - low >= 2:
        column = p[0] - length // 2
        for row in _outwards((low + high) // 2, low + 1, high - 1):
            yield column, row


def _spots_beside(p: tuple[int, int], q: tuple[int, int], length: int) -> Iterator[tuple[int, int]]:
    """Where a label may sit beside one straight stretch, nearest its middle first: just above or below a
    horizontal one, its middle over the line's, or beside a vertical one."""
    if p[1] == q[1] and p[0] != q[0]:
        low, high = min(p[0], q[0]), max(p[0], q[0])
        half = length // 2
        for x in _outwards((low + high) // 2 - half, low - half, high - half):
            yield x, p[1] - 1
            yield x, p[1] + 1
        return
    if p[0] != q[0]:
        return
    low, high = min(p[1], q[1]), max(p[1], q[1])
    column = p[0]
    for row in _outwards((low + high) // 2, low, high):
        yield column + 2, row
        yield column - length - 1, row
