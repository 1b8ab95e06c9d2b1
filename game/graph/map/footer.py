"""The rows under a map's list: the legend (never wrapped: the short one where the full one does not
fit, none below that) and the notes (the turn shown, what is not drawn, zoom), word-wrapped with their
styles; and a styled row padded to the pane's width, as the canvas's rows are."""

from __future__ import annotations

from collections.abc import Sequence

from game.graph.map.canvas import Run
from game.graph.map.style import LEGEND_RUNS, PLAIN, SHORT_LEGEND_RUNS, CellStyle

NOTE_STYLE = CellStyle(dim=True)


def padded(row: Sequence[tuple[str, CellStyle]], width: int) -> list[Run]:
    """A footer row as runs exactly ``width`` cells wide, as the canvas's rows are."""
    runs: list[Run] = []
    used = 0
    for text, style in row:
        text = text[: width - used]
        if text:
            runs.append(Run(text, style))
            used += len(text)
    if used < width:
        runs.append(Run(" " * (width - used), PLAIN))
    return runs


def footer_rows(width: int, notes: Sequence[str], legend: bool = True) -> list[list[tuple[str, CellStyle]]]:
    # The legend is never wrapped: the short one where the full one does not fit, none below that.
    legend_runs = (LEGEND_RUNS, SHORT_LEGEND_RUNS) if legend else ()
    key = next((runs for runs in legend_runs if sum(len(t) for t, _ in runs) <= width), ())
    rows = [list(key)] if key else []
    if notes:
        rows += wrap_runs([(" · ".join(notes), NOTE_STYLE)], width)
    return rows


def wrap_runs(runs: list[tuple[str, CellStyle]], width: int) -> list[list[tuple[str, CellStyle]]]:
    """Word-wrap styled text to ``width`` columns, keeping each word's style."""
    words: list[tuple[str, CellStyle]] = []
    for text, style in runs:
        for index, word in enumerate(text.split(" ")):
            if index:
                words.append((" ", style))
            if word:
                words.append((word, style))
    rows: list[list[tuple[str, CellStyle]]] = [[]]
    used = 0
    for word, style in words:
        if word == " ":
            if used and used < width:
                rows[-1].append((word, style))
                used += 1
            continue
        if used + len(word) > width and used:
            while rows[-1] and not rows[-1][-1][0].strip():
                rows[-1].pop()
            rows.append([])
            used = 0
        rows[-1].append((word[:width], style))
        used += min(len(word), width)
    return [row for row in rows if row]


def wrap_text(text: str, width: int) -> list[str]:
    return ["".join(t for t, _ in row) for row in wrap_runs([(text, PLAIN)], width)]
