"""The selected node's details under the map: summary, labels, aliases, relations with facts, history."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from game.graph.map import describe_node
from game.graph.models import Edge, Node


class NodeDetails(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    NodeDetails {
        height: 45%;
        min-height: 5;
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

    def compose(self) -> ComposeResult:
        yield Markdown("")

    def show(self, node: Node | None, nodes: Sequence[Node], edges: Sequence[Edge], at_turn: int | None) -> None:
        self.set_class(node is not None, "-shown")
        text = describe_node(node, nodes, edges, at_turn) if node is not None else ""
        self.query_one(Markdown).update(text)
        self.scroll_home(animate=False)

    @property
    def text(self) -> str:
        return self.query_one(Markdown).source
