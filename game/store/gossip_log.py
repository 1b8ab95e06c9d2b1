"""The gossip log: who told whom which fact, at which turn, and how sure the listener came away.

Gossip's cooldown reads the last turn each pair talked from here, and ``/why`` reads who told a person
what they know second-hand. Rows are only ever added, inside the turn's transaction, and journaled (kind
``"gossip"``, before-image NULL) so that undo deletes exactly the exchanges of the turn it takes back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import aiosqlite

from game.graph.gossip import Told, pair_key

COLUMNS = "turn, teller, listener, edge_id, confidence"


def journal_key(told: Told) -> str:
    """How one exchange is named in the journal (IDs are slugs: ``|`` never occurs in them)."""
    return f"{told.turn}|{told.teller}|{told.listener}|{told.edge_id}"


async def put(conn: aiosqlite.Connection, told: Iterable[Told]) -> None:
    rows = [(t.turn, t.teller, t.listener, t.edge_id, t.confidence) for t in told]
    if rows:  # most turns tell nothing, and even an empty statement is a trip to the database thread
        await conn.executemany(f"INSERT OR REPLACE INTO gossip_log ({COLUMNS}) VALUES (?, ?, ?, ?, ?)", rows)


async def delete(conn: aiosqlite.Connection, key: str) -> None:
    """Forget one exchange by its journal key."""
    turn, teller, listener, edge_id = key.split("|", 3)
    await conn.execute("DELETE FROM gossip_log WHERE turn = ? AND teller = ? AND listener = ? AND edge_id = ?",
                       (int(turn), teller, listener, edge_id))


async def last_talked(conn: aiosqlite.Connection) -> dict[tuple[str, str], int]:
    """The last turn each pair of people gossiped (``pair_key``), for the cooldown."""
    rows = await conn.execute_fetchall("SELECT teller, listener, max(turn) FROM gossip_log GROUP BY teller, listener")
    found: dict[tuple[str, str], int] = {}
    for teller, listener, turn in rows:
        key = pair_key(str(teller), str(listener))
        found[key] = max(found.get(key, int(turn)), int(turn))
    return found


async def told_to(conn: aiosqlite.Connection, listeners: Sequence[str]) -> list[Told]:
    """Every exchange whose listener is one of ``listeners``, oldest first (through the listener index)."""
    found: list[Told] = []
    for listener in listeners:
        rows = await conn.execute_fetchall(
            f"SELECT {COLUMNS} FROM gossip_log WHERE listener = ? ORDER BY turn, teller, edge_id", (listener,))
        found += [Told(int(r[0]), str(r[1]), str(r[2]), str(r[3]), float(r[4])) for r in rows]
    return found
