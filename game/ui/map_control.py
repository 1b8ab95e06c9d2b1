"""``MapControl``: the app's glue to the map pane (``game.ui.map_pane``): what is drawn after a turn, the
history read when the map shows the past, the pane folded on a narrow terminal, shown, hidden and resized,
the palette's "Focus a character" and "Time travel".

It owns the node positions laid out so far (a person keeps their place between turns), whether the map
holds every edge version, and whether the pane was folded for a narrow terminal rather than hidden by the
player. Layout runs in a thread; the widgets are touched only on the event loop.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from game.ui.map_pane import FOLD_BELOW, WIDTH_STEP

if TYPE_CHECKING:
    from game.engine.session import GameSession
    from game.graph.map import Position
    from game.ui.host import Host
    from game.ui.screens.time_travel import TurnChoice


class MapControl:
    """What the map shows of the open game, and the pane's place on the screen."""

    def __init__(self, app: Host) -> None:
        self._app = app
        self._positions: dict[str, Position] = {}
        self._history_drawn = False
        """Whether the map holds every edge version (from the save) rather than the open ones (the graph index)."""
        self._folded = False
        """Whether the map was folded away because the terminal is too narrow (not hidden by the player)."""

    def watch_history(self) -> None:
        """Once the map is mounted: showing ended relations, the past or a name's history reads them in."""
        graph = self._app.map_pane.map
        for attribute in ("show_closed", "at_turn", "selected"):
            self._app.watch(graph, attribute, self._history_wanted, init=False)

    async def open(self, session: GameSession) -> None:
        """A game opened: its saved layout, the map at the present, nobody selected."""
        self._positions = await session.map_layout()
        graph = self._app.map_pane.map
        graph.at_turn = None
        graph.select(None)

    def _needs_history(self) -> bool:
        """Ended relations, the past and a name's history need every version of every edge."""
        graph = self._app.map_pane.map
        return graph.show_closed or graph.at_turn is not None or graph.selected is not None

    async def refresh(self) -> None:
        """Draw the graph and lay out any newcomer off the UI thread.

        The session holds the current graph as its graph index, so the map after a turn costs no reads; every
        version is read from the save only while the map or the details show history."""
        session = self._app.session
        if session is None:
            return
        from game.engine.player_view import player_map
        from game.graph.map import compute_layout

        self._history_drawn = self._needs_history()
        drawn = await player_map(session, history=self._history_drawn, at_turn=self._app.map_pane.map.at_turn)
        new = [node.id for node in drawn.nodes if node.id not in self._positions]
        if new:
            # Laid out whole, so a person keeps the place they will have once the player learns of them.
            laid_out = await asyncio.to_thread(compute_layout, drawn.nodes, drawn.edges, self._positions)
            await session.save_map_layout({node_id: laid_out[node_id] for node_id in new})
            self._positions.update(laid_out)
        # Drawn: only what the player knows, the people met or heard of and the relations learned, as revealed.
        self._app.map_pane.set_graph(drawn.shown_nodes, drawn.shown_edges, self._positions, drawn.stage)

    def _history_wanted(self) -> None:
        if self._app.session is not None and self._needs_history() and not self._history_drawn:
            self._app.run_worker(self._app.refresh_map, name="load_history", group="history", exclusive=True,
                                 exit_on_error=False)

    def resized(self, width: int) -> None:
        """Below ``FOLD_BELOW`` columns the map folds away so the story keeps the screen; F2 brings it back.
        Widening again unfolds a map that was folded, never one the player hid."""
        narrow = width < FOLD_BELOW
        pane = self._app.map_pane
        if narrow and not self._folded and not pane.has_class("-hidden"):
            self._folded = True
            pane.add_class("-hidden")
            self._app.notify("The terminal is narrow, so the map is folded away. F2 brings it back.", title="Map")
        elif not narrow and self._folded:
            self._folded = False
            pane.remove_class("-hidden")

    def toggle(self) -> None:
        pane = self._app.map_pane
        self._folded = False
        pane.toggle_class("-hidden")
        if pane.has_class("-hidden") and pane.has_focus_within:
            self._app.command.focus()

    def resize(self, direction: int, available: int) -> None:
        pane = self._app.map_pane
        pane.remove_class("-hidden")
        pane.resize_by(direction * WIDTH_STEP, available)

    def toggle_closed(self) -> None:
        if not self._app.map_pane.filled:
            return  # a key pressed before the map was mounted (just after the first frame)
        graph = self._app.map_pane.map
        graph.show_closed = not graph.show_closed
        self._app.notify("Ended relations are shown, dashed." if graph.show_closed else "Ended relations are hidden.",
                         title="Map")

    def choose_turn(self, session: GameSession) -> None:
        """Time travel: the turns so far in a list; the map shows the one chosen."""
        self._app.run_worker(self._choose_turn(session), name="choose_turn", group="dialog", exclusive=True,
                             exit_on_error=False)

    async def _choose_turn(self, session: GameSession) -> None:
        turns = [(record.number, record.input) for record in await session.turns()]

        def chosen(choice: TurnChoice | None) -> None:
            if choice is not None:
                self.travel(choice.turn)

        from game.ui.screens.time_travel import TimeTravelScreen

        self._app.push_screen(TimeTravelScreen([(0, ""), *turns], session.turn), chosen)

    def travel(self, turn: int | None) -> None:
        """The map as it stood at ``turn`` (None: now)."""
        pane = self._app.map_pane
        pane.map.at_turn = turn
        self._app.status.map_turn = turn
        # Drawn again whatever was drawn before: that turn's stage, and every version of the graph.
        self._app.run_worker(self._app.refresh_map, name="load_history", group="history", exclusive=True,
                             exit_on_error=False)
        pane.remove_class("-hidden")
        pane.refresh_details()
