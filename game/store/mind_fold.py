"""The store's half of folding a merged person's mind into the kept one's: its shapes and plain rows.

A merge (``merge_log.merge_graph``: ``graph merge``, ``graph resolve``, a "yes" in play) re-points the
graph in the store. What the merged NPC remembered, felt and said lives in the mind's tables, and the
rules for uniting two minds (memory capacity and eviction, attitude tiers) belong to ``game.mind``, above
the store: ``game.features.identity.merging`` decides the fold inside the merge's transaction, after the graph is
merged, and hands the store what to write, journaled at the merge's turn, so undo of that turn restores
both minds exactly. The store never calls up to ask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import aiosqlite

from game.graph.ports import GraphWrites
from game.store.rows import RowWrite, Scalar

AttitudeFold = Literal["kept", "merged", "united", "none"]


@dataclass(frozen=True)
class MindSummary:
    """What a merge folded: the merged NPC's memories and said words taken over, and whose attitude the
    kept NPC now has (``kept``: only the kept one had a recorded attitude; ``merged``: only the merged one;
    ``united``: both, united; ``none``: neither)."""

    memories: int = 0
    attitude: AttitudeFold = "none"
    said: int = 0
    repeated: int = 0
    """Of ``memories``, how many the kept NPC already held (same text and turn): kept once."""
    forgotten: int = 0
    """Memories the kept NPC forgot to stay within capacity after taking the others'."""
    tier: str | None = None
    """The kept NPC's tier toward the player once the minds are one (recorded, or what the united
    relations imply); None when the save has no player or the kept node is not a person. A merge in play
    says a change of it in the answer's turn, inside the same transaction (``MergeSaid``)."""

    def to_json_dict(self) -> dict[str, int | str]:
        """The contract shape (``graph merge --json``'s ``mind``)."""
        return {"memories": self.memories, "attitude": self.attitude, "said": self.said}


@dataclass(frozen=True)
class FoldedMind:
    """What a fold decided (``game.features.identity.minds.fold_minds``): rows of the mind's tables, graph writes keeping relations toward the
    player in agreement with the united attitude, and the summary."""

    rows: Sequence[RowWrite] = ()
    writes: GraphWrites = field(default_factory=GraphWrites)
    summary: MindSummary = field(default_factory=MindSummary)


async def rows_where(conn: aiosqlite.Connection, table: str, column: str,
                     values: Sequence[Scalar]) -> list[dict[str, Scalar]]:
    """The rows of ``table`` whose ``column`` is one of ``values``, as column -> value."""
    if not values:
        return []
    marks = ", ".join("?" for _ in values)
    cursor = await conn.execute(f'SELECT * FROM "{table}" WHERE "{column}" IN ({marks})', list(values))
    names = [c[0] for c in cursor.description]
    rows = await cursor.fetchall()
    await cursor.close()
    return [dict(zip(names, row, strict=True)) for row in rows]


async def rows_like(conn: aiosqlite.Connection, table: str, column: str, prefix: str) -> list[dict[str, Scalar]]:
    """The rows of ``table`` whose text ``column`` starts with ``prefix`` (case-sensitive, no wildcards)."""
    cursor = await conn.execute(f'SELECT * FROM "{table}" WHERE substr("{column}", 1, ?) = ?', (len(prefix), prefix))
    names = [c[0] for c in cursor.description]
    rows = await cursor.fetchall()
    await cursor.close()
    return [dict(zip(names, row, strict=True)) for row in rows]
