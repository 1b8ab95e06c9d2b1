"""Reading the gossip log back from a save: the last turn each pair talked, and who told a person what.

The log (table ``gossip_log``) is written with the turns by the core (``game.store.told_log``: its rows
are journaled and undone with the turn); what gossip reads of it is the feature's: the cooldown between
two people (``kith graph gossip`` going on from the rounds before) and ``/why`` (who told a person what
they know second-hand). Each read takes the open save and names it when a row is damaged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from game.store.damage import reading
from game.store.told_log import COLUMNS, Told, pair_key

if TYPE_CHECKING:
    from game.store.database import SaveDatabase


async def last_talked(db: SaveDatabase) -> dict[tuple[str, str], int]:
    """The last turn each pair of people gossiped (``pair_key``), for the cooldown."""
    with reading(db.name):
        rows = await db.conn.execute_fetchall(
            "SELECT teller, listener, max(turn) FROM gossip_log GROUP BY teller, listener")
        found: dict[tuple[str, str], int] = {}
        for teller, listener, turn in rows:
            key = pair_key(str(teller), str(listener))
            found[key] = max(found.get(key, int(turn)), int(turn))
        return found


async def told_to(db: SaveDatabase, listeners: Sequence[str]) -> list[Told]:
    """Every exchange in which one of ``listeners`` was told something, oldest first (through the listener
    index: ``/why``)."""
    with reading(db.name):
        found: list[Told] = []
        for listener in listeners:
            rows = await db.conn.execute_fetchall(
                f"SELECT {COLUMNS} FROM gossip_log WHERE listener = ? ORDER BY turn, teller, edge_id", (listener,))
            found += [Told(int(r[0]), str(r[1]), str(r[2]), str(r[3]), float(r[4])) for r in rows]
        return found
