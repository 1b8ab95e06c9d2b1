"""The attitudes feature's migration: its table, numbered in the save's one sequence (``game.store.schema``)."""

from __future__ import annotations

from game.store.schema import Migration

MIGRATIONS: tuple[Migration, ...] = (
    # 7: attitudes toward the player (game/mind/attitude.py), one row per NPC node: trust, respect and
    # friendliness in [-100, 100] and the history of changes (JSON: turn, values after, reason). Written
    # with the turn as ``RowWrite`` rows (journaled ``row:attitudes``), so undo restores them exactly. A
    # save from before has no rows: everyone's attitude is then what their relations toward the player imply.
    Migration(7, "attitudes", """
    CREATE TABLE attitudes (
        npc_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        trust REAL NOT NULL CHECK (trust >= -100 AND trust <= 100),
        respect REAL NOT NULL CHECK (respect >= -100 AND respect <= 100),
        friendliness REAL NOT NULL CHECK (friendliness >= -100 AND friendliness <= 100),
        history TEXT NOT NULL DEFAULT '[]'
    ) WITHOUT ROWID;
    """),
)
