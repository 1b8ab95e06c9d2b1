"""The notes feature as the registry sees it: its table, its state, its commands, its words to the narrator."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from game.features.feature import Feature, Instruction, MetaHandler, Rows, StepResult, TurnFacts, UndoChange
from game.features.notes.commands import HELP, UNDO_KIND, handler
from game.features.notes.rules import LABELS, MEMORY, NOTE
from game.features.notes.store import NOTES, Notes, from_rows, note_row, updated
from game.store.rows import RowWrite


class NotesFeature(Feature):
    """The player's Memory and Author's note: kept in the save, given to a model narrator every turn."""

    name: ClassVar[str] = "notes"
    tables: ClassVar[tuple[str, ...]] = (NOTES,)
    meta_commands: ClassVar[Mapping[str, str]] = HELP
    undo_kinds: ClassVar[tuple[str, ...]] = (UNDO_KIND,)
    across_tellings: ClassVar[bool] = True
    gives_instructions: ClassVar[bool] = True

    def load(self, rows: Rows) -> dict[str, str]:
        return from_rows(rows.get(NOTES, ()), tuple(LABELS))

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> dict[str, str]:
        return updated(_notes(state), rows)

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        return StepResult()  # the notes change only by the player's commands, never by a turn

    def meta_handler(self, word: str) -> MetaHandler:
        return handler(word)

    def undo_change(self, kind: str, data: Mapping[str, Any]) -> UndoChange:
        name = str(data.get("name", ""))
        if name not in LABELS:
            raise ValueError(f"an undo step names no note ({name!r})")
        return f"the change to the {LABELS[name]}", [note_row(name, str(data.get("before", "")))]

    def instructions(self, state: Any) -> list[Instruction]:
        notes = _notes(state)
        return [Instruction("memory", LABELS[MEMORY], notes.get(MEMORY, "")),
                Instruction("authors_note", LABELS[NOTE], notes.get(NOTE, ""))]


def _notes(state: Any) -> Notes:
    return state if isinstance(state, Mapping) else {}
