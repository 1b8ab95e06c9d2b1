"""NPC memory costs per turn at 10 and 200 memories per NPC, for ``make bench``.

A turn forms memories for everyone on stage (an act on one of them, witnessed by the rest), recalls the
few the context shows, keeps each NPC within bounds and consolidates what is ready: ``memory_rows``. The
MEMORY section is then read for everyone on stage: ``MemoryProvider.provide``. Decay is lazy, so the rows
a turn writes stay few however many memories each NPC holds; the figures to read are the time per turn at
each size and the rows written per turn (which should not grow with the memories held).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from dataclasses import dataclass

from game.features.memories.book import Memory, MemoryBook, MemorySettings
from game.features.memories.provider import MemoryProvider
from game.features.memories.rules import memory_rows
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.mind.sections import ContextQuery
from game.world.ir import IRAct, WorldIR
from game.world.scene import SceneState

STAGE = 8
"""People on stage each turn (every one of them witnesses the act and is in the context's focus)."""
VERBS = ("help", "threaten", "give", "ask", "tell", "accuse", "warn", "bribe")


@dataclass(frozen=True)
class Scale:
    sizes: tuple[int, ...]
    turns: int


FULL = Scale(sizes=(10, 200), turns=200)
QUICK = Scale(sizes=(10,), turns=5)


def town(per_npc: int, rng: random.Random) -> tuple[GraphIndex, list[Node], MemoryBook]:
    """A player and ``STAGE`` people, each already holding ``per_npc`` memories of the player."""
    def person(i: int) -> Node:
        return Node(id=f"npc-p{i}", name=f"Person {i}", type="individual", summary="Someone on the quay.",
                    first_seen_turn=0, last_seen_turn=0)

    player = Node(id="npc-wren", name="Wren", type="individual", summary="The player.", first_seen_turn=0,
                  last_seen_turn=0, attributes={"player": True})
    people = [person(i) for i in range(STAGE)]
    graph = GraphIndex()
    graph.apply(GraphWrites(nodes={n.id: n for n in [player, *people]}))
    book = MemoryBook(MemorySettings(capacity=per_npc))
    rows = []
    for npc in people:
        for seq in range(1, per_npc + 1):
            verb = rng.choice(VERBS)
            rows.append(Memory(npc=npc.id, seq=seq, kind="episodic", text=f"Wren did {verb} number {seq}.",
                               turn=seq, importance=rng.random(), valence=rng.uniform(-1, 1), tags=(verb,),
                               strength=rng.random(), last_used=seq).row())
    book.apply(rows)
    return graph, people, book


async def per_turn(per_npc: int, turns: int) -> tuple[float, float, float]:
    """Median milliseconds to form a turn's memories, median to read the MEMORY section, mean rows written."""
    rng = random.Random(per_npc)
    graph, people, book = town(per_npc, rng)
    provider = MemoryProvider(lambda: book)
    forming: list[float] = []
    reading: list[float] = []
    written = 0
    for turn in range(per_npc + 1, per_npc + 1 + turns):
        target = rng.choice(people)
        ir = WorldIR(characters_present=[p.name for p in people],
                     acts=[IRAct(kind="act", character=target.name, verb=rng.choice(VERBS), detail="the ledger")])
        started = time.perf_counter()
        rows = await memory_rows(book, graph, GraphWrites(), ir, turn)
        forming.append((time.perf_counter() - started) * 1000)
        book.apply(rows)
        written += len(rows)
        query = ContextQuery(turn=turn + 1, player_input="talk", focus=tuple(p.id for p in people), graph=graph,
                             scene=SceneState())
        started = time.perf_counter()
        await provider.provide(query)
        reading.append((time.perf_counter() - started) * 1000)
    return statistics.median(forming), statistics.median(reading), written / turns


def run(quick: bool) -> list[str]:
    scale = QUICK if quick else FULL
    lines = []
    for size in scale.sizes:
        forming, reading, rows = asyncio.run(per_turn(size, scale.turns))
        lines.append(f"memories at {size:>3} per NPC ({STAGE} on stage): forming {forming:.3f} ms/turn, "
                     f"MEMORY section {reading:.3f} ms/turn, {rows:.1f} rows written/turn")
    return lines
