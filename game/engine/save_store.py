"""A game's commit step: a finished turn written to the save in ONE transaction, merges and all.

The store only stores. This step, in the engine, orders the writes and does the thinking between them:
the turn's row, graph writes, gossip and rows (``SaveDatabase.start_turn``); its identity merges, each
person's mind folded into the kept one's (``game.mind.merging``); what the story says of the tiers the
merges moved (the turn's ``MergeSaid``), which ends the turn's narration; then the scene after it
(``end_turn``). All of it is journaled at the turn, so undo takes the whole turn back.
"""

from __future__ import annotations

from game.engine.tellings import first_row
from game.engine.turn import FinishedTurn
from game.mind.memory import MemorySettings
from game.mind.merging import identity_merges
from game.store.database import SaveDatabase


class SaveStore:
    """The session's storage step (``TurnStore``) over its save."""

    def __init__(self, db: SaveDatabase, memory: MemorySettings) -> None:
        self._db = db
        self.memory = memory
        """How a merge folds two minds (memory capacity): the game's settings, replaced when they change."""

    async def commit(self, turn: FinishedTurn) -> None:
        db, record = self._db, turn.record
        async with db.transaction() as conn:
            await db.start_turn(conn, record, turn.writes, turn.told, (*turn.rows, first_row(turn)))
            reports = await identity_merges(db, conn, turn.merges, record.number, self.memory)
            added = turn.said(reports) if turn.said is not None and reports else ""
            if added:
                record.narration = "\n\n".join(part for part in (record.narration, added) if part)
            await db.end_turn(conn, record, turn.result.scene.model_dump(mode="json"), narration_changed=bool(added))
