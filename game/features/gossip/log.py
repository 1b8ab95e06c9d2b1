"""The gossip feature's state: the log of word passed (table ``gossip_log``), read whole at opening.

Two questions are asked of it every turn and by ``/why``: when each pair of people last talked (the
pair cooldown) and who told a person what. A played turn's exchanges are rows of the table
(``exchange_row``), written in the turn's one transaction and journaled like any feature's rows; the
state moves by those rows once the commit succeeded (``updated``). A merge that re-points the log, undo,
restore and ``kith graph gossip`` rewrite the table, and the game is read back afterwards (``from_rows``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from game.store.rows import RowWrite, Scalar
from game.store.told_log import TABLE, Told, pair_key

Key = tuple[int, str, str, str]
"""An exchange's primary key: turn, teller, listener, version."""


@dataclass(frozen=True)
class WordLog:
    """Every exchange the save has logged, with the last turn each pair talked."""

    exchanges: Mapping[Key, Told] = field(default_factory=dict)
    talked: Mapping[tuple[str, str], int] = field(default_factory=dict)
    """The last turn each pair (``pair_key``) gossiped: the cooldown."""

    @classmethod
    def of(cls, exchanges: Iterable[Told]) -> WordLog:
        kept = {_key(t): t for t in exchanges}
        talked: dict[tuple[str, str], int] = {}
        for told in kept.values():
            pair = pair_key(told.teller, told.listener)
            talked[pair] = max(talked.get(pair, told.turn), told.turn)
        return cls(kept, talked)

    def told_to(self, listener: str) -> list[Told]:
        """Every exchange in which ``listener`` was told something, oldest first (``/why``)."""
        return sorted((t for t in self.exchanges.values() if t.listener == listener),
                      key=lambda t: (t.turn, t.teller, t.edge_id))


def _key(told: Told) -> Key:
    return (told.turn, told.teller, told.listener, told.edge_id)


def exchange_row(told: Told) -> RowWrite:
    """One exchange as a row of the log, written with a played turn and undone with it."""
    key: dict[str, Scalar] = {"turn": told.turn, "teller": told.teller, "listener": told.listener,
                              "edge_id": told.edge_id}
    return RowWrite(TABLE, key, {**key, "confidence": told.confidence})


def from_row(row: Mapping[str, Scalar]) -> Told:
    """An exchange as the log holds it."""
    return Told(int(row["turn"] or 0), str(row["teller"]), str(row["listener"]), str(row["edge_id"]),
                float(row["confidence"] or 0.0))


def from_rows(rows: Iterable[Mapping[str, Scalar]]) -> WordLog:
    """The log as the save holds it."""
    return WordLog.of(from_row(row) for row in rows)


def updated(log: WordLog, rows: Sequence[RowWrite]) -> WordLog:
    """The log after a commit wrote ``rows`` (its own table's; any other table's are passed over)."""
    mine = [row for row in rows if row.table == TABLE]
    if not mine:
        return log
    exchanges = dict(log.exchanges)
    for write in mine:
        key = (int(write.key["turn"] or 0), str(write.key["teller"]), str(write.key["listener"]),
               str(write.key["edge_id"]))
        if write.row is None:
            exchanges.pop(key, None)
        else:
            exchanges[key] = from_row(write.row)
    return WordLog.of(exchanges.values())
