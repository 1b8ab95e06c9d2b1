"""A save's graph read with plain ``sqlite3`` into plain records, for the one-shot read commands.

``kith graph dump`` and ``kith graph retrieve`` do one query's worth of work; loading aiosqlite, asyncio
and pydantic (``SaveDatabase``, the graph's models) cost them ten times that (issue 15). So they read
here: a read-only connection, rows as plain records with the fields, properties and JSON form of
``Node``, ``Edge`` and ``Knowing`` that those commands use, and the graph's one set of reads
(``game.store.graph_sql``, the same as ``SqlGraph``'s) as coroutines that never wait, which ``finish``
runs to the end without an event loop. Retrieval itself is the one in ``game.graph.retrieve``; tests
hold the records' JSON equal to the models'.

The rows were validated when written and the tables re-check them, as ``graph_repo`` also trusts them.
Only a save at this code's schema version is read here: an older one is migrated (a write) by the full
open, so ``GraphView.open`` returns None and the command takes that path.

The records are plain classes with ``__slots__``, not dataclasses: importing ``dataclasses`` (it loads
``inspect``) and running its decorators cost these commands a quarter of their floor (issue 15).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.errors import SaveNotFound
from game.store import decoded
from game.store.connection import inspect_save, read_connection, require_regular, sweep_leftovers
from game.store.damage import damaged
from game.store.graph_sql import LONGEST_NAME, Decode, SyncTables, finish

if TYPE_CHECKING:
    from game.store.schema import Schema

__all__ = ["LONGEST_NAME", "EdgeRecord", "GraphView", "KnowingRecord", "NodeRecord", "finish"]


class NodeRecord:
    """A stored node, as ``game.graph.models.Node`` holds it."""

    __slots__ = ("aliases", "attributes", "first_seen_turn", "id", "labels", "last_seen_turn", "name", "summary",
                 "type")

    def __init__(self, id: str, name: str, aliases: list[str], type: str, labels: list[str], summary: str,
                 first_seen_turn: int, last_seen_turn: int, attributes: dict[str, Any]) -> None:
        self.id = id
        self.name = name
        self.aliases = aliases
        self.type = type
        self.labels = labels
        self.summary = summary
        self.first_seen_turn = first_seen_turn
        self.last_seen_turn = last_seen_turn
        self.attributes = attributes

    @property
    def names(self) -> list[str]:
        return [self.name, *self.aliases]

    def to_json_dict(self) -> dict[str, Any]:
        """The camelCase JSON form, key for key ``Node.to_json_dict()``."""
        return {"id": self.id, "name": self.name, "aliases": list(self.aliases), "type": self.type,
                "labels": list(self.labels), "summary": self.summary, "firstSeenTurn": self.first_seen_turn,
                "lastSeenTurn": self.last_seen_turn, "attributes": self.attributes}


class EdgeRecord:
    """A stored edge version, as ``game.graph.models.Edge`` holds it."""

    __slots__ = ("evidence_turn_ids", "fact", "id", "invalid_at", "relation", "source", "strength", "target",
                 "valid_at")

    def __init__(self, id: str, source: str, target: str, relation: str, strength: float, fact: str,
                 valid_at: int, invalid_at: int | None, evidence_turn_ids: list[str]) -> None:
        self.id = id
        self.source = source
        self.target = target
        self.relation = relation
        self.strength = strength
        self.fact = fact
        self.valid_at = valid_at
        self.invalid_at = invalid_at
        self.evidence_turn_ids = evidence_turn_ids

    @property
    def is_open(self) -> bool:
        return self.invalid_at is None

    def other_end(self, node_id: str) -> str:
        return self.target if self.source == node_id else self.source

    def to_json_dict(self) -> dict[str, Any]:
        """The camelCase JSON form, key for key ``Edge.to_json_dict()`` (``invalidAt`` only when set)."""
        data: dict[str, Any] = {"id": self.id, "source": self.source, "target": self.target,
                                "relation": self.relation, "strength": self.strength, "fact": self.fact,
                                "validAt": self.valid_at}
        if self.invalid_at is not None:
            data["invalidAt"] = self.invalid_at
        data["evidenceTurnIds"] = list(self.evidence_turn_ids)
        return data


class KnowingRecord:
    """One knower of one version, as ``game.graph.knowledge.Knowing`` holds it."""

    __slots__ = ("confidence", "edge_id", "how", "knower", "since_turn", "source")

    def __init__(self, edge_id: str, knower: str, how: str, source: str | None, confidence: float,
                 since_turn: int) -> None:
        self.edge_id = edge_id
        self.knower = knower
        self.how = how
        self.source = source
        self.confidence = confidence
        self.since_turn = since_turn


def _node(row: Sequence[Any]) -> NodeRecord:
    aliases, labels, attributes = decoded.node_row(row)  # a value of another type is damage, named
    return NodeRecord(row[0], row[1], aliases, row[2], labels, row[5], row[6], row[7], attributes)


def _edge(row: Sequence[Any]) -> EdgeRecord:
    evidence = decoded.edge_row(row)
    return EdgeRecord(row[0], row[1], row[2], row[3], float(row[4]), row[5], row[6], row[7], evidence)


def _knowing(row: Sequence[Any]) -> KnowingRecord:
    decoded.knowing_row(row)
    return KnowingRecord(row[0], row[1], row[2], row[3], float(row[4]), row[5])


RECORDS: Decode[NodeRecord, EdgeRecord, KnowingRecord] = Decode(_node, _edge, _knowing)
"""Rows as plain records."""


class GraphView(SyncTables[NodeRecord, EdgeRecord, KnowingRecord]):
    """Read-only reads of one save's graph as records: ``game.store.graph_sql``'s, run synchronously."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        super().__init__(conn, RECORDS, name)

    @classmethod
    def open(cls, path: Path, schema: Schema) -> GraphView | None:
        """The save at ``path`` for reading, or None when it is older than ``schema`` (the game's: the full
        open migrates it). A missing file, or one that is not a save or is newer, is refused as by the full open."""
        sweep_leftovers(path.parent)
        if not path.exists() and not path.is_symlink():
            raise SaveNotFound(f"there is no save {path.stem!r} (looked for {path})")
        require_regular(path, path.name)
        version, _ = inspect_save(path, schema)  # a file that is not a save, or is newer than this code, is refused
        if version != schema.current:
            return None
        try:
            return cls(read_connection(path), path.stem)
        except sqlite3.Error as error:
            raise damaged(path.stem, error) from error

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> GraphView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def meta_value(self, key: str) -> str | None:
        """One value of the save's ``meta`` table (None when unset)."""
        rows = finish(self._rows("SELECT value FROM meta WHERE key = ?", (key,)))
        return str(rows[0][0]) if rows else None
