"""The enrichment queue's face on an open save: which turns wait for a model's reading, and writing one.

A turn committed before any model read its relations (the fast path's reading, or none) is marked
(``turns.extracted``, ``turns.extraction``); the engine's enrichment (``game.engine.enrich``) reads the
queue, what the fast path left of a turn, and commits each later reading with the turn's new mark. It is
the extraction step's, not the save's core: it takes the open save and writes through its transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from game.store import journal as journal_log
from game.store.damage import reading
from game.store.turn_log import turns_where

if TYPE_CHECKING:
    from game.graph.ports import GraphWrites
    from game.store.database import SaveDatabase, TurnRecord
    from game.store.fast_marks import FastReading


async def commit_enrichment(db: SaveDatabase, writes: GraphWrites, turn: int,
                            marks: Sequence[tuple[int, bool, str]]) -> None:
    """Graph writes read later for earlier turns, and each turn's new mark, in one transaction.

    ``marks``: ``(number, extracted, extraction)`` per turn. Journaled at the current ``turn``, the
    turns' rows included (``row:turns``): undoing that turn puts the graph and the marks back, so the
    turns wait in the queue again.
    """
    async with db.transaction() as conn:
        await db.write_graph(conn, writes, turn, journal=turn > 0)
        if turn > 0:
            await journal_log.record_rows(conn, turn, "turns", [{"number": number} for number, _, _ in marks])
        await conn.executemany("UPDATE turns SET extracted = ?, extraction = ? WHERE number = ?",
                               [(int(extracted), extraction, number) for number, extracted, extraction in marks])


async def fast_reading(db: SaveDatabase, turn: int) -> FastReading:
    """What the fast path's reading of ``turn`` left: its open versions and the ones it ended (by their
    evidence marks, through their indexes: a few rows however long the game)."""
    from game.store.fast_marks import fast_reading as read_marks  # the fast path's marks, only when enriching

    with reading(db.name):
        return await read_marks(db.conn, turn)


async def extraction_counts(db: SaveDatabase) -> dict[str, int]:
    """How many turns the graph holds each way (``full``, ``fast``, ``none``, ``enriched``)."""
    with reading(db.name):
        rows = await db.conn.execute_fetchall("SELECT extraction, count(*) FROM turns GROUP BY extraction")
        return {str(row[0]): int(row[1]) for row in rows}


async def pending_extraction(db: SaveDatabase) -> list[TurnRecord]:
    """The enrichment queue, oldest first: turns whose narration committed but whose relations no model
    has recorded (the fast path read them, ``extraction = 'fast'``, or nobody did, ``'none'``)."""
    with reading(db.name):
        return await turns_where(db, "extracted = 0")
