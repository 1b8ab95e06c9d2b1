"""The memories feature's migration: its tables, numbered in the save's one sequence (``game.store.schema``)."""

from __future__ import annotations

from game.store.schema import Migration

MIGRATIONS: tuple[Migration, ...] = (
    # 8: NPCs' memories of the player (game/mind/memory.py): episodic and semantic memories, and what each NPC
    # has said (first meeting, secrets revealed), written as RowWrite rows with each turn so undo restores
    # them exactly. Strength is stored as of ``last_used`` and decays lazily when read, so a turn rewrites
    # only the memories it forms, recalls, evicts or consolidates.
    # An old save keeps who the player has already met: without it, the first talk after upgrading would
    # play everyone's first-meeting greeting again. Its scenes hold, turn by turn, the people the player
    # spoke to (``met``, by their content name); the first scene naming someone is their first meeting,
    # written as a first meeting writes it (the ``met`` said row and the memory "Met NAME for the first
    # time.", ``game.features.memories.rules``) on their node (the kept one, if they were merged since).
    # Done here, in the migration that creates the tables, so it happens once and only to older saves.
    Migration(8, "memories", """
    CREATE TABLE npc_memories (
        npc TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('episodic', 'semantic')),
        text TEXT NOT NULL,
        turn INTEGER NOT NULL,
        importance REAL NOT NULL,
        valence REAL NOT NULL,
        tags TEXT NOT NULL,
        strength REAL NOT NULL,
        last_used INTEGER NOT NULL,
        uses INTEGER NOT NULL,
        heard INTEGER NOT NULL,
        about TEXT NOT NULL,
        PRIMARY KEY (npc, seq)
    ) WITHOUT ROWID;
    CREATE TABLE npc_said (
        npc TEXT NOT NULL,
        key TEXT NOT NULL,
        turn INTEGER NOT NULL,
        PRIMARY KEY (npc, key)
    ) WITHOUT ROWID;
    INSERT OR IGNORE INTO npc_said (npc, key, turn)
        SELECT COALESCE((SELECT g.kept_id FROM merges g WHERE g.merged_id = n.id ORDER BY g.id DESC LIMIT 1), n.id),
               'met', MIN(s.turn)
        FROM scenes s
        JOIN json_each(CASE WHEN json_valid(s.state) THEN s.state ELSE '{}' END, '$.met') m
        JOIN nodes n ON n.name = m.value AND n.type = 'individual'
        WHERE s.turn > 0 AND (CASE WHEN json_valid(n.attributes) THEN json_extract(n.attributes, '$.player') END) IS NOT 1
        GROUP BY 1;
    INSERT OR IGNORE INTO npc_memories
        (npc, seq, kind, text, turn, importance, valence, tags, strength, last_used, uses, heard, about)
        SELECT d.npc, 1, 'episodic', 'Met ' || p.name || ' for the first time.', d.turn, 0.3, 0.1, '["met"]', 1.0,
               d.turn, 0, 0, ''
        FROM npc_said d
        JOIN (SELECT name FROM nodes
              WHERE (CASE WHEN json_valid(attributes) THEN json_extract(attributes, '$.player') END) = 1
              ORDER BY id LIMIT 1) p
        WHERE d.key = 'met';
    """),
)
