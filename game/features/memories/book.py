"""NPCs' memories of the player: episodic and semantic memories, and what each NPC has said.

Each NPC keeps at most ``MemorySettings.capacity`` episodic memories of the player (one sentence each, with
the turn, an importance, a valence, tags and a strength), plus semantic memories consolidated from old
related ones, plus what they have said to the player (``said``: the first meeting, each secret revealed),
which never fades: a confession stays confessed.

Decay is lazy. A memory row holds its ``strength`` as of ``last_used`` (the turn it was formed or last
recalled) and how often it was used; its strength at any later turn is computed from those
(``strength_at``): it falls by ``decay_rate`` per turn, divided by ``1 + uses``, so a memory recalled into
a context or a reply fades more slowly. Nothing is rewritten as turns pass: a turn writes only the rows it
forms, recalls, evicts or consolidates, never 200 rows per NPC to age them.

Rows are the store's ``RowWrite``s (tables ``npc_memories`` and ``npc_said``), committed with the turn and
undone with it. The book is the memories feature's state (``PlayState.features["memories"]``, read through
``PlayState.memories``): ``MemoryBook.from_rows`` builds it when a game opens and ``MemoryBook.apply``
follows a turn's rows, so the book after a turn is exactly the book read back from the save.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from game.store.decoded import count, naming, text_list
from game.store.rows import RowWrite, Scalar

MEMORY_TABLE = "npc_memories"
SAID_TABLE = "npc_said"
MemoryKind = Literal["episodic", "semantic"]


@dataclass(frozen=True)
class MemorySettings:
    """How much an NPC remembers and how fast it fades (the ``[memory]`` settings)."""

    capacity: int = 200
    """Episodic memories kept per NPC; past it, the weakest (importance, strength, age) is forgotten."""
    semantic_capacity: int = 50
    decay_rate: float = 0.02
    """Strength lost per turn by a memory never used (a fraction of what is left)."""
    recall_boost: float = 0.2
    """Strength a memory gains each time it is recalled (capped at 1)."""
    consolidate_age: int = 20
    """Episodic memories at least this many turns old may be consolidated..."""
    consolidate_count: int = 3
    """...when at least this many of them share a tag: they become one semantic memory."""
    heard_factor: float = 0.6
    """A memory of something only heard of is this much as important as one witnessed."""


@dataclass(frozen=True)
class Memory:
    """One memory ``npc`` (a node ID) has of the player."""

    npc: str
    seq: int
    """Per-NPC number, in order of forming: with ``npc`` the row's key."""
    kind: MemoryKind
    text: str
    turn: int
    importance: float
    valence: float
    tags: tuple[str, ...] = ()
    strength: float = 1.0
    """Strength as of ``last_used``; ``strength_at`` gives it at a later turn."""
    last_used: int = 0
    uses: int = 0
    heard: bool = False
    """Learned from someone else (telling, gossip), not witnessed."""
    about: str = ""
    """The node ID of the person the player's deed was done to ('' when it was done to ``npc`` itself or
    to nobody in particular)."""

    def strength_at(self, turn: int, settings: MemorySettings) -> float:
        """The strength now: lazy decay from the stored strength, slowed by use."""
        elapsed = max(0, turn - self.last_used)
        return self.strength * math.exp(-settings.decay_rate * elapsed / (1 + self.uses))

    def relevance(self, turn: int, settings: MemorySettings) -> float:
        """How much it matters now: importance, strength and recency together (used to rank and evict)."""
        recency = 1.0 / (1.0 + max(0, turn - self.turn) / 50)
        return 0.5 * self.importance + 0.3 * self.strength_at(turn, settings) + 0.2 * recency

    def row(self) -> RowWrite:
        return RowWrite(MEMORY_TABLE, {"npc": self.npc, "seq": self.seq}, memory_columns(self))

    def deleted(self) -> RowWrite:
        return RowWrite(MEMORY_TABLE, {"npc": self.npc, "seq": self.seq}, None)

    def to_json(self, turn: int, settings: MemorySettings) -> dict[str, object]:
        """The exact public form (``kith graph memories --json``)."""
        return {"kind": self.kind, "text": self.text, "turn": self.turn, "importance": round(self.importance, 3),
                "valence": round(self.valence, 3), "tags": list(self.tags),
                "strength": round(self.strength_at(turn, settings), 3)}


def memory_columns(memory: Memory) -> dict[str, Scalar]:
    return {
        "npc": memory.npc, "seq": memory.seq, "kind": memory.kind, "text": memory.text, "turn": memory.turn,
        "importance": memory.importance, "valence": memory.valence, "tags": json.dumps(list(memory.tags)),
        "strength": memory.strength, "last_used": memory.last_used, "uses": memory.uses,
        "heard": int(memory.heard), "about": memory.about,
    }


def memory_from_row(row: Mapping[str, Scalar]) -> Memory:
    with naming(MEMORY_TABLE, "tags"):  # decoded as ``kith saves check`` and salvage decode it
        tags = text_list(row["tags"] or "[]")
    with naming(MEMORY_TABLE, "uses"):  # strength divides by 1 + uses: below 0 is damage, not a crash
        uses = count(row["uses"] or 0)
    kind: MemoryKind = "semantic" if row["kind"] == "semantic" else "episodic"
    return Memory(
        npc=str(row["npc"]), seq=int(row["seq"] or 0), kind=kind, text=str(row["text"]),
        turn=int(row["turn"] or 0), importance=float(row["importance"] or 0.0), valence=float(row["valence"] or 0.0),
        tags=tuple(str(t) for t in tags), strength=float(row["strength"] or 0.0),
        last_used=int(row["last_used"] or 0), uses=uses, heard=bool(row["heard"]),
        about=str(row["about"] or ""),
    )


