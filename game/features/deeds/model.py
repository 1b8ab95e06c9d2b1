"""Deeds and who knows them: the rows of ``deeds`` and ``deed_knowers`` (migration 15) and the book of both.

A deed is one act: ``actor`` did ``act`` to ``target`` at ``turn`` in ``place`` before ``witnesses``. People
are node IDs (the command line and the checks show names). A knower row says how one person knows a deed:
``seen`` (actor, target, everyone on stage), ``told`` (by someone who saw it) or ``rumour`` (by someone who
was told), from whom, how sure and since when: the same shape as who knows a relation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

from game.features.deeds.rules import APOLOGY, CONFESS, DOING, VALENCES, Valence
from game.store import decoded
from game.store.rows import RowWrite, Scalar

DEEDS = "deeds"
KNOWERS = "deed_knowers"
DeedHow = Literal["seen", "told", "rumour"]


@dataclass(frozen=True)
class Deed:
    """One act, as it happened."""

    deed_id: str
    turn: int
    actor: str
    act: str
    target: str
    """A person's node ID, or (``target_kind`` item or place) the thing's name."""
    place: str
    valence: Valence
    witnesses: tuple[str, ...]
    sentence: str
    target_kind: Literal["person", "item", "place"] = "person"
    thing: str = ""
    """What the act used or concerned: the item given, the topic of a warning."""

    def row(self) -> RowWrite:
        values: dict[str, Scalar] = {
            "id": self.deed_id, "turn": self.turn, "actor": self.actor, "act": self.act, "target": self.target,
            "target_kind": self.target_kind, "place": self.place, "valence": self.valence,
            "witnesses": json.dumps(list(self.witnesses)), "sentence": self.sentence, "thing": self.thing}
        return RowWrite(DEEDS, {"id": self.deed_id}, values)

    @classmethod
    def from_row(cls, row: Mapping[str, Scalar]) -> Deed:
        valence = str(row["valence"])
        kind = str(row.get("target_kind") or "person")
        return cls(str(row["id"]), int(cast(int, row["turn"])), str(row["actor"]), str(row["act"]),
                   str(row["target"]), str(row["place"] or ""),
                   _valence(valence),
                   tuple(_witnesses(row["witnesses"])), str(row["sentence"]),
                   cast(Literal["person", "item", "place"], kind if kind in ("person", "item", "place") else "person"),
                   str(row.get("thing") or ""))


@dataclass(frozen=True)
class DeedKnowing:
    """One person's knowledge of one deed. Keyed by ``(deed_id, knower)``."""

    deed_id: str
    knower: str
    how: DeedHow
    source: str | None
    confidence: float
    since_turn: int

    @property
    def key(self) -> tuple[str, str]:
        return (self.deed_id, self.knower)

    def row(self) -> RowWrite:
        return RowWrite(KNOWERS, {"deed_id": self.deed_id, "knower": self.knower},
                        {"deed_id": self.deed_id, "knower": self.knower, "how": self.how, "source": self.source,
                         "confidence": self.confidence, "since_turn": self.since_turn})

    @classmethod
    def from_row(cls, row: Mapping[str, Scalar]) -> DeedKnowing:
        how = str(row["how"])
        return cls(str(row["deed_id"]), str(row["knower"]),
                   cast(DeedHow, how if how in ("seen", "told", "rumour") else "rumour"),
                   None if row["source"] is None else str(row["source"]),
                   float(cast(float, row["confidence"])), int(cast(int, row["since_turn"])))


def _valence(word: str) -> Valence:
    for valence in VALENCES:
        if valence == word:
            return valence
    return "neutral"


def keep_better(current: DeedKnowing | None, learned: DeedKnowing) -> DeedKnowing:
    """Hearing a deed again never makes one less sure, and the first hearing keeps its turn and teller."""
    if current is None or learned.confidence > current.confidence:
        return learned
    if learned.confidence == current.confidence and learned.since_turn < current.since_turn:
        return learned
    return current


