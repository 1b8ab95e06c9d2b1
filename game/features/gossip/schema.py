"""The gossip feature's migration: its table, numbered in the save's one sequence (``game.store.schema``)."""

from __future__ import annotations

from game.store.schema import Migration

MIGRATIONS: tuple[Migration, ...] = (
    # 4: the gossip log. One row per exchange (who told whom which version at which turn, and how sure the
    # listener came away): gossip's pair cooldown reads the last turn a pair talked, and ``/why`` reads who
    # told a person what. Journaled (kind ``gossip``) so undo removes a turn's exchanges with it.
    Migration(4, "gossip", """
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
    """),
)
