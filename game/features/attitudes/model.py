"""An NPC's attitude toward the player: trust, respect and friendliness, their history, and the tier.

Each person's attitude is kept as one row of the ``attitudes`` table (migration 6), written with the turn
that changed it (a ``RowWrite``), so undo puts back exactly what the turn replaced. Someone with no row
yet has the attitude their open relations toward the player imply (``baseline``): the world's authored
relations at turn 0, or whatever a save from before attitudes holds. So a new game needs no rows, and an
old save opens with attitudes that agree with its graph.

The tiers, their thresholds and the disposition's weights are in ``game.world.tiers`` (content names
tiers, so the world layer owns their names).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from game.features.attitudes.rules import relation_delta
from game.features.feature import Delta
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.names import normalize_name
from game.store.decoded import attitude_history, naming
from game.store.rows import RowWrite, Scalar
from game.world.tiers import Tier, clamp, disposition, tier_of

TABLE = "attitudes"
MAX_HISTORY = 200
"""Changes kept per person (the oldest go first); `/relationship` and `kith graph attitude` show them."""
DIMENSIONS: tuple[str, ...] = ("trust", "respect", "friendliness")


@dataclass(frozen=True)
class Change:
    """One entry of an attitude's history: the turn, the values after the change, and its reason."""

    turn: int
    trust: float
    respect: float
    friendliness: float
    reason: str

    def to_json_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "trust": self.trust, "respect": self.respect,
                "friendliness": self.friendliness, "reason": self.reason}


@dataclass(frozen=True)
class Attitude:
    """One person's attitude toward the player, now, with how it got here."""

    npc_id: str
    name: str
    trust: float = 0.0
    respect: float = 0.0
    friendliness: float = 0.0
    history: tuple[Change, ...] = ()

    @property
    def disposition(self) -> float:
        return disposition(self.trust, self.respect, self.friendliness)

    @property
    def tier(self) -> Tier:
        return tier_of(self.disposition)

    @property
    def interactions(self) -> int:
        """How many changes the attitude has seen."""
        return len(self.history)

    def value(self, dimension: str) -> float:
        if dimension not in DIMENSIONS:
            raise ValueError(f"unknown dimension {dimension!r}")
        return float(getattr(self, dimension))

    def changed(self, delta: Delta, turn: int) -> Attitude:
        """This attitude with ``delta`` added (each dimension clamped), recorded at ``turn``."""
        trust, respect = clamp(self.trust + delta.trust), clamp(self.respect + delta.respect)
        friendliness = clamp(self.friendliness + delta.friendliness)
        return self.set_to(trust, respect, friendliness, turn, delta.reason)

    def set_to(self, trust: float, respect: float, friendliness: float, turn: int, reason: str) -> Attitude:
        """This attitude with absolute values (clamped), recorded at ``turn``."""
        trust, respect, friendliness = clamp(trust), clamp(respect), clamp(friendliness)
        entry = Change(turn, trust, respect, friendliness, reason[:200])
        history = (*self.history, entry)[-MAX_HISTORY:]
        return replace(self, trust=trust, respect=respect, friendliness=friendliness, history=history)

    # ------------------------------------------------------------------------------------ storage

    def row(self) -> RowWrite:
        """This attitude as its row of the ``attitudes`` table."""
        values: dict[str, Scalar] = {
            "npc_id": self.npc_id, "name": self.name, "trust": self.trust, "respect": self.respect,
            "friendliness": self.friendliness,
            "history": json.dumps([c.to_json_dict() for c in self.history], ensure_ascii=False),
        }
        return RowWrite(TABLE, {"npc_id": self.npc_id}, values)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Attitude:
        with naming(TABLE, "history"):  # decoded as ``kith saves check`` and salvage decode it
            changes = attitude_history(row["history"] or "[]")
        history = tuple(
            Change(int(c["turn"]), float(c["trust"]), float(c["respect"]), float(c["friendliness"]),
                   str(c["reason"]))
            for c in changes
        )
        return cls(str(row["npc_id"]), str(row["name"]), float(row["trust"]), float(row["respect"]),
                   float(row["friendliness"]), history)


def baseline(graph: GraphIndex, npc: Node) -> Attitude:
    """The attitude ``npc``'s open relations toward the player imply, before any change is recorded."""
    total = Delta()
    for edge in player_relations(graph, npc.id):
        total = total.plus(relation_delta(edge.relation, edge.strength))
    return Attitude(npc.id, npc.name, clamp(total.trust), clamp(total.respect), clamp(total.friendliness))


def player_relations(graph: GraphIndex, npc_id: str) -> Iterator[Any]:
    """The open relations from ``npc_id`` to the player (how they stand with the player)."""
    for edge_id in graph.adjacent(npc_id):
        edge = graph.open_edges.get(edge_id)
        if edge is not None and edge.source == npc_id and edge.target in graph.player_ids:
            yield edge


@dataclass
class AttitudeBook:
    """Every recorded attitude of a game, by NPC node ID: ``PlayState.attitudes``."""

    stored: dict[str, Attitude] = field(default_factory=dict)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> AttitudeBook:
        return cls({a.npc_id: a for a in (Attitude.from_row(r) for r in rows)})

    def of(self, graph: GraphIndex, npc: Node) -> Attitude:
        """``npc``'s attitude: recorded, else what their relations toward the player imply."""
        found = self.stored.get(npc.id)
        return found if found is not None else baseline(graph, npc)

    def updated(self, attitudes: Iterable[Attitude]) -> AttitudeBook:
        """A new book with ``attitudes`` recorded (the turn's; memory changes only once it is stored)."""
        stored = dict(self.stored)
        stored.update({a.npc_id: a for a in attitudes})
        return AttitudeBook(stored)


@dataclass(frozen=True)
class AttitudeView:
    """What the story, the context and the commands read: anyone's attitude, by node or by name."""

    book: AttitudeBook
    graph: GraphIndex

    def of(self, npc: Node) -> Attitude:
        return self.book.of(self.graph, npc)

    def person(self, name: str) -> Node | None:
        """The one individual (not the player) called ``name``: exact name first, then an alias."""
        wanted = normalize_name(name)
        people = [n for n in self.graph.nodes_with_name(wanted)
                  if n.type == "individual" and n.id not in self.graph.player_ids]
        exact = [n for n in people if normalize_name(n.name) == wanted]
        found = exact or people
        return found[0] if len(found) == 1 else None

    def named(self, name: str) -> Attitude | None:
        node = self.person(name)
        return None if node is None else self.of(node)

    def tier(self, name: str) -> Tier:
        """``name``'s tier toward the player; NEUTRAL for someone the graph does not hold."""
        found = self.named(name)
        return "NEUTRAL" if found is None else found.tier
