"""The fast path's versions of one turn, read from the save by their evidence mark.

Enrichment replaces what the fast path read from a turn (``game.engine.enrich``): the versions it opened
(``fast:turn-N`` in ``evidence``) and the ones its reading ended (``fast-closed:turn-N``). Both are found
through an index on the mark's turn number (migration 13), so a turn costs a few rows however long the
game: the WHERE terms below must stay word for word the indexes' expressions, or SQLite scans instead
(``tests/test_enrich_polish.py`` checks the plan). The marks' own parser (``fast_from``) then keeps only
exact matches.
"""

from __future__ import annotations

from typing import NamedTuple

import aiosqlite

from game.graph.fast_extract.marks import fast_closed_at, fast_from
from game.graph.models import Edge
from game.store.graph_repo import EDGE_COLUMNS, edge_from_row

OPENED_SQL = (f"SELECT {EDGE_COLUMNS} FROM edges WHERE instr(evidence, 'fast:turn-') > 0 "
              "AND CAST(substr(evidence, instr(evidence, 'fast:turn-') + 10) AS INTEGER) = ? AND invalid_at IS NULL "
              "ORDER BY seq")
CLOSED_SQL = (f"SELECT {EDGE_COLUMNS} FROM edges WHERE instr(evidence, 'fast-closed:turn-') > 0 "
              "AND CAST(substr(evidence, instr(evidence, 'fast-closed:turn-') + 17) AS INTEGER) = ? ORDER BY seq")


class FastReading(NamedTuple):
    """What the fast path's reading of one turn left in the save."""

    opened: list[Edge]
    """Its versions still open."""
    ended: list[Edge]
    """The versions it ended (closed by it, or by a new value it read)."""


async def fast_reading(conn: aiosqlite.Connection, turn: int) -> FastReading:
    opened = [edge_from_row(row) for row in await conn.execute_fetchall(OPENED_SQL, (turn,))]
    ended = [edge_from_row(row) for row in await conn.execute_fetchall(CLOSED_SQL, (turn,))]
    return FastReading([e for e in opened if fast_from(e) == turn], [e for e in ended if fast_closed_at(e) == turn])