@dataclass
class DeedBook:
    """Every deed of a game and who knows each: the deeds feature's state."""

    deeds: dict[str, Deed] = field(default_factory=dict)
    knowings: dict[tuple[str, str], DeedKnowing] = field(default_factory=dict)
    by_knower: dict[str, set[str]] = field(default_factory=dict)
    last_told: dict[tuple[str, str], int] = field(default_factory=dict)
    """The last turn each pair passed on a deed (either way round): deed gossip's cooldown."""
    apologies: dict[str, list[str]] = field(default_factory=dict)
    """Each actor's apologies (deed IDs, oldest first): few, and read for every harm that travels."""
    confessions: dict[str, list[str]] = field(default_factory=dict)
    """Each actor's confessions (deed IDs): what discretion reads to let their harms be told."""

    @classmethod
    def from_rows(cls, deeds: Iterable[Mapping[str, Scalar]], knowers: Iterable[Mapping[str, Scalar]]) -> DeedBook:
        book = cls()
        book.add([Deed.from_row(r) for r in deeds], [DeedKnowing.from_row(r) for r in knowers])
        return book

    def add(self, deeds: Iterable[Deed], knowings: Iterable[DeedKnowing]) -> None:
        for deed in deeds:
            self.deeds[deed.deed_id] = deed
            for act, index in ((APOLOGY, self.apologies), (CONFESS, self.confessions)):
                if deed.act == act and deed.deed_id not in index.get(deed.actor, []):
                    index.setdefault(deed.actor, []).append(deed.deed_id)
        for knowing in knowings:
            self.knowings[knowing.key] = knowing
            self.by_knower.setdefault(knowing.knower, set()).add(knowing.deed_id)
            if knowing.source is not None and knowing.how != "seen":
                pair = _pair(knowing.source, knowing.knower)
                self.last_told[pair] = max(self.last_told.get(pair, -1), knowing.since_turn)

    def updated(self, rows: Sequence[RowWrite]) -> DeedBook:
        """A copy with a committed turn's rows applied (rows of other tables are ignored)."""
        book = DeedBook(dict(self.deeds), dict(self.knowings), {k: set(v) for k, v in self.by_knower.items()},
                        dict(self.last_told), {k: list(v) for k, v in self.apologies.items()},
                        {k: list(v) for k, v in self.confessions.items()})
        deeds = [Deed.from_row(r.row) for r in rows if r.table == DEEDS and r.row is not None]
        knowings = [DeedKnowing.from_row(r.row) for r in rows if r.table == KNOWERS and r.row is not None]
        book.add(deeds, knowings)
        return book

    def known_by(self, knower: str) -> list[tuple[Deed, DeedKnowing]]:
        """The deeds ``knower`` knows, oldest learned first."""
        found = [(self.deeds[d], self.knowings[(d, knower)]) for d in self.by_knower.get(knower, ())
                 if d in self.deeds and (d, knower) in self.knowings]
        return sorted(found, key=lambda pair: (pair[1].since_turn, pair[0].turn, pair[0].deed_id))

    def knowing(self, deed_id: str, knower: str) -> DeedKnowing | None:
        return self.knowings.get((deed_id, knower))

    def amends(self, harm: Deed) -> list[Deed]:
        """The apologies that answer ``harm``: its actor's, at its turn or later, for that kind of act, to the
        one harmed, or to someone else naming them ("sorry for threatening Tibby", said to Hob)."""
        if harm.valence != "harmful":
            return []
        word = DOING.get(harm.act, harm.act).split()[0]
        harmed = {w.strip(".,").casefold() for w in harm.sentence.split()}
        found = []
        for deed_id in self.apologies.get(harm.actor, ()):
            apology = self.deeds.get(deed_id)
            if apology is None or apology.turn < harm.turn or not apology.thing.startswith(word):
                continue
            named = {w.casefold() for w in apology.thing.split()[1:]} - {"from", "to", "her", "him", "them"}
            if apology.target == harm.target or (named and named <= harmed):
                found.append(apology)
        return found

    def on_turn(self, turn: int) -> list[Deed]:
        return [deed for deed in self.deeds.values() if deed.turn == turn]


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


pair = _pair


def _witnesses(value: Scalar) -> list[str]:
    """The stored witness list, read as every reader of the save reads it: a damaged value says where it is."""
    with decoded.naming("deeds", "witnesses"):
        return decoded.text_list(value or "[]")
