"""The save's discovered meta-path patterns (table ``metapath_patterns``, see the migration).

Written only by ``kith graph patterns --discover``, which replaces the whole set in one transaction;
read when a game opens or a command retrieves with ``[retrieval] discovered_patterns`` on. Not part of
any turn: undo leaves it, a snapshot copies it with the rest of the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from game.graph.metapaths import MetaPath
from game.store.damage import reading
from game.store.migrations import MIGRATIONS
from game.store.promised import expects
from game.store.schema import since

if TYPE_CHECKING:
    from game.store.database import SaveDatabase


@dataclass(frozen=True)
class KeptPattern:
    """A discovered pattern as stored: the pattern, what it found, and the turn it was found at."""

    pattern: MetaPath
    yield_: int
    novelty: float
    turn: int


async def load(db: SaveDatabase) -> list[KeptPattern]:
    """The kept patterns, best weight first (none in a save older than them; a missing table or a row that
    does not decode in a newer one is one ``SaveError`` naming the save)."""
    with reading(db.name):
        if not await expects(db.conn, since(MIGRATIONS, "metapath_patterns")):
            return []
        rows = await db.conn.execute_fetchall(
            "SELECT first, second, weight, yield, novelty, turn FROM metapath_patterns "
            "ORDER BY weight DESC, first, second")
        return [KeptPattern(MetaPath((str(r[0]), str(r[1])), float(r[2]), "discovered"), int(r[3]), float(r[4]),
                            int(r[5])) for r in rows]


async def discovered(db: SaveDatabase) -> tuple[MetaPath, ...]:
    return tuple(kept.pattern for kept in await load(db))


async def replace(db: SaveDatabase, kept: Sequence[KeptPattern]) -> None:
    """The save's discovered set becomes ``kept``, in one transaction."""
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM metapath_patterns")
        await conn.executemany(
            "INSERT INTO metapath_patterns (first, second, weight, yield, novelty, turn) VALUES (?, ?, ?, ?, ?, ?)",
            [(k.pattern.relations[0], k.pattern.relations[1], k.pattern.weight, k.yield_, k.novelty, k.turn)
             for k in kept])