def said_row(npc: str, key: str, turn: int) -> RowWrite:
    return RowWrite(SAID_TABLE, {"npc": npc, "key": key}, {"npc": npc, "key": key, "turn": turn})


@dataclass
class MemoryBook:
    """Every NPC's memories of the player and what they have said, in memory; follows the stored rows."""

    settings: MemorySettings = field(default_factory=MemorySettings)
    memories: dict[str, dict[int, Memory]] = field(default_factory=dict)
    said: dict[str, dict[str, int]] = field(default_factory=dict)
    """NPC node ID -> the keys of what they said (``met``, ``revealed:NAME:KEY``, ``recalled``) -> turn."""

    @classmethod
    def from_rows(cls, memories: Iterable[Mapping[str, Scalar]], said: Iterable[Mapping[str, Scalar]],
                  settings: MemorySettings | None = None) -> MemoryBook:
        """The book the save's rows of ``npc_memories`` and ``npc_said`` make (the feature's state at opening)."""
        book = cls(settings or MemorySettings())
        for row in memories:
            memory = memory_from_row(row)
            book.memories.setdefault(memory.npc, {})[memory.seq] = memory
        for row in said:
            book.said.setdefault(str(row["npc"]), {})[str(row["key"])] = int(row["turn"] or 0)
        return book

    def of(self, npc: str) -> list[Memory]:
        """``npc``'s memories in the order formed."""
        return sorted(self.memories.get(npc, {}).values(), key=lambda m: m.seq)

    def ranked(self, npc: str, turn: int) -> list[Memory]:
        """Newest and strongest first: by turn, then by strength now (what ``/npc`` shows)."""
        return sorted(self.of(npc), key=lambda m: (-m.turn, -m.strength_at(turn, self.settings), -m.seq))

    def relevant(self, npc: str, turn: int, limit: int | None = None) -> list[Memory]:
        """The memories that matter most now (``Memory.relevance``), most relevant first."""
        found = sorted(self.of(npc), key=lambda m: (-m.relevance(turn, self.settings), -m.seq))
        return found if limit is None else found[:limit]

    def has_said(self, npc: str, key: str) -> bool:
        return key in self.said.get(npc, {})

    def said_turn(self, npc: str, key: str) -> int | None:
        return self.said.get(npc, {}).get(key)

    def next_seq(self, npc: str) -> int:
        return max(self.memories.get(npc, {}), default=0) + 1

    def people(self) -> list[str]:
        """Every NPC who remembers anything (memories or words)."""
        return sorted(set(self.memories) | set(self.said))

    def view(self, turn: int) -> MemoryView:
        return MemoryView(self, turn)

    def copy(self) -> MemoryBook:
        return MemoryBook(self.settings, {n: dict(m) for n, m in self.memories.items()},
                          {n: dict(s) for n, s in self.said.items()})

    def apply(self, rows: Iterable[RowWrite]) -> None:
        """Follow a turn's stored rows (other tables' rows are ignored)."""
        for write in rows:
            if write.table == MEMORY_TABLE:
                npc, seq = str(write.key["npc"]), int(write.key["seq"] or 0)
                if write.row is None:
                    self.memories.get(npc, {}).pop(seq, None)
                else:
                    self.memories.setdefault(npc, {})[seq] = memory_from_row(write.row)
            elif write.table == SAID_TABLE:
                npc, key = str(write.key["npc"]), str(write.key["key"])
                if write.row is None:
                    self.said.get(npc, {}).pop(key, None)
                else:
                    self.said.setdefault(npc, {})[key] = int(write.row["turn"] or 0)

    def over_capacity(self, npc: str, turn: int) -> list[Memory]:
        """What ``npc`` forgets to stay within bounds at ``turn``: past each kind's capacity (episodic and
        semantic counted apart), the least relevant now (``Memory.relevance``), oldest first among equals.
        The one rule for forming a memory and for a merge that gives someone another's memories."""
        settings = self.settings
        forgotten: list[Memory] = []
        for kind, capacity in (("episodic", settings.capacity), ("semantic", settings.semantic_capacity)):
            kept = [m for m in self.of(npc) if m.kind == kind]
            if len(kept) > capacity:
                forgotten += sorted(kept, key=lambda m: (m.relevance(turn, settings), m.seq))[:len(kept) - capacity]
        return forgotten

    def recalled(self, memory: Memory, turn: int) -> Memory:
        """``memory`` strengthened by being recalled at ``turn``."""
        now = memory.strength_at(turn, self.settings)
        return replace(memory, strength=min(1.0, now + self.settings.recall_boost), last_used=turn,
                       uses=memory.uses + 1)


@dataclass(frozen=True)
class MemoryView:
    """A read-only look at the book as a turn begins: what the story engine reads to choose lines."""

    book: MemoryBook
    turn: int

    @property
    def settings(self) -> MemorySettings:
        return self.book.settings

    def memories(self, npc: str) -> list[Memory]:
        return self.book.of(npc)

    def relevant(self, npc: str, limit: int | None = None) -> list[Memory]:
        return self.book.relevant(npc, self.turn, limit)

    def has_said(self, npc: str, key: str) -> bool:
        return self.book.has_said(npc, key)

    def said_turn(self, npc: str, key: str) -> int | None:
        return self.book.said_turn(npc, key)

    def said_keys(self, npc: str) -> list[str]:
        return sorted(self.book.said.get(npc, {}))
