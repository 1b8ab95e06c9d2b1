"""The log of word passed: who told whom which relation version, at which turn, and how sure they came away.

The table is ``gossip_log`` (its name is the saved format's). The knowledge-and-gossip feature
(``game.features.gossip``) decides who tells what and reads the log back (``game.features.gossip.store``:
the cooldown, ``/why``); this module is the SQL the core's writes and undo need, which stays in the
store. A played turn writes its exchanges as the feature's ``RowWrite`` rows (journaled
``row:gossip_log``); ``kith graph gossip`` and tellings stored by older versions log them as ``Told``
records, journaled with kind ``"gossip"`` (before-image NULL), so undo deletes exactly the exchanges of
the turn it takes back either way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import aiosqlite

TABLE = "gossip_log"
JOURNAL_KIND = "gossip"
"""The journal kind of an exchange logged as a ``Told`` (``journal_key`` names it)."""
COLUMNS = "turn, teller, listener, edge_id, confidence"


@dataclass(frozen=True)
class Told:
    """One exchange: at ``turn`` ``teller`` told ``listener`` the version ``edge_id``, now known at ``confidence``.

    The save keeps these: the last turn a pair talked (cooldown) and who told whom (``/why``).
    """

    turn: int
    teller: str
    listener: str
    edge_id: str
    confidence: float


def pair_key(a: str, b: str) -> tuple[str, str]:
    """A pair of people regardless of who spoke: cooldown is about the two of them meeting."""
    return (a, b) if a <= b else (b, a)


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


async def journaled(conn: aiosqlite.Connection, keys: Iterable[str]) -> list[Told]:
    """The exchanges the journal names by ``journal_key`` that the log still holds (a turn told again)."""
    found: list[Told] = []
    for key in keys:
        number, teller, listener, edge_id = key.split("|", 3)
        rows = await conn.execute_fetchall(
            "SELECT confidence FROM gossip_log WHERE turn = ? AND teller = ? AND listener = ? AND edge_id = ?",
            (int(number), teller, listener, edge_id))
        found += [Told(int(number), teller, listener, edge_id, float(r[0])) for r in rows]
    return found
