"""Append-only schema migrations, tracked by ``PRAGMA user_version``.

Migration N brings a save from version N-1 to N. Never edit a migration that has shipped: add a new one.
A save whose version is above ``CURRENT_VERSION`` was written by a newer Kith and is refused.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: the graph, turns with their scene states, the undo journal, the merge log and map layout.
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE nodes (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('individual', 'group', 'faction')),
        aliases TEXT NOT NULL DEFAULT '[]',
        labels TEXT NOT NULL DEFAULT '[]',
        summary TEXT NOT NULL,
        first_seen_turn INTEGER NOT NULL,
        last_seen_turn INTEGER NOT NULL,
        attributes TEXT NOT NULL DEFAULT '{}'
    );

    -- Every normalized name and alias, so a mention or a name is found through an index.
    CREATE TABLE node_names (
        norm TEXT NOT NULL,
        node_id TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
        PRIMARY KEY (norm, node_id)
    ) WITHOUT ROWID;
    CREATE INDEX node_names_node ON node_names(node_id);
    CREATE INDEX node_names_length ON node_names(length(norm));

    -- One row per relation version; seq keeps insertion order for ties.
    CREATE TABLE edges (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        source TEXT NOT NULL REFERENCES nodes(id),
        target TEXT NOT NULL REFERENCES nodes(id),
        relation TEXT NOT NULL,
        strength REAL NOT NULL,
        fact TEXT NOT NULL,
        valid_at INTEGER NOT NULL,
        invalid_at INTEGER,
        evidence TEXT NOT NULL DEFAULT '[]'
    );
    -- Traversal goes both ways over open versions; history reads every version of a pair.
    CREATE INDEX edges_open_out ON edges(source, relation, target) WHERE invalid_at IS NULL;
    CREATE INDEX edges_open_in ON edges(target, relation, source) WHERE invalid_at IS NULL;
    CREATE INDEX edges_pair ON edges(source, target);
    CREATE INDEX edges_pair_reverse ON edges(target, source);
    CREATE INDEX edges_valid_at ON edges(valid_at);
    CREATE INDEX edges_invalid_at ON edges(invalid_at) WHERE invalid_at IS NOT NULL;

    CREATE TABLE merges (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kept_id TEXT NOT NULL,
        merged_id TEXT NOT NULL,
        merged_name TEXT NOT NULL,
        strategy TEXT NOT NULL,
        evidence TEXT NOT NULL,
        turn INTEGER NOT NULL,
        at TEXT NOT NULL
    );

    CREATE TABLE turns (
        number INTEGER PRIMARY KEY,
        input TEXT NOT NULL,
        narration TEXT NOT NULL,
        world_ir TEXT,
        npc_context TEXT NOT NULL,
        timings TEXT NOT NULL DEFAULT '{}',
        extracted INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
    );

    -- The scene after each turn (turn 0: the world's initial scene), so undo is exact.
    CREATE TABLE scenes (turn INTEGER PRIMARY KEY, state TEXT NOT NULL);

    -- Before-images of every row a turn changed (NULL: the row was new), replayed backwards by undo.
    CREATE TABLE journal (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        turn INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('node', 'edge', 'merge')),
        key TEXT NOT NULL,
        before TEXT
    );
    CREATE INDEX journal_turn ON journal(turn);

    CREATE TABLE layout (node_id TEXT PRIMARY KEY, x REAL NOT NULL, y REAL NOT NULL);
    """,
    # 2: a turn whose memory was recovered later (``graph rebuild``) remembers at which turn, so undoing
    # that turn can mark it not extracted again.
    """
    ALTER TABLE turns ADD COLUMN recovered_at INTEGER;
    CREATE INDEX turns_pending ON turns(number) WHERE extracted = 0;
    """,
)

CURRENT_VERSION = len(MIGRATIONS)
