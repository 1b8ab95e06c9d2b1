"""Colours, cell styles and the fixed words of the map, shared by every output form.

Styles are plain frozen values (hex colours and flags) so this package never needs Rich or Textual:
the TUI turns them into its own styles and the CLI into ANSI escapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from game.graph.models import NodeType
from game.graph.render import NEGATIVE_BELOW, POSITIVE_ABOVE

TYPE_COLOURS: dict[NodeType, str] = {"individual": "#60a5fa", "group": "#a78bfa", "faction": "#f59e0b"}
OTHER_COLOUR = "#9ca3af"
POSITIVE_COLOUR = "#22c55e"
NEGATIVE_COLOUR = "#ef4444"
NEUTRAL_COLOUR = "#94a3b8"
FOCUS_TEXT_COLOUR = "#111827"
"""Text on a selected node's filled label: dark on every type colour."""

BRACKETS: dict[NodeType, tuple[str, str]] = {"individual": ("(", ")"), "group": ("{", "}"), "faction": ("[", "]")}
OTHER_BRACKETS = ("<", ">")

LEGEND = "+ positive  - negative  · neutral"
"""Each line's sign is a glyph (on its label, or on the line) as well as a colour: for colour-blind
players and plain output alike. Short enough to stay on one line in a narrow map pane."""
SHORT_LEGEND = "+pos -neg ·neutral"
"""The legend where the full one does not fit; narrower still, there is none rather than a wrapped one."""
EMPTY_TEXT = "No character or faction relationships yet. They will appear as the story continues."


@dataclass(frozen=True, slots=True)
class CellStyle:
    """How one run of cells looks. Colours are ``#rrggbb`` or None for the terminal's default."""

    fg: str | None = None
    bg: str | None = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    reverse: bool = False

    def sgr(self) -> str:
        """The ANSI "select graphic rendition" sequence for this style ('' for the default style)."""
        codes: list[str] = []
        if self.bold:
            codes.append("1")
        if self.dim:
            codes.append("2")
        if self.italic:
            codes.append("3")
        if self.reverse:
            codes.append("7")
        if self.fg:
            codes.append("38;2;{};{};{}".format(*hex_rgb(self.fg)))
        if self.bg:
            codes.append("48;2;{};{};{}".format(*hex_rgb(self.bg)))
        return f"\x1b[{';'.join(codes)}m" if codes else ""


PLAIN = CellStyle()


def hex_rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def type_colour(node_type: NodeType) -> str:
    return TYPE_COLOURS.get(node_type, OTHER_COLOUR)


def type_brackets(node_type: NodeType) -> tuple[str, str]:
    return BRACKETS.get(node_type, OTHER_BRACKETS)


@lru_cache(maxsize=256)
def shared_style(fg: str | None, dim: bool = False, bold: bool = False) -> CellStyle:
    """The style of a line, a label or a sign, made once per look: styles are immutable values, a drawing
    asks for a few hundred of them and making a frozen one costs several times looking it up."""
    return CellStyle(fg=fg, dim=dim, bold=bold)


def sign_glyph(strength: float) -> str:
    """``+``, ``-`` or ``·``: the sign a line's colour shows, as a character (the narrator's ``[+]`` marks)."""
    if strength > POSITIVE_ABOVE:
        return "+"
    if strength < NEGATIVE_BELOW:
        return "-"
    return "·"


def sign_colour(strength: float) -> str:
    """Green, red or gray by the same thresholds as the ``[+]``/``[-]``/``[·]`` marks the narrator reads."""
    if strength > POSITIVE_ABOVE:
        return POSITIVE_COLOUR
    if strength < NEGATIVE_BELOW:
        return NEGATIVE_COLOUR
    return NEUTRAL_COLOUR


def _legend_runs(positive: str, negative: str, neutral: str, gap: str) -> tuple[tuple[str, CellStyle], ...]:
    return (
        (positive, CellStyle(fg=POSITIVE_COLOUR, bold=True)), (gap, PLAIN),
        (negative, CellStyle(fg=NEGATIVE_COLOUR, bold=True)), (gap, PLAIN),
        (neutral, CellStyle(fg=NEUTRAL_COLOUR, bold=True)),
    )


LEGEND_RUNS = _legend_runs("+ positive", "- negative", "· neutral", "  ")
SHORT_LEGEND_RUNS = _legend_runs("+pos", "-neg", "·neutral", " ")
