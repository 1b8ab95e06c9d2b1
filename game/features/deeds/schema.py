"""The deeds feature's migration: its tables, numbered in the save's one sequence (``game.store.schema``)."""

from __future__ import annotations

from game.store.schema import Migration

MIGRATIONS: tuple[Migration, ...] = (
    # 15: deeds (game/features/deeds): what someone did to whom, at which turn and place, before whom, and
    # who knows each deed (seen, told, rumour), from whom and how sure: the deeds feature's two tables,
    # written as journaled rows with the turn, so undo and time travel take them back with it. An older
    # save has no deeds: nothing it remembers was recorded as one. IF NOT EXISTS: a save taken back to an
    # older version number (as tests simulate one) may hold them already.
    Migration(15, "deeds", """
    CREATE TABLE IF NOT EXISTS deeds (
        id TEXT PRIMARY KEY,
        turn INTEGER NOT NULL,
        actor TEXT NOT NULL,
        act TEXT NOT NULL,
        target TEXT NOT NULL,
        target_kind TEXT NOT NULL DEFAULT 'person' CHECK (target_kind IN ('person', 'item', 'place')),
        place TEXT NOT NULL DEFAULT '',
        valence TEXT NOT NULL CHECK (valence IN ('kind', 'harmful', 'neutral')),
        witnesses TEXT NOT NULL DEFAULT '[]',
        sentence TEXT NOT NULL,
        thing TEXT NOT NULL DEFAULT ''
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS deeds_turn ON deeds(turn);
    CREATE TABLE IF NOT EXISTS deed_knowers (
        deed_id TEXT NOT NULL,
        knower TEXT NOT NULL,
        how TEXT NOT NULL CHECK (how IN ('seen', 'told', 'rumour')),
        source TEXT,
        confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
        since_turn INTEGER NOT NULL,
        PRIMARY KEY (deed_id, knower)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS deed_knowers_knower ON deed_knowers(knower);
    """),
)
