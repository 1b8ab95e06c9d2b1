"""A game's commit step: a finished turn written to the save in ONE transaction, merges and all.

The store only stores. This step, in the engine, orders the writes and does the thinking between them:
the turn's row, graph writes, logged exchanges and rows (``SaveDatabase.start_turn``); its merges, each
person's mind folded into the kept one's (``Registry.merge_people``); what the story says of the tiers the
merges moved (the turn's ``MergeSaid``), which ends the turn's narration; then the scene after it
(``end_turn``). All of it is journaled at the turn, so undo takes the whole turn back. When people were
folded together, the game in play cannot follow by applying the turn (the merge removed and re-pointed rows), so the
step reads the game back and hands it to the pipeline: nothing below the session calls up into it.
"""

from __future__ import annotations

from game.config import Settings
from game.engine.opening import read_play_state
from game.engine.play_state import PlayState
from game.engine.retell import told_turn
from game.engine.tuning import memory_settings
from game.engine.turn_commit import FinishedTurn
from game.registry import Registry
from game.store.database import SaveDatabase
from game.world import World


class SaveStore:
    """The session's storage step (``TurnStore``) over its save."""

    folds_people = True

    def __init__(self, db: SaveDatabase, world: World, settings: Settings, registry: Registry) -> None:
        self._db = db
        self._world = world
        self.registry = registry
        self.settings = settings
        """The game's settings (how a merge folds two minds, how the game is read back): replaced when
        the player changes them."""

    async def commit(self, turn: FinishedTurn) -> PlayState | None:
        db, record = self._db, turn.record
        async with db.transaction() as conn:
            await db.start_turn(conn, record, turn.writes, turn.told,
                                (*turn.rows, *self.registry.turn_rows(told_turn(turn))))
            reports = await self.registry.merge_people(db, conn, turn.merges, record.number,
                                                       memory_settings(self.settings))
            added = turn.said(reports) if turn.said is not None and reports else ""
            if added:
                record.narration = "\n\n".join(part for part in (record.narration, added) if part)
            await db.end_turn(conn, record, turn.result.scene.model_dump(mode="json"), narration_changed=bool(added))
        if not reports:
            return None
        return await read_play_state(db, self._world, self.settings, turn.result.scene.verbose, registry=self.registry)
