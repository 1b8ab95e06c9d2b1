"""Questions of identity: a new name that may be someone already known, waiting for an answer.

When ``game.graph.identity_match`` is unsure (a confidence from 0.4 to 0.8), the new name gets a node of
its own and a row here: the story asks the player at the next turn, or an author answers with ``kith graph
resolve``. A row is written with the turn as a ``RowWrite`` (journaled), so undo removes it, or puts back
its question unasked or unanswered, exactly. Answered rows stay, with how they were answered: the list is
also the record of who decided that two names are one person.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import aiosqlite

from game.features.identity.schema import MIGRATIONS
from game.store.damage import reading
from game.store.database import SaveDatabase
from game.store.promised import expects
from game.store.rows import RowWrite, Scalar
from game.store.schema import since

PENDING_TABLE = "pending_identities"
"""The table (migration: pending identities)."""

Status = Literal["open", "same", "different"]


@dataclass(frozen=True)
class PendingIdentity:
    """One question: is ``new_name`` (node ``new_id``) the same person as ``candidate_name``?"""

    id: str
    """``T-K``: the K-th question raised at turn T (short enough to type: ``kith graph resolve ... 3-1 yes``)."""
    turn: int
    new_id: str
    new_name: str
    candidate_id: str
    candidate_name: str
    confidence: float
    evidence: str
    status: Status = "open"
    asked_turn: int | None = None
    """The turn whose narration asked the player (None: not asked yet)."""
    resolved_turn: int | None = None
    resolution: str | None = None
    """How it was answered: "the player said so at turn 5", "kith graph resolve"..."""

    @classmethod
    def from_row(cls, row: Mapping[str, Scalar]) -> PendingIdentity:
        """A row as ``row()`` wrote it (a ``RowWrite``'s, or one read back)."""
        return _from_row([row.get(column) for column in COLUMNS.split(", ")])

    @property
    def is_open(self) -> bool:
        return self.status == "open"

    def row(self) -> dict[str, Scalar]:
        return {
            "id": self.id, "turn": self.turn, "new_id": self.new_id, "new_name": self.new_name,
            "candidate_id": self.candidate_id, "candidate_name": self.candidate_name,
            "confidence": self.confidence, "evidence": self.evidence, "status": self.status,
            "asked_turn": self.asked_turn, "resolved_turn": self.resolved_turn, "resolution": self.resolution,
        }

    def write(self) -> RowWrite:
        """This row as the turn writes it (journaled by the store, so undo puts back what it replaced)."""
        return RowWrite(PENDING_TABLE, {"id": self.id}, self.row())

    def asked(self, turn: int) -> PendingIdentity:
        return replace(self, asked_turn=turn)

    def resolved(self, same: bool, turn: int, how: str) -> PendingIdentity:
        return replace(self, status="same" if same else "different", resolved_turn=turn, resolution=how)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "turn": self.turn, "newId": self.new_id, "newName": self.new_name,
            "candidateId": self.candidate_id, "candidate": self.candidate_name,
            "confidence": round(self.confidence, 3), "evidence": self.evidence, "status": self.status,
            "askedTurn": self.asked_turn, "resolvedTurn": self.resolved_turn, "resolution": self.resolution,
        }


COLUMNS = ("id, turn, new_id, new_name, candidate_id, candidate_name, confidence, evidence, status, asked_turn, "
           "resolved_turn, resolution")


def _from_row(row: Sequence[Any]) -> PendingIdentity:
    status = str(row[8])
    return PendingIdentity(
        id=str(row[0]), turn=int(row[1]), new_id=str(row[2]), new_name=str(row[3]), candidate_id=str(row[4]),
        candidate_name=str(row[5]), confidence=float(row[6]), evidence=str(row[7]),
        status="same" if status == "same" else "different" if status == "different" else "open",
        asked_turn=None if row[9] is None else int(row[9]),
        resolved_turn=None if row[10] is None else int(row[10]),
        resolution=None if row[11] is None else str(row[11]),
    )


async def read(conn: aiosqlite.Connection, *, open_only: bool = False) -> list[PendingIdentity]:
    """Every question (or the open ones), oldest first. A save older than the table has none; in a newer
    save a missing table is damage, and the read fails (``promised``)."""
    if not await expects(conn, since(MIGRATIONS, PENDING_TABLE)):
        return []
    where = "WHERE status = 'open'" if open_only else ""
    rows = await conn.execute_fetchall(f"SELECT {COLUMNS} FROM {PENDING_TABLE} {where} ORDER BY turn, id")
    return by_age(_from_row(r) for r in rows)


def from_rows(rows: Iterable[Mapping[str, Scalar]], *, open_only: bool = False) -> list[PendingIdentity]:
    """The questions (or the open ones) of the table's rows as read back whole, oldest first."""
    return by_age(q for q in map(PendingIdentity.from_row, rows) if q.is_open or not open_only)


def by_age(questions: Iterable[PendingIdentity]) -> list[PendingIdentity]:
    """Oldest first: by the turn raised, then by the number within it (``3-10`` after ``3-9``)."""
    return sorted(questions, key=lambda p: (p.turn, _order(p.id)))


async def questions(db: SaveDatabase, *, open_only: bool = False) -> list[PendingIdentity]:
    """The save's questions (or the open ones), oldest first; damage met reading them is one ``SaveError``
    naming the save."""
    with reading(db.name):
        return await read(db.conn, open_only=open_only)


def after_merge(questions: Iterable[PendingIdentity], kept: tuple[str, str], merged: tuple[str, str],
                turn: int) -> list[PendingIdentity]:
    """The open questions a merge of ``merged`` into ``kept`` (each ``(id, name)``) changes, re-checked.

    A question asks whether a *new* name is someone known. After the merge: the question about these two
    very nodes is answered by it; one whose candidate was folded asks about the kept person instead ("is
    the stranger Tobin?" is "is the stranger Maud?"); and one whose new node was either of the two is no
    question any more, because that node is now an established person: "is Keeper Marsh Edda?" asked
    before Keeper Marsh was folded into Tobin would, answered yes, fold Tobin into Edda. It is closed,
    its resolution saying which merge closed it. A question whose candidate is the kept node still stands.
    """
    ids = {kept[0], merged[0]}
    changed = []
    for question in questions:
        if not question.is_open:
            continue  # the record of who decided what, as it was decided
        if {question.new_id, question.candidate_id} == ids:
            changed.append(question.resolved(True, turn, f"merged at turn {turn}"))
        elif question.new_id in ids:
            changed.append(question.resolved(
                False, turn, f"closed: {merged[1]} was merged into {kept[1]} at turn {turn}"))
        elif question.candidate_id == merged[0]:
            changed.append(replace(question, candidate_id=kept[0], candidate_name=kept[1]))
    return changed


def _order(pending_id: str) -> int:
    tail = pending_id.rpartition("-")[2]
    return int(tail) if tail.isdigit() else 0
