"""The command palette's list of people: "Focus a character" picks someone on the map by name.

Out of ``app.py`` so the app does not grow; the names and summaries are the graph's, which a model may
write, and the palette reads markup in whatever it is given, so they are escaped (``game.ui.plain``).
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.command import SimpleCommand

from game.ui.map_pane import MapPane
from game.ui.plain import escaped


def focus_character(app: App[Any], pane: MapPane) -> None:
    """Offer everyone on the map; the one chosen is selected, the map shown and focused."""
    if not pane.filled:
        return  # a key pressed before the map was mounted (just after the first frame)
    graph = pane.map
    if not graph.nodes:
        app.notify("Nobody is on the map yet.", title="Map")
        return

    def focus(node_id: str) -> None:
        pane.remove_class("-hidden")
        graph.select(node_id)
        graph.focus()

    commands = [SimpleCommand(escaped(node.name), (lambda node_id=node.id: focus(node_id)), escaped(node.summary))
                for node in sorted(graph.nodes, key=lambda n: n.name.casefold())]
    app.search_commands(commands, placeholder="Focus on…")
