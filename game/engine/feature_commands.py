"""The features' meta commands in play: each handler gets a ``CommandReach``, never the session.

The reach is the four things a feature's command may use (the turn, the feature's own state, the people
the player knows, one undoable change); the change is written here, in the core's way for a change within a turn: its rows and
an undo step in ONE transaction, journaled at the current turn (at turn 0 there is no turn to undo, and
the undo step alone takes it back), then the game read back so the game in play follows the store.

A feature that declares ``changes_graph`` gets a ``GraphReach`` (``GraphFeatureReach``): the graph, the
player's names, and graph writes kept as a turn of their own. The reach only records that turn
(``kept``); ``meta_commands.run`` commits it through the pipeline's one commit with the command's reply.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from game.engine.command_context import KeptTurn
from game.engine.known_names import person as known_node
from game.engine.player_view import known_ids
from game.features.feature import TierChange
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.graph.vocabulary import Vocabulary
from game.store import undo_steps
from game.store.database import SaveDatabase
from game.store.rows import RowWrite, Scalar, write_rows

if TYPE_CHECKING:
    from game.engine.command_context import GameView


class FeatureReach:
    """Implements ``game.features.feature.CommandReach`` for one feature of an open game."""

    def __init__(self, db: SaveDatabase, turn: int, state: Any, reload: Callable[[], Awaitable[None]],
                 person: Callable[[str], Awaitable[Node]]) -> None:
        self._db = db
        self._turn = turn
        self._state = state
        self._reload = reload
        self._person = person
        self.kept: KeptTurn | None = None
        """The turn the command keeps (``GraphReach.keep_as_turn``), committed once it returns."""

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def state(self) -> Any:
        return self._state

    async def person(self, name: str) -> Node:
        return await self._person(name)

    async def change(self, rows: Sequence[RowWrite], undo_kind: str, undo_data: Mapping[str, Scalar]) -> None:
        async with self._db.transaction() as conn:
            seq = await undo_steps.next_seq(conn)
            step = undo_steps.step_row(seq, self._turn, undo_kind, undo_data)
            await write_rows(conn, self._turn, [*rows, step], journal_it=self._turn > 0)
        await self._reload()


class GraphFeatureReach(FeatureReach):
    """Implements ``game.features.feature.GraphReach``: the reach of a feature that ``changes_graph``."""

    def __init__(self, db: SaveDatabase, game: GameView, state: Any, reload: Callable[[], Awaitable[None]],
                 person: Callable[[str], Awaitable[Node]]) -> None:
        super().__init__(db, game.turn, state, reload, person)
        self._game = game

    @property
    def graph(self) -> GraphIndex:
        return self._game.graph

    @property
    def vocabulary(self) -> Vocabulary:
        return self._game.vocabulary

    @property
    def seed(self) -> int:
        return self._game.settings.seed

    @property
    def known(self) -> frozenset[str] | None:
        known = known_ids(self._game.scene, self._game.graph)
        return None if known is None else frozenset(known)

    async def named(self, name: str) -> Node:
        return await known_node(self._game, name)

    def keep_as_turn(self, text: str, writes: GraphWrites, rows: Sequence[RowWrite] = (),
                     tiers: Sequence[TierChange] = ()) -> None:
        self.kept = KeptTurn(text, writes, tuple(rows), tuple(tiers))
