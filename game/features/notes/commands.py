"""``/memory`` and ``/note``: show, set or clear a note, each change undoable on its own.

A change is written through ``CommandReach.change``: one transaction, journaled at the current turn (so
undoing the turn takes it back with it) and an undo step of its own (so ``undo`` right after
``/memory ...`` takes back just that change; ``NotesFeature.undo_change`` reads the step).
"""

from __future__ import annotations

from game.features.feature import CommandReach, MetaHandler
from game.features.notes.rules import CLEAR_WORDS, LABELS, MEMORY, NOTE, cleaned
from game.features.notes.store import note_row

UNDO_KIND = "note"
"""The undo step a note change leaves (``{"name": ..., "before": ...}``), as saves have held since notes came."""


def handler(name: str) -> MetaHandler:
    """The command of the note ``name``: no argument shows it, ``clear`` empties it, anything else sets it."""

    async def run(reach: CommandReach, argument: str) -> str:
        label = LABELS[name]
        notes = reach.state or {}
        if not argument:
            text = notes.get(name, "")
            return (f"**{label}:** {text}" if text else
                    f"The {label} is empty. Type `/{name} TEXT` to set it, `/{name} clear` to empty it.")
        now = cleaned(name, "" if argument.lower() in CLEAR_WORDS else argument)
        before = notes.get(name, "")
        if before == now:
            return f"The {label} is already {'that' if now else 'empty'}; nothing changed."
        await reach.change([note_row(name, now)], UNDO_KIND, {"name": name, "before": before})
        return f"**{label}** set: {now}" if now else f"The {label} is cleared."

    return run


HELP = {
    MEMORY: "`/memory [TEXT|clear]` shows or sets the Memory, what a model narrator is always told;",
    NOTE: "`/note [TEXT|clear]` the Author's note, a short style note near the end of its prompt.",
}
