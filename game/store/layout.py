"""The relationship map's kept layout (table ``layout``): where the player left each node on the map.

The map (``game.graph.map``, the map pane, ``kith graph map``) is not a turn's: its positions are written
when the player moves the map, outside any turn, and undo leaves them. The table is the core's (migration
1), so its face is a store module over the open save, not a method of the save's class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.store.damage import reading

if TYPE_CHECKING:
    from game.store.database import SaveDatabase


async def load_layout(db: SaveDatabase) -> dict[str, tuple[float, float]]:
    """The kept position of each node that has one (none for a save whose map was never moved)."""
    with reading(db.name):
        rows = await db.conn.execute_fetchall("SELECT node_id, x, y FROM layout")
        return {row[0]: (float(row[1]), float(row[2])) for row in rows}


async def save_layout(db: SaveDatabase, positions: dict[str, tuple[float, float]]) -> None:
    """Keep ``positions`` in one transaction; a node the save no longer holds (merged away) is skipped."""
    async with db.transaction() as conn:
        await conn.executemany(
            "INSERT INTO layout (node_id, x, y) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM nodes WHERE id = ?) "
            "ON CONFLICT(node_id) DO UPDATE SET x = excluded.x, y = excluded.y",
            [(node_id, x, y, node_id) for node_id, (x, y) in positions.items()],
        )
