"""The selected node's details under the map: summary, labels, aliases, relations with facts, history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll

if TYPE_CHECKING:
    from game.graph.models import Edge, Node


class NodeDetails(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    NodeDetails {
        height: 45%;
        min-height: 5;
        max-height: 12;
        border-top: solid $secondary;
        padding: 0 1;
        display: none;
    }
    NodeDetails.-shown {
        display: block;
    }
    NodeDetails > Markdown {
        margin: 0;
        padding: 0;
        background: transparent;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = ""

    def show(self, node: Node | None, nodes: Sequence[Node], edges: Sequence[Edge], at_turn: int | None) -> None:
        self.set_class(node is not None, "-shown")
        if node is None:
            self._text = ""
            return
        # Imported on first use, so the first frame never waits for Markdown or the renderer.
        from textual.widgets import Markdown

        from game.graph.map import describe_node

        self._text = describe_node(node, nodes, edges, at_turn)
        shown = self.query(Markdown)
        if shown:
            shown.first().update(self._text)
        else:
            self.mount(Markdown(self._text))
        self.scroll_home(animate=False)

    @property
    def text(self) -> str:
        """The Markdown shown (empty when nothing is selected)."""
        return self._text
