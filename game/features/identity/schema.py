"""The identity feature's migration: its table, numbered in the save's one sequence (``game.store.schema``)."""

from __future__ import annotations

from game.store.schema import Migration

MIGRATIONS: tuple[Migration, ...] = (
    # 12: pending identities: a new name that may be someone already known (game/features/identity/questions.py), kept
    # until the player or an author answers. Written with the turn as a RowWrite, so undo removes it.
    # An older save has no questions.
    Migration(12, "identity", """
    CREATE TABLE pending_identities (
        id TEXT PRIMARY KEY,
        turn INTEGER NOT NULL,
        new_id TEXT NOT NULL,
        new_name TEXT NOT NULL,
        candidate_id TEXT NOT NULL,
        candidate_name TEXT NOT NULL,
        confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
        evidence TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'same', 'different')),
        asked_turn INTEGER,
        resolved_turn INTEGER,
        resolution TEXT
    );
    CREATE INDEX pending_identities_status ON pending_identities(status);
    """),
)
