"""The tellings feature as the registry sees it: its commands, its undo steps, the row every turn leaves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from game.features.feature import Feature, Rows, StepResult, TurnFacts
from game.features.retelling import Replaced, RetellHandler, RetellReach, ToldTurn
from game.features.tellings import commands, store
from game.features.tellings.schema import MIGRATIONS
from game.store.database import SaveDatabase
from game.store.rows import RowWrite
from game.store.schema import Migration


class TellingsFeature(Feature):
    """Retry, continue, edits, ``/swipe`` and Story mode over the ``swipes`` table.

    It owns ``swipes`` but lists no ``tables``: those are read back whole at opening, and every telling
    of every turn is far more than a game's state needs; the commands read the last turn's when asked.
    """

    name: ClassVar[str] = "tellings"
    migrations: ClassVar[tuple[Migration, ...]] = MIGRATIONS
    meta_commands: ClassVar[Mapping[str, str]] = dict.fromkeys(commands.HANDLERS, "")
    bare_words: ClassVar[tuple[str, ...]] = ("retry", "continue")
    input_modes: ClassVar[Mapping[str, str]] = {"story": "story"}
    help_section: ClassVar[str] = commands.HELP
    undo_kinds: ClassVar[tuple[str, ...]] = (store.TELLING_STEP, *store.OLD_TELLING_STEPS)
    retells: ClassVar[bool] = True

    def load(self, rows: Rows) -> None:
        return None

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> None:
        return None

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        return StepResult()  # its row is the committed turn itself (``turn_rows``), written with the commit

    def retell_handler(self, word: str) -> RetellHandler:
        return commands.HANDLERS[word]

    def turn_rows(self, told: ToldTurn) -> Sequence[RowWrite]:
        return [store.first_row(told)]

    async def undo_retelling(self, reach: RetellReach, seq: int, kind: str,
                             data: Mapping[str, Any]) -> tuple[str, Replaced] | None:
        return await commands.undo_telling(reach, seq, dict(data))

    async def kept_telling(self, reach: RetellReach) -> Replaced | None:
        return await commands.kept(reach)

    async def turn_usage(self, db: SaveDatabase, turn: int) -> dict[str, int]:
        return await store.kept_usage(db.conn, turn)
