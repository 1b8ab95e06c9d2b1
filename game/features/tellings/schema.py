"""The tellings feature's migration: its tables, numbered in the save's one sequence (``game.store.schema``).

It shipped creating ``notes`` too, when the Memory and Author's note were part of the tellings; the notes
feature owns that table now (``game.features.notes``), and a shipped migration is never split, so this one
still creates it: the notes need the tellings registered (a schema without migration 11 has a gap)."""

from __future__ import annotations

from game.store.schema import Migration

MIGRATIONS: tuple[Migration, ...] = (
    # 11: retry, continue and edit (``game.features.tellings``). ``swipes`` keeps every telling of a
    # turn whole (its turn row, graph writes, scene and other rows, as JSON) and its token usage, so the
    # player can flip between them and the kept one's writes can be put back; ``notes`` holds the save's
    # Memory and Author's note; ``undo_steps`` the changes within a turn that ``undo`` takes back one at
    # a time (an edit, a continuation, a note). All three are written as journaled rows, so undoing a
    # turn takes its tellings and steps with it. An old save has none: its turns are told again
    # from their stored rows.
    Migration(11, "tellings", """
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
    """),
)
