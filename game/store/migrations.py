"""The core's append-only schema migrations: the graph, turns, scenes, the journal, contexts, packed texts.

Migration N brings a save from version N-1 to N. Never edit a migration that has shipped: add a new one.
A feature's migrations live in its own package (``game/features/NAME/schema.py``); the numbering is one
for all of them (``game.store.schema``), so the core's numbers have gaps where a feature's migration
shipped. The registry composes the whole (``Registry.schema`` through ``schema_of``) and hands it to the
store's openers: nothing in the store imports a feature's tables.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.store.schema import Migration, Schema

CORE = "core"

MIGRATIONS: tuple[Migration, ...] = (
    # 1: the graph, turns with their scene states, the undo journal, the merge log and map layout.
    Migration(1, CORE, """
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
    """),
    # 2: a turn whose graph update was recovered later (``graph rebuild``) remembers at which turn, so undoing
    # that turn can mark it not extracted again.
    Migration(2, CORE, """
    ALTER TABLE turns ADD COLUMN recovered_at INTEGER;
    CREATE INDEX turns_pending ON turns(number) WHERE extracted = 0;
    """),
    # 3 (the core's: the graph reads and writes its knower rows, features add them through ``StepResult``):
    # who knows what. One row per knower of a relation version; the journal learns the new kinds of
    # row it keeps before-images of (SQLite cannot change a CHECK in place, so the table is rebuilt with
    # its rows and IDs). A save from before knowledge existed gets its endpoints as knowers of every
    # version (``authored``, sure), so it plays exactly as it did: each person knows their own relations.
    Migration(3, CORE, """
    CREATE TABLE knowings (
        edge_id TEXT NOT NULL,
        knower TEXT NOT NULL,
        how TEXT NOT NULL CHECK (how IN ('authored', 'witnessed', 'told', 'rumour')),
        source TEXT,
        confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
        since_turn INTEGER NOT NULL,
        PRIMARY KEY (edge_id, knower)
    ) WITHOUT ROWID;
    CREATE INDEX knowings_knower ON knowings(knower);

    INSERT OR IGNORE INTO knowings (edge_id, knower, how, source, confidence, since_turn)
        SELECT e.id, e.source, 'authored', NULL, 1.0, e.valid_at FROM edges e
        JOIN nodes n ON n.id = e.source WHERE n.type = 'individual';
    INSERT OR IGNORE INTO knowings (edge_id, knower, how, source, confidence, since_turn)
        SELECT e.id, e.target, 'authored', NULL, 1.0, e.valid_at FROM edges e
        JOIN nodes n ON n.id = e.target WHERE n.type = 'individual';

    CREATE TABLE journal_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        turn INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('node', 'edge', 'merge', 'knowing', 'awareness', 'gossip')),
        key TEXT NOT NULL,
        before TEXT
    );
    INSERT INTO journal_new (id, turn, kind, key, before) SELECT id, turn, kind, key, before FROM journal;
    DROP TABLE journal;
    ALTER TABLE journal_new RENAME TO journal;
    CREATE INDEX journal_turn ON journal(turn);
    """),
    # 5: the journal accepts any kind of row. Kinds are checked in Python (``journal.Kind``), and a
    # feature's own table is journaled as ``row:TABLE`` by ``journal.record_rows``, so a new undoable
    # table needs a migration of its own and nothing here.
    Migration(5, CORE, """
    CREATE TABLE journal_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        turn INTEGER NOT NULL,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        before TEXT
    );
    INSERT INTO journal_new (id, turn, kind, key, before) SELECT id, turn, kind, key, before FROM journal;
    DROP TABLE journal;
    ALTER TABLE journal_new RENAME TO journal;
    CREATE INDEX journal_turn ON journal(turn);
    """),
    # 6: what the narrator was told each turn (the composed context, section by section, as JSON),
    # so `/mind NAME` and `/why NAME` show it after the turn. Written with the turn as a RowWrite, so undo
    # removes it with the turn. An older save simply has no row for its earlier turns.
    Migration(6, CORE, """
    CREATE TABLE turn_context (turn INTEGER PRIMARY KEY, context TEXT NOT NULL);
    """),
    # 9: how a turn's graph update was made (issue 13): ``full`` by the narrator's own extractor, ``fast`` by the
    # model-free fast path when that failed or was off, ``none`` when nothing could be read, ``enriched``
    # when a model read the turn later. ``extracted = 0`` stays the queue the model works through (fast
    # and none alike); this column says honestly what the graph holds of the turn meanwhile.
    Migration(9, CORE, """
    ALTER TABLE turns ADD COLUMN extraction TEXT NOT NULL DEFAULT 'full';
    UPDATE turns SET extraction = 'none' WHERE extracted = 0;
    UPDATE turns SET extraction = 'enriched' WHERE extracted = 1 AND recovered_at IS NOT NULL;
    """),
    # 10: metapath patterns: the relation pairs `kith graph patterns --discover` found worth following on this
    # save (issue 13), kept so later games and commands use them when `[retrieval] discovered_patterns`
    # is on. An author's tool, not a turn's write: each discovery replaces the set, undo leaves it.
    Migration(10, CORE, """
    CREATE TABLE metapath_patterns (
        first TEXT NOT NULL,
        second TEXT NOT NULL,
        weight REAL NOT NULL CHECK (weight > 0 AND weight <= 1),
        yield INTEGER NOT NULL,
        novelty REAL NOT NULL,
        turn INTEGER NOT NULL,
        PRIMARY KEY (first, second)
    ) WITHOUT ROWID;
    """),
    # 13: the fast path's versions of a turn, found by their evidence mark (game/store/fast_marks.py):
    # enrichment reads a turn's ``fast:turn-N`` versions and the versions its ``fast-closed:turn-N``
    # reading ended through these indexes instead of scanning every open version (O(E) a turn, and on a
    # lazily opened game it loaded them all). Expressions of built-in functions only, so any sqlite3
    # still reads the file; partial, so versions without a mark (nearly all) cost nothing. IF NOT EXISTS:
    # a save taken back to an older version number (as tests simulate one) may hold them already.
    Migration(13, CORE, """
    CREATE INDEX IF NOT EXISTS edges_fast_read ON edges(CAST(substr(evidence, instr(evidence, 'fast:turn-') + 10) AS INTEGER))
        WHERE instr(evidence, 'fast:turn-') > 0;
    CREATE INDEX IF NOT EXISTS edges_fast_closed ON edges(
        CAST(substr(evidence, instr(evidence, 'fast-closed:turn-') + 17) AS INTEGER))
        WHERE instr(evidence, 'fast-closed:turn-') > 0;
    """),
    # 14 (the core's: packing is the store's; it rebuilds the tellings' ``swipes`` with its own
    # ``turn_context``, and a shipped migration is never split): a turn's two large texts are stored compressed (game/store/packed.py): the composed context
    # (``turn_context.context``, ~8 KB of JSON) and each telling (``swipes.payload``, ~13 KB) are BLOB
    # columns now, and ``write_rows`` keeps any text written to a BLOB column zlib-compressed (~21 KB a
    # turn -> ~4 KB). The tables are rebuilt (SQLite cannot change a column's type) with their rows as
    # they were: older rows stay plain text, and every reader takes either form. ``swipes`` loses WITHOUT
    # ROWID: such a table keeps only ~1 KB of a row in its page and the rest in overflow pages of its own,
    # so a 2.5 KB telling took 5 KB. The version it bumps also keeps an older Kith from reading a
    # compressed row as damaged JSON: it refuses the save instead.
    Migration(14, CORE, """
    CREATE TABLE turn_context_new (turn INTEGER PRIMARY KEY, context BLOB NOT NULL);
    INSERT INTO turn_context_new (turn, context) SELECT turn, context FROM turn_context;
    DROP TABLE turn_context;
    ALTER TABLE turn_context_new RENAME TO turn_context;
    CREATE TABLE swipes_new (
        turn INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        kind TEXT NOT NULL,
        parent INTEGER,
        kept INTEGER NOT NULL,
        payload BLOB NOT NULL,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        usage TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (turn, idx)
    );
    INSERT INTO swipes_new (turn, idx, kind, parent, kept, payload, prompt_tokens, completion_tokens, usage)
        SELECT turn, idx, kind, parent, kept, payload, prompt_tokens, completion_tokens, usage FROM swipes;
    DROP TABLE swipes;
    ALTER TABLE swipes_new RENAME TO swipes;
    """),
)


def schema_of(features: Iterable[Migration]) -> Schema:
    """The schema of a game: the core's migrations and ``features``' (every registered feature's), checked
    to number 1, 2, 3... without a gap or a repeat."""
    return Schema((*MIGRATIONS, *features))
