"""The ``notes`` table as the notes feature reads and writes it: one row per note, by name.

No SQL here: the core reads a feature's tables whole through the save's connection when a game opens
(``Feature.load``) and writes the ``RowWrite``s a change returns in its own transaction, journaled, so
undo takes them back like any row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from game.store.rows import RowWrite, Scalar

NOTES = "notes"
"""The table (created by migration 10 in game/store/migrations.py: the store creates every table)."""

Notes = Mapping[str, str]
"""The notes by name (``memory``, ``note``); a name never set is absent."""


def from_rows(rows: Sequence[Mapping[str, Scalar]], names: Sequence[str]) -> dict[str, str]:
    """The notes the table's ``rows`` hold, only the ``names`` the feature knows (others are ignored)."""
    return {str(row["name"]): str(row["text"]) for row in rows if str(row.get("name")) in names}


def note_row(name: str, text: str) -> RowWrite:
    """The row that sets a note to ``text``, or deletes it for ``""`` (an empty note is no row)."""
    return RowWrite(NOTES, {"name": name}, {"name": name, "text": text} if text else None)


def updated(notes: Notes, rows: Sequence[RowWrite]) -> dict[str, str]:
    """``notes`` once ``rows`` (of any table: the notes' own are taken) are written."""
    now = dict(notes)
    for row in rows:
        if row.table != NOTES:
            continue
        name = str(row.key.get("name", ""))
        if row.row is None:
            now.pop(name, None)
        else:
            now[name] = str(row.row.get("text", ""))
    return now
