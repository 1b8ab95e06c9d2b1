"""The relationship map: a pure renderer (no Textual) shared by the TUI and ``kith graph map``."""

from game.graph.map.canvas import Run
from game.graph.map.details import describe_node
from game.graph.map.draw import MapDrawing, render_map
from game.graph.map.layout import Position, compute_layout
from game.graph.map.style import EMPTY_TEXT, LEGEND, CellStyle
from game.graph.map.view import capacity, edge_open_at, focus_node

__all__ = [
    "EMPTY_TEXT",
    "LEGEND",
    "CellStyle",
    "MapDrawing",
    "Position",
    "Run",
    "capacity",
    "compute_layout",
    "describe_node",
    "edge_open_at",
    "focus_node",
    "render_map",
]
