"""Gossip's cost per turn at 1k and 100k relation versions, and the attitude update that follows it (which
reads the same writes), for ``make bench``.

Gossip runs inside every story turn, so it must cost what the stage costs, not what the save holds: the
pairs come from the people placed this turn and their own ties, and each teller looks only at the rows it
knows. The synthetic town keeps the same shape at every size (each person has about the same number of
relations and knows about the same number of facts) while the population grows with the graph; the
figure to read is the ratio between sizes, which should stay near 1.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from game.features.attitudes.model import AttitudeBook
from game.features.attitudes.step import after_turn
from game.features.gossip import GossipSettings, gossip_turn, pair_key
from game.graph.index import GraphIndex
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.ports import GraphWrites

RELATIONS = ("TRUSTS", "DISTRUSTS", "FEARS", "KIN_OF", "ALLY_OF", "ENEMY_OF", "OWES", "KNOWS", "SERVES")
VERSIONS_PER_PERSON = 10
"""Relation versions per person: the population is the graph size over this, the degree stays ~20."""
STAGE = 8
"""People placed each turn, over two places (an offline scene places about this many near the player)."""


@dataclass(frozen=True)
class Scale:
    sizes: tuple[int, ...]
    turns: int


FULL = Scale(sizes=(1_000, 100_000), turns=200)
QUICK = Scale(sizes=(300,), turns=10)


def town(size: int, rng: random.Random) -> tuple[GraphIndex, list[str]]:
    """``size`` relation versions among ``size / 10`` people; a third of the versions are still open.

    Each version is known by its two ends and, half the time, a witness."""
    people = [f"npc-p{i:06d}" for i in range(max(20, size // VERSIONS_PER_PERSON))]
    writes = GraphWrites()
    for person in people:
        writes.nodes[person] = Node(id=person, name=person[4:], type="individual", summary="Someone in town.",
                                    first_seen_turn=0, last_seen_turn=0)
    for number in range(size):
        source, target = rng.sample(people, 2)
        turn = rng.randint(0, 50)
        edge = Edge(id=f"edge-{number:07d}", source=source, target=target, relation=rng.choice(RELATIONS),
                    strength=round(rng.uniform(-1, 1), 2), fact=f"{source} and {target}, fact {number}.",
                    valid_at=turn, invalid_at=None if number % 3 == 0 else turn + 1)
        writes.edges[edge.id] = edge
        knowers = [source, target] + ([rng.choice(people)] if rng.random() < 0.5 else [])
        for knower in knowers:
            row = Knowing(edge_id=edge.id, knower=knower, how="authored", confidence=1.0, since_turn=turn)
            writes.knowings[row.key] = row
    index = GraphIndex()
    index.apply(writes)
    return index, people


def per_turn(size: int, turns: int) -> tuple[float, float, int]:
    """Median and 95th-percentile milliseconds of one turn's gossip, and the tellings made."""
    rng = random.Random(size)
    index, people = town(size, rng)
    settings = GossipSettings()
    talked: dict[tuple[str, str], int] = {}
    timings: list[float] = []
    told = 0
    for turn in range(60, 60 + turns):
        stage = rng.sample(people, STAGE)
        places = {person: ("quay" if i % 2 else "tavern") for i, person in enumerate(stage)}
        started = time.perf_counter()
        result = gossip_turn(index, GraphWrites(), turn, places, settings, 0, talked)
        timings.append((time.perf_counter() - started) * 1000)
        index.apply(GraphWrites(knowings=result.knowings))
        for exchange in result.told:
            talked[pair_key(exchange.teller, exchange.listener)] = turn
        told += len(result.told)
    timings.sort()
    return statistics.median(timings), timings[int(len(timings) * 0.95) - 1 if len(timings) > 1 else 0], told


def attitudes_per_turn(size: int, turns: int) -> tuple[float, float, int]:
    """Median and 95th-percentile milliseconds of one turn's attitude update (``after_turn``), and the
    attitudes changed: each turn two people on stage change how they stand with the player, and the
    turn's gossip carries news of the player to their ties."""
    rng = random.Random(size)
    index, people = town(size, rng)
    player = Node(id="npc-player", name="Player", type="individual", summary="The one who came back.",
                  first_seen_turn=0, last_seen_turn=0, attributes={"player": True})
    seed = GraphWrites(nodes={player.id: player})
    for number, person in enumerate(rng.sample(people, min(len(people), 200))):
        edge = Edge(id=f"edge-p{number:06d}", source=person, target=player.id, relation=rng.choice(RELATIONS),
                    strength=round(rng.uniform(-1, 1), 2), fact=f"{person} and the player, fact {number}.",
                    valid_at=0)
        seed.edges[edge.id] = edge
        for knower in (person, rng.choice(people)):
            row = Knowing(edge_id=edge.id, knower=knower, how="authored", confidence=1.0, since_turn=0)
            seed.knowings[row.key] = row
    index.apply(seed)
    settings = GossipSettings()
    book = AttitudeBook()
    talked: dict[tuple[str, str], int] = {}
    timings: list[float] = []
    changed = 0
    for turn in range(60, 60 + turns):
        stage = rng.sample(people, STAGE)
        writes = GraphWrites()
        for number, person in enumerate(stage[:2]):
            edge = Edge(id=f"edge-t{turn}-{number}", source=person, target=player.id, relation="TRUSTS",
                        strength=round(rng.uniform(-1, 1), 2), fact=f"{person} and the player at turn {turn}.",
                        valid_at=turn)
            writes.edges[edge.id] = edge
            writes.created_edges.add(edge.id)
        places = {person: ("quay" if i % 2 else "tavern") for i, person in enumerate(stage)}
        writes.knowings.update(gossip_turn(index, writes, turn, places, settings, 0, talked).knowings)
        started = time.perf_counter()
        moved = after_turn(book, index, writes, None, turn)
        timings.append((time.perf_counter() - started) * 1000)
        book = book.updated(moved.attitudes)
        index.apply(writes)
        changed += len(moved.attitudes)
    timings.sort()
    return statistics.median(timings), timings[int(len(timings) * 0.95) - 1 if len(timings) > 1 else 0], changed


def run(quick: bool) -> list[str]:
    scale = QUICK if quick else FULL
    lines: list[str] = []
    medians: dict[int, float] = {}
    for size in scale.sizes:
        median, p95, told = per_turn(size, scale.turns)
        medians[size] = median
        lines.append(f"gossip per turn at {size:>7,} versions: median {median:.3f} ms, p95 {p95:.3f} ms "
                     f"({told} tellings in {scale.turns} turns, {STAGE} people placed)")
    if len(medians) > 1:
        small, large = min(medians), max(medians)
        lines.append(f"cost ratio {large:,} / {small:,} versions: {medians[large] / max(medians[small], 1e-9):.2f}x "
                     "(follows the stage and its ties, not the graph)")
    for size in scale.sizes:
        median, p95, changed = attitudes_per_turn(size, scale.turns)
        lines.append(f"attitude update per turn at {size:>7,} versions: median {median:.3f} ms, p95 {p95:.3f} ms "
                     f"({changed} attitudes changed in {scale.turns} turns)")
    return lines
