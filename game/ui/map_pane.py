"""The right-hand pane: the map, and the selected node's details below it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical

from game.ui.node_details import NodeDetails
from game.ui.relationship_map import RelationshipMap

if TYPE_CHECKING:
    from game.graph.map import Position
    from game.graph.models import Edge, Node

WIDTH_STEP = 6
MIN_WIDTH = 24
MAP_SHARE = 0.4
"""The most of the screen's width the map may take: the story keeps at least 60% at every size."""
FOLD_BELOW = int(MIN_WIDTH / MAP_SHARE)
"""Below this many columns a map of ``MIN_WIDTH`` would squeeze the story: the map folds away (F2 brings it back)."""


class MapPane(Vertical):
    DEFAULT_CSS = """
    MapPane {
        width: 48;
        max-width: 40%;
        border: round $secondary;
        border-title-color: $text;
        border-subtitle-color: $text-muted;
    }
    MapPane:focus-within {
        border: round $accent;
    }
    MapPane.-hidden {
        display: none;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Relationships"
        self.border_subtitle = "Tab select · +/- zoom · c ended"

    def compose(self) -> ComposeResult:
        yield RelationshipMap(id="map")
        yield NodeDetails(id="details")

    @property
    def map(self) -> RelationshipMap:
        return self.query_one(RelationshipMap)

    @property
    def details(self) -> NodeDetails:
        return self.query_one(NodeDetails)

    def set_graph(self, nodes: Sequence[Node], edges: Sequence[Edge], positions: Mapping[str, Position]) -> None:
        self.map.set_graph(nodes, edges, positions)
        self._show_details(self.map.selected)

    def on_relationship_map_selected(self, message: RelationshipMap.Selected) -> None:
        self._show_details(message.node_id)

    def _show_details(self, node_id: str | None) -> None:
        graph = self.map
        node = next((n for n in graph.nodes if n.id == node_id), None)
        self.details.show(node, graph.nodes, graph.edges, graph.at_turn)
        title = "Relationships"
        if graph.at_turn is not None:
            title += f" · as of turn {graph.at_turn}"
        self.border_title = title

    def refresh_details(self) -> None:
        self._show_details(self.map.selected)

    def resize_by(self, columns: int, available: int) -> None:
        """Widen (positive) or narrow the pane, keeping the story at least 60% of the screen."""
        current = self.outer_size.width or 48
        width = int(max(MIN_WIDTH, min(int(available * MAP_SHARE), current + columns)))
        self.styles.width = width
