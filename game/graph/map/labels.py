"""A line's words on the drawing: its relation written along it (``+TRUSTS``), or at least its sign as a
glyph on a cell of its own, each kept clear of names, other labels and other lines."""

from __future__ import annotations

from collections.abc import Sequence

from game.graph.map.canvas import EDGE_LABEL, EMPTY, Canvas
from game.graph.map.route import ARROWS, Route
from game.graph.map.style import CellStyle, sign_glyph
from game.graph.models import Edge


def lead_of(versions: Sequence[Edge]) -> Edge:
    """The relation a line's colour and sign stand for: the strongest, the newest on a tie."""
    return max(versions, key=lambda e: (abs(e.strength), e.valid_at))


def mark_sign(canvas: Canvas, route: Route, versions: Sequence[Edge], style: CellStyle) -> bool:
    """An unlabelled line still shows its sign: the glyph on the cell nearest its middle that is this
    line's alone (not a crossing, a corner shared with another line, an arrow or a name). An end without
    an arrowhead counts too, so a line only two cells long (one end an arrow) still shows its sign."""
    inner = [index for index, _mask in route.cells[1:-1]]
    middle = len(inner) // 2
    arrows = set(ARROWS.values())
    ends = [index for index, _mask in (route.cells[0], route.cells[-1]) if canvas.chars[index] not in arrows]
    for index in [index for _distance, index in sorted((abs(order - middle), index)
                                                         for order, index in enumerate(inner))] + ends:
        if canvas.kind[index] == EMPTY and canvas.line_count[index] == 1:
            canvas.set_cell(index, sign_glyph(lead_of(versions).strength), CellStyle(fg=style.fg, dim=style.dim,
                                                                                  bold=True))
            canvas.kind[index] = EDGE_LABEL
            return True
    return False  # no cell of its own to spare (a one-cell line is all arrowhead): the list says it


def label_edge(canvas: Canvas, route: Route, versions: Sequence[Edge],
                style: CellStyle) -> tuple[int, int, str] | None:
    """Write the relation name, after its sign (``+TRUSTS``), along the route's longest straight stretch,
    if it fits without covering another line or name; where only the bare name fits, that. Returns the
    label written, or None when the line is left unlabelled."""
    relations: list[str] = []
    for edge in sorted(versions, key=lambda e: -abs(e.strength)):
        if edge.relation not in relations:
            relations.append(edge.relation)
    glyph = sign_glyph(lead_of(versions).strength)
    names = ["/".join(relations)] + ([relations[0]] if len(relations) > 1 else [])
    texts = [glyph + name for name in names] + names
    segments = sorted(route.segments(), key=lambda s: -(abs(s[1][0] - s[0][0]) + abs(s[1][1] - s[0][1])))
    own = {index for index, _ in route.cells}
    ends = {route.cells[0][0], route.cells[-1][0]}
    spots: dict[int, list[list[tuple[int, int, bool]]]] = {}
    beside: set[int] = set()
    for text in texts:
        length = len(text)
        if length not in spots:  # the sign-less names may share a length with a signed one
            spots[length] = [_label_spots(p, q, length) for p, q in segments]
        # On the line first (it reads as part of it), then beside it; beside, it covers no line at all.
        for on_line in (True, False):
            for stretch in spots[length]:
                for x, y, across in stretch:
                    if across == on_line and _label_fits(canvas, x, y, length, own if across else beside, ends):
                        canvas.write(x, y, text, CellStyle(fg=style.fg, dim=style.dim), EDGE_LABEL)
                        return x, y, text
    return None


def _label_spots(p: tuple[int, int], q: tuple[int, int], length: int) -> list[tuple[int, int, bool]]:
    """Where a label may go on one straight stretch, nearest its middle first, each with whether it sits
    on the line: inside a horizontal one (with line on both sides) or across a vertical one; else just
    above or below a horizontal one, or beside a vertical one."""
    if p[1] == q[1] and p[0] != q[0]:
        low, high = min(p[0], q[0]), max(p[0], q[0])
        inside = [(low + (high - low + 1 - length) // 2, p[1], True)] if high - low + 1 >= length + 2 else []
        # Else just above or below the stretch, its middle over the line's (nearest the middle first).
        middle = (low + high) // 2
        starts = sorted(range(low - length // 2, high - length // 2 + 1), key=lambda x: abs(x + length // 2 - middle))
        return inside + [(x, p[1] + side, False) for x in starts for side in (-1, 1)]
    if p[0] != q[0]:
        return []
    low, high = min(p[1], q[1]), max(p[1], q[1])
    middle = (low + high) // 2
    column = p[0]
    across = sorted(range(low + 1, high), key=lambda row: (abs(row - middle), row))
    beside = sorted(range(low, high + 1), key=lambda row: (abs(row - middle), row))
    return ([(column - length // 2, row, True) for row in across]
            + [(x, row, False) for row in beside for x in (column + 2, column - length - 1)])


def _label_fits(canvas: Canvas, x: int, y: int, length: int, own: set[int], ends: set[int]) -> bool:
    """The label and a cell either side cover no name, no other label and no other edge's line."""
    if x < 1 or x + length >= canvas.width or not 0 <= y < canvas.height:
        return False
    base = y * canvas.width
    low, high = base + x - 1, base + x + length + 1
    if canvas.kind.count(EMPTY, low, high) != high - low:
        return False  # a name or a label there
    for end in ends:
        if low <= end < high:
            return False  # a line's end
    if canvas.line_count.count(0, low, high) == high - low:
        return True  # no line at all: the common case, read in C
    for index in range(low, high):
        if canvas.kind[index] != EMPTY or index in ends:
            return False
        if canvas.line_count[index] > (1 if index in own else 0):
            return False
    return True
