"""The right-hand pane: the map, and the selected node's details below it.

The pane's frame is drawn in the first frame; its contents are mounted by ``fill`` just after it (the app
does so before the game opens), so the map's widgets, their CSS and their first render do not delay the
screen (issue 15). Until then ``filled`` is False and the app leaves the map alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, cast

from textual.containers import Vertical

if TYPE_CHECKING:
    from game.graph.map import Position
    from game.graph.models import Edge, Node
    from game.ui.node_details import NodeDetails
    from game.ui.relationship_map import RelationshipMap

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
        self.border_subtitle = "Tab select · v view · +/- zoom · c ended"
        self._filled: asyncio.Event | None = None
        """Set once the map and the details are mounted; None until ``fill`` is first called."""

    async def fill(self) -> bool:
        """Mount the map and the details (once; a second caller waits for the first). False when the pane
        has left the screen already: an app may close in its first frame."""
        if self._filled is not None:
            await self._filled.wait()
            return True
        if not self.is_attached:
            return False
        self._filled = asyncio.Event()
        from game.ui.node_details import NodeDetails
        from game.ui.relationship_map import RelationshipMap

        await self.mount(RelationshipMap(id="map"), NodeDetails(id="details"))
        self._filled.set()
        return True

    @property
    def filled(self) -> bool:
        """Whether ``map`` and ``details`` exist yet (they are mounted just after the first frame)."""
        return self._filled is not None and self._filled.is_set()

    @property
    def map(self) -> RelationshipMap:
        return cast("RelationshipMap", self.query_one("#map"))

    @property
    def details(self) -> NodeDetails:
        return cast("NodeDetails", self.query_one("#details"))

    def set_graph(self, nodes: Sequence[Node], edges: Sequence[Edge], positions: Mapping[str, Position],
                  stage: Sequence[str] = ()) -> None:
        self.map.set_graph(nodes, edges, positions, stage)
        self._show_details(self.map.selected)

    def on_relationship_map_selected(self, message: RelationshipMap.Selected) -> None:
        self._show_details(message.node_id)

    def on_relationship_map_view_changed(self, message: RelationshipMap.ViewChanged) -> None:
        self._show_details(self.map.selected)  # the title names the view

    def _show_details(self, node_id: str | None) -> None:
        graph = self.map
        node = next((n for n in graph.nodes if n.id == node_id), None)
        self.details.show(node, graph.nodes, graph.edges, graph.at_turn)
        title = "Relationships"
        if graph.at_turn is not None:
            title += f" · as of turn {graph.at_turn}"
        if graph.view != "scene":  # the default view goes unnamed; the others say which they are
            title += f" · {graph.view}"
        self.border_title = title

    def refresh_details(self) -> None:
        self._show_details(self.map.selected)

    def resize_by(self, columns: int, available: int) -> None:
        """Widen (positive) or narrow the pane, keeping the story at least 60% of the screen."""
        current = self.outer_size.width or 48
        width = int(max(MIN_WIDTH, min(int(available * MAP_SHARE), current + columns)))
        self.styles.width = width
