"""The features' meta commands in play: each handler gets a ``CommandReach``, never the session.

The reach is the three things a feature's command may use (the turn, the feature's own state, one
undoable change); the change is written here, in the core's way for a change within a turn: its rows and
an undo step in ONE transaction, journaled at the current turn (at turn 0 there is no turn to undo, and
the undo step alone takes it back), then the game read back so memory follows the store.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from game.store import undo_steps
from game.store.database import SaveDatabase
from game.store.rows import RowWrite, Scalar, write_rows


class FeatureReach:
    """Implements ``game.features.feature.CommandReach`` for one feature of an open game."""

    def __init__(self, db: SaveDatabase, turn: int, state: Any, reload: Callable[[], Awaitable[None]]) -> None:
        self._db = db
        self._turn = turn
        self._state = state
        self._reload = reload

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def state(self) -> Any:
        return self._state

    async def change(self, rows: Sequence[RowWrite], undo_kind: str, undo_data: Mapping[str, Scalar]) -> None:
        async with self._db.transaction() as conn:
            seq = await undo_steps.next_seq(conn)
            step = undo_steps.step_row(seq, self._turn, undo_kind, undo_data)
            await write_rows(conn, self._turn, [*rows, step], journal_it=self._turn > 0)
        await self._reload()
