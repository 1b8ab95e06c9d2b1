"""The save's Memory and Author's note: the player's own words, always in a model narrator's prompt.

Memory is what the player wants the narrator never to forget (who their character is, what matters);
it goes into the system prompt every turn. The Author's note is a short style direction ("grim, terse,
rain") placed near the end of the prompt, where a model heeds it most. Both live in the save's ``notes``
table. A change is a journaled row of the current turn (so undoing the turn takes it back with it) and
an undo step of its own (so ``undo`` right after ``/memory ...`` takes back just that change).
"""

from __future__ import annotations

from collections.abc import Mapping

import aiosqlite

from game.engine import tellings_store
from game.errors import KithError
from game.store.database import SaveDatabase
from game.store.rows import RowWrite, write_rows
from game.text import straighten_quotes, strip_control

MEMORY = "memory"
NOTE = "note"
LABELS = {MEMORY: "Memory", NOTE: "Author's note"}
LIMITS = {MEMORY: 2000, NOTE: 300}
"""Characters each may hold: Memory is in every prompt, so it is bounded like any part of it; the
Author's note is meant to be a line or two."""


async def load(conn: aiosqlite.Connection) -> dict[str, str]:
    """The save's notes by name (``memory``, ``note``); a name never set is absent."""
    rows = await conn.execute_fetchall(f"SELECT name, text FROM {tellings_store.NOTES}")
    return {str(r[0]): str(r[1]) for r in rows if str(r[0]) in LABELS}


def cleaned(name: str, text: str) -> str:
    """``text`` as it is kept: terminal-safe, straight quotes, trimmed; refused when too long."""
    kept = strip_control(straighten_quotes(text)).strip()
    if len(kept) > LIMITS[name]:
        raise KithError(f"the {LABELS[name]} holds at most {LIMITS[name]} characters (this is {len(kept)}); "
                        "nothing was changed", title=LABELS[name])
    return kept


async def put(db: SaveDatabase, turn: int, name: str, text: str) -> tuple[str, str]:
    """Set (``text``) or clear (``""``) a note at ``turn``: one transaction, undoable. Returns (before, now)."""
    now = cleaned(name, text)
    async with db.transaction() as conn:
        before = (await load(conn)).get(name, "")
        if before == now:
            return before, now
        key = {"name": name}
        row = RowWrite(tellings_store.NOTES, key, {"name": name, "text": now} if now else None)
        seq = await tellings_store.next_seq(conn)
        step = tellings_store.step_row(seq, turn, "note", {"name": name, "before": before})
        # Journaled at a played turn, so undoing that turn restores the note as it was before it; at
        # turn 0 there is no turn to undo, and the undo step alone takes the change back.
        await write_rows(conn, turn, [row, step], journal_it=turn > 0)
    return before, now


def restore_rows(name: str, before: str) -> list[RowWrite]:
    """The rows that put a note back as ``before`` (undoing one note change)."""
    key = {"name": name}
    return [RowWrite(tellings_store.NOTES, key, {"name": name, "text": before} if before else None)]


def mind_lines(notes: Mapping[str, str]) -> list[str]:
    """The notes as ``/mind`` lists them: one line each, what the narrator is given every turn."""
    return [f"{LABELS[name]}: {notes[name] if notes.get(name) else '(none)'}" for name in (MEMORY, NOTE)]
