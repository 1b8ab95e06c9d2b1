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
    # 2: a turn whose graph update was recovered later (``graph rebuild``) remembers at which turn, so undoing
    # that turn can mark it not extracted again.
    """
    ALTER TABLE turns ADD COLUMN recovered_at INTEGER;
    CREATE INDEX turns_pending ON turns(number) WHERE extracted = 0;
    """,
    # 3: who knows what. One row per knower of a relation version; the journal learns the new kinds of
    # row it keeps before-images of (SQLite cannot change a CHECK in place, so the table is rebuilt with
    # its rows and IDs). A save from before knowledge existed gets its endpoints as knowers of every
    # version (``authored``, sure), so it plays exactly as it did: each person knows their own relations.
    """
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
    """,
    # 4: the gossip log. One row per exchange (who told whom which version at which turn, and how sure the
    # listener came away): gossip's pair cooldown reads the last turn a pair talked, and ``/why`` reads who
    # told a person what. Journaled (kind ``gossip``) so undo removes a turn's exchanges with it.
    """
    CREATE TABLE gossip_log (
        turn INTEGER NOT NULL,
        teller TEXT NOT NULL,
        listener TEXT NOT NULL,
        edge_id TEXT NOT NULL,
        confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
        PRIMARY KEY (turn, teller, listener, edge_id)
    ) WITHOUT ROWID;
    CREATE INDEX gossip_log_listener ON gossip_log(listener, turn);
    CREATE INDEX gossip_log_pair ON gossip_log(teller, listener, turn);
    """,
    # 5: the journal accepts any kind of row. Kinds are checked in Python (``journal.Kind``), and a
    # feature's own table is journaled as ``row:TABLE`` by ``journal.record_rows``, so a new undoable
    # table needs a migration of its own and nothing here.
    """
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
    """,
    # 6: what the narrator was told each turn (the composed context, section by section, as JSON),
    # so `/mind NAME` and `/why NAME` show it after the turn. Written with the turn as a RowWrite, so undo
    # removes it with the turn. An older save simply has no row for its earlier turns.
    """
    CREATE TABLE turn_context (turn INTEGER PRIMARY KEY, context TEXT NOT NULL);
    """,
    # 7: attitudes toward the player (game/mind/attitude.py), one row per NPC node: trust, respect and
    # friendliness in [-100, 100] and the history of changes (JSON: turn, values after, reason). Written
    # with the turn as ``RowWrite`` rows (journaled ``row:attitudes``), so undo restores them exactly. A
    # save from before has no rows: everyone's attitude is then what their relations toward the player imply.
    """
    CREATE TABLE attitudes (
        npc_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        trust REAL NOT NULL CHECK (trust >= -100 AND trust <= 100),
        respect REAL NOT NULL CHECK (respect >= -100 AND respect <= 100),
        friendliness REAL NOT NULL CHECK (friendliness >= -100 AND friendliness <= 100),
        history TEXT NOT NULL DEFAULT '[]'
    ) WITHOUT ROWID;
    """,
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
    """
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
    """,
    # 9: how a turn's graph update was made (issue 13): ``full`` by the narrator's own extractor, ``fast`` by the
    # model-free fast path when that failed or was off, ``none`` when nothing could be read, ``enriched``
    # when a model read the turn later. ``extracted = 0`` stays the queue the model works through (fast
    # and none alike); this column says honestly what the graph holds of the turn meanwhile.
    """
    ALTER TABLE turns ADD COLUMN extraction TEXT NOT NULL DEFAULT 'full';
    UPDATE turns SET extraction = 'none' WHERE extracted = 0;
    UPDATE turns SET extraction = 'enriched' WHERE extracted = 1 AND recovered_at IS NOT NULL;
    """,
    # 10: metapath patterns: the relation pairs `kith graph patterns --discover` found worth following on this
    # save (issue 13), kept so later games and commands use them when `[retrieval] discovered_patterns`
    # is on. An author's tool, not a turn's write: each discovery replaces the set, undo leaves it.
    """
    CREATE TABLE metapath_patterns (
        first TEXT NOT NULL,
        second TEXT NOT NULL,
        weight REAL NOT NULL CHECK (weight > 0 AND weight <= 1),
        yield INTEGER NOT NULL,
        novelty REAL NOT NULL,
        turn INTEGER NOT NULL,
        PRIMARY KEY (first, second)
    ) WITHOUT ROWID;
    """,
    # 11: retry, continue and edit (``game.features.tellings``). ``swipes`` keeps every telling of a
    # turn whole (its turn row, graph writes, scene and other rows, as JSON) and its token usage, so the
    # player can flip between them and the kept one's writes can be put back; ``notes`` holds the save's
    # Memory and Author's note; ``undo_steps`` the changes within a turn that ``undo`` takes back one at
    # a time (an edit, a continuation, a note). All three are written as journaled rows, so undoing a
    # turn takes its tellings and steps with it. An old save has none: its turns are told again
    # from their stored rows.
    """
    CREATE TABLE swipes (
        turn INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        kind TEXT NOT NULL,
        parent INTEGER,
        kept INTEGER NOT NULL,
        payload TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        usage TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (turn, idx)
    ) WITHOUT ROWID;
    CREATE TABLE notes (name TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE undo_steps (
        seq INTEGER PRIMARY KEY,
        turn INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL
    );
    """,
    # 12: pending identities: a new name that may be someone already known (game/features/identity/questions.py), kept
    # until the player or an author answers. Written with the turn as a RowWrite, so undo removes it.
    # An older save has no questions.
    """
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
    """,
    # 13: the fast path's versions of a turn, found by their evidence mark (game/store/fast_marks.py):
    # enrichment reads a turn's ``fast:turn-N`` versions and the versions its ``fast-closed:turn-N``
    # reading ended through these indexes instead of scanning every open version (O(E) a turn, and on a
    # lazily opened game it loaded them all). Expressions of built-in functions only, so any sqlite3
    # still reads the file; partial, so versions without a mark (nearly all) cost nothing. IF NOT EXISTS:
    # a save taken back to an older version number (as tests simulate one) may hold them already.
    """
    CREATE INDEX IF NOT EXISTS edges_fast_read ON edges(CAST(substr(evidence, instr(evidence, 'fast:turn-') + 10) AS INTEGER))
        WHERE instr(evidence, 'fast:turn-') > 0;
    CREATE INDEX IF NOT EXISTS edges_fast_closed ON edges(
        CAST(substr(evidence, instr(evidence, 'fast-closed:turn-') + 17) AS INTEGER))
        WHERE instr(evidence, 'fast-closed:turn-') > 0;
    """,
    # 14: a turn's two large texts are stored compressed (game/store/packed.py): the composed context
    # (``turn_context.context``, ~8 KB of JSON) and each telling (``swipes.payload``, ~13 KB) are BLOB
    # columns now, and ``write_rows`` keeps any text written to a BLOB column zlib-compressed (~21 KB a
    # turn -> ~4 KB). The tables are rebuilt (SQLite cannot change a column's type) with their rows as
    # they were: older rows stay plain text, and every reader takes either form. ``swipes`` loses WITHOUT
    # ROWID: such a table keeps only ~1 KB of a row in its page and the rest in overflow pages of its own,
    # so a 2.5 KB telling took 5 KB. The version it bumps also keeps an older Kith from reading a
    # compressed row as damaged JSON: it refuses the save instead.
    """
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
    """,
    # 15: deeds (game/features/deeds): what someone did to whom, at which turn and place, before whom, and
    # who knows each deed (seen, told, rumour), from whom and how sure: the deeds feature's two tables,
    # written as journaled rows with the turn, so undo and time travel take them back with it. An older
    # save has no deeds: nothing it remembers was recorded as one. IF NOT EXISTS: a save taken back to an
    # older version number (as tests simulate one) may hold them already.
    """
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
    """,
)

CURRENT_VERSION = len(MIGRATIONS)
