"""The relationship map pane: a thin shell over the pure renderer in ``game.graph.map``.

The widget keeps the graph, the positions and the view settings (selection, zoom, closed versions,
turn shown); drawing is ``render_map`` into the widget's size, cached until one of those changes.
Layout (the slow part) is not done here: the app computes positions off the UI thread and hands them in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    from game.graph.map import CellStyle, MapDrawing, Position
    from game.graph.models import Edge, Node

ZOOM_STEPS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)


MAP_KEYS = frozenset("+=-cv")
"""The printable keys the map binds (zoom, ended relations, views); every other letter is typing for the
story. A test holds this to the bindings, so a new map key cannot be taken from the map by the input."""


class RelationshipMap(Widget, can_focus=True):
    """Who is what to whom. Tab selects the next name, a click selects the one under the pointer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "select_next", "Next name", show=False),
        Binding("shift+tab", "select_previous", "Previous name", show=False),
        Binding("plus,equals_sign", "zoom_in", "Zoom in"),
        Binding("minus", "zoom_out", "Zoom out"),
        Binding("c", "toggle_closed", "Ended relations"),
        Binding("v", "next_view", "Switch view"),
        Binding("escape", "leave", "Back to story", show=False),
    ]

    DEFAULT_CSS = """
    RelationshipMap {
        height: 1fr;
        min-height: 10;
    }
    RelationshipMap:focus {
        background-tint: $foreground 4%;
    }
    """

    class Selected(Message):
        """A name was selected (``node_id``) or the selection cleared (None)."""

        def __init__(self, node_id: str | None) -> None:
            super().__init__()
            self.node_id = node_id

    class ViewChanged(Message):
        """The player switched views (``v``)."""

    class Leave(Message):
        """The player pressed Esc on the map: focus goes back to the input line."""

    selected: reactive[str | None] = reactive(None, init=False)
    zoom: reactive[float] = reactive(1.0, init=False)
    show_closed: reactive[bool] = reactive(False, init=False)
    at_turn: reactive[int | None] = reactive(None, init=False)
    view: reactive[str] = reactive("scene", init=False)
    """Which of the map's views (``game.graph.map.view.VIEWS``) is drawn; ``v`` switches."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        self.positions: dict[str, Position] = {}
        self.stage: list[str] = []
        """IDs of the people on stage: the scene view's centre."""
        self._drawing: MapDrawing | None = None
        self._drawn_for: tuple[object, ...] | None = None
        self._styles: dict[CellStyle, Style] = {}
        self._failed_for: object = None

    # ------------------------------------------------------------------------------ data in

    def set_graph(self, nodes: Sequence[Node], edges: Sequence[Edge], positions: Mapping[str, Position],
                  stage: Sequence[str] = ()) -> None:
        """New graph, positions and the names on stage (after a committed turn, an undo, a load)."""
        from game.graph.names import resolve_name

        self.nodes = list(nodes)
        self.edges = list(edges)
        self.positions = {node.id: positions[node.id] for node in self.nodes if node.id in positions}
        matches = [resolve_name(name, self.nodes, by_id=True) for name in stage]
        self.stage = [m.node.id for m in matches if m.node is not None and not m.ambiguous]
        if self.selected is not None and self.selected not in {n.id for n in self.nodes}:
            self.selected = None
        self._invalidate()

    def select(self, node_id: str | None) -> None:
        self.selected = node_id

    @property
    def drawing(self) -> MapDrawing:
        """The drawing for the current size and view (drawn now if anything changed)."""
        key = (self.size.width, self.size.height, self.selected, self.zoom, self.show_closed, self.at_turn,
               self.view, id(self.nodes), id(self.edges), id(self.positions))
        if self._drawing is None or self._drawn_for != key:
            from game.graph.map import render_map

            self._drawing = render_map(
                self.nodes, self.edges, max(1, self.size.width), max(1, self.size.height),
                positions=self.positions, focus=self._focus_id(), show_closed=self.show_closed,
                at_turn=self.at_turn, zoom=self.zoom, view=self.view, stage=self.stage,
            )
            self._drawn_for = key
        return self._drawing

    def _focus_id(self) -> str | None:
        return self.selected if self.selected in {n.id for n in self._present()} else None

    def _present(self) -> list[Node]:
        return [n for n in self.nodes if self.at_turn is None or n.first_seen_turn <= self.at_turn]

    def _invalidate(self) -> None:
        self._drawing = None
        self.refresh()

    def watch_selected(self, node_id: str | None) -> None:
        self._invalidate()
        self.post_message(self.Selected(node_id))

    def watch_zoom(self) -> None:
        self._invalidate()

    def watch_show_closed(self) -> None:
        self._invalidate()

    def watch_at_turn(self) -> None:
        self._invalidate()

    def watch_view(self) -> None:
        self._invalidate()
        self.post_message(self.ViewChanged())

    def on_resize(self, event: events.Resize) -> None:
        self._invalidate()

    # ------------------------------------------------------------------------------ drawing out

    def render_line(self, y: int) -> Strip:
        if not self.nodes and self._drawing is None:
            # No game open yet: nothing to draw, and no reason to load the renderer for the first frame.
            return Strip.blank(self.size.width, self.rich_style)
        try:
            drawing = self.drawing
        except Exception as error:  # a bug in drawing must cost the map, never the game
            self._report_once(error)
            return Strip.blank(self.size.width, self.rich_style)
        if y >= len(drawing.rows):
            return Strip.blank(self.size.width, self.rich_style)
        base = self.rich_style
        segments = [Segment(run.text, base + self._style(run.style)) for run in drawing.rows[y]]
        return Strip(segments, self.size.width)

    def _report_once(self, error: Exception) -> None:
        key = (self.size, self.selected, self.zoom, self.show_closed, self.at_turn, len(self.nodes))
        if self._failed_for != key:
            self._failed_for = key
            self.log.error(f"map drawing failed: {error!r}")
            self.notify(f"The map could not be drawn ({type(error).__name__}: {error}). The game goes on.",
                        title="Map", severity="error")

    def _style(self, style: CellStyle) -> Style:
        found = self._styles.get(style)
        if found is None:
            found = Style(color=style.fg, bgcolor=style.bg, bold=style.bold or None, dim=style.dim or None,
                          italic=style.italic or None, reverse=style.reverse or None)
            self._styles[style] = found
        return found

    # ------------------------------------------------------------------------------ interaction

    def on_key(self, event: events.Key) -> None:
        """A letter typed while the map has focus is meant for the story: it goes to the input line, and
        the input keeps the focus, rather than being silently dropped. The map's own keys stay the map's."""
        if not event.is_printable or not event.character or event.character in MAP_KEYS:
            return
        from game.ui.command_input import CommandInput

        found = self.app.query(CommandInput)
        if not found:
            return
        found.first().type_ahead(event.character)
        event.stop()
        event.prevent_default()

    def on_click(self, event: events.Click) -> None:
        node_id = self.drawing.node_at(event.x, event.y)
        if node_id is not None:
            self.selected = node_id
            self.focus()

    def _cycle(self, step: int) -> None:
        present = sorted(self._present(), key=lambda n: (n.name.casefold(), n.id))
        if not present:
            return
        ids = [n.id for n in present]
        if self.selected in ids:
            index = (ids.index(self.selected) + step) % len(ids)
        else:
            index = 0 if step > 0 else len(ids) - 1
        self.selected = ids[index]

    def action_select_next(self) -> None:
        self._cycle(1)

    def action_select_previous(self) -> None:
        self._cycle(-1)

    def action_zoom_in(self) -> None:
        larger = [step for step in ZOOM_STEPS if step > self.zoom]
        if larger:
            self.zoom = larger[0]

    def action_zoom_out(self) -> None:
        smaller = [step for step in ZOOM_STEPS if step < self.zoom]
        if smaller:
            self.zoom = smaller[-1]

    def action_toggle_closed(self) -> None:
        self.show_closed = not self.show_closed

    def action_next_view(self) -> None:
        """Scene, then the selected person, then everyone, then the scene again."""
        from game.graph.map.view import VIEWS

        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)] if self.view in VIEWS else VIEWS[0]

    def action_leave(self) -> None:
        if self.selected is not None:
            self.selected = None
        else:
            self.post_message(self.Leave())

