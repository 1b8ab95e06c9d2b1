"""The deed step and deed gossip per turn at 1k and 100k relation versions, for ``make bench``.

Both run inside every story turn (game/features/deeds), so they must cost what the stage costs: the deed
step reads the turn's acts and the people on stage; deed gossip pairs the people placed and their own
ties, and each teller looks only at the deeds it knows. The town is gossip_bench's (the same shape at
every size); each turn the player threatens or helps two of the eight people placed, and the deeds of
all earlier turns are there to be passed on. The figure to read is the ratio between sizes (near 1).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time

from benchmarks.gossip_bench import FULL, QUICK, STAGE, town
from game.features.deeds.gossip import deed_gossip
from game.features.deeds.model import DeedBook
from game.features.deeds.record import turn_deeds
from game.features.feature import TurnFacts
from game.features.gossip import GossipSettings
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.world.ir import IRAct, WorldIR


async def per_turn(size: int, turns: int) -> tuple[tuple[float, float], tuple[float, float], int, int]:
    """(median, p95) ms of the deed step and of deed gossip, the deeds recorded and the tellings made."""
    rng = random.Random(size)
    index, people = town(size, rng)
    player = Node(id="npc-player", name="Player", type="individual", summary="The one who came back.",
                  first_seen_turn=0, last_seen_turn=0, attributes={"player": True})
    index.apply(GraphWrites(nodes={player.id: player}))
    settings = GossipSettings()
    book = DeedBook()
    step_ms: list[float] = []
    gossip_ms: list[float] = []
    recorded = told = 0
    for turn in range(60, 60 + turns):
        stage = rng.sample(people, STAGE)
        places = {person: ("quay" if i % 2 else "tavern") for i, person in enumerate(stage)}
        here = [p for p in stage if places[p] == "quay"]
        acts = [IRAct(kind="act", character=index.nodes[p].name, verb=rng.choice(("threaten", "help")))
                for p in here[:2]]
        ir = WorldIR(characters_present=[index.nodes[p].name for p in here], acts=acts, location="quay")
        facts = TurnFacts(turn, index, GraphWrites(), ir, places, frozenset([player.id, *here]), 0, settings, book)
        started = time.perf_counter()
        deeds, seen = await turn_deeds(facts)
        step_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        heard = deed_gossip(book, index, places, turn, settings, 0)
        gossip_ms.append((time.perf_counter() - started) * 1000)
        book = book.updated([*(d.row() for d in deeds), *(k.row() for k in [*seen, *heard])])
        recorded += len(deeds)
        told += len(heard)
    return _spread(step_ms), _spread(gossip_ms), recorded, told


def _spread(timings: list[float]) -> tuple[float, float]:
    timings.sort()
    return statistics.median(timings), timings[int(len(timings) * 0.95) - 1 if len(timings) > 1 else 0]


def run(quick: bool) -> list[str]:
    scale = QUICK if quick else FULL
    lines: list[str] = []
    medians: dict[int, tuple[float, float]] = {}
    for size in scale.sizes:
        step, gossip, recorded, told = asyncio.run(per_turn(size, scale.turns))
        medians[size] = (step[0], gossip[0])
        lines.append(f"deed step per turn at {size:>7,} versions: median {step[0]:.3f} ms, p95 {step[1]:.3f} ms "
                     f"({recorded} deeds in {scale.turns} turns)")
        lines.append(f"deed gossip per turn at {size:>7,} versions: median {gossip[0]:.3f} ms, p95 {gossip[1]:.3f} ms "
                     f"({told} tellings in {scale.turns} turns, {STAGE} people placed)")
    if len(medians) > 1:
        small, large = min(medians), max(medians)
        lines.append(f"cost ratio {large:,} / {small:,} versions: deed step "
                     f"{medians[large][0] / max(medians[small][0], 1e-9):.2f}x, deed gossip "
                     f"{medians[large][1] / max(medians[small][1], 1e-9):.2f}x (follow the stage and its ties)")
    return lines
