"""The registered features' steps, run inside a told turn after its graph writes and relation gossip.

Each feature's rows join the turn's other rows, so they are written in the turn's one transaction and
undone with it; the features' in-memory states move only once the commit succeeded (``apply_rows``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from game.features.feature import Rows, TurnFacts
from game.graph.gossip import GossipSettings
from game.graph.index import GraphIndex
from game.graph.ports import GraphWrites
from game.mind.attitude_rules import Delta
from game.mind.memory_forming import HeardDeed
from game.registry import Registry, default_registry
from game.store.rows import RowWrite
from game.world.ir import WorldIR


@dataclass(frozen=True)
class FeatureTurn:
    """What the features add to a turn: their rows, and the attitude changes they caused (applied with the
    turn's others, so a tier change they cause is told and recorded like any)."""

    rows: tuple[RowWrite, ...] = ()
    attitudes: tuple[tuple[str, Delta], ...] = ()
    covered: tuple[tuple[str, str], ...] = ()
    """Relation news the features' attitude changes stand for (``StepResult.covered``)."""
    memories: tuple[HeardDeed, ...] = ()
    """Deeds heard of this turn, for the memory step (``StepResult.memories``)."""


async def run_steps(states: Mapping[str, Any], turn: int, graph: GraphIndex, writes: GraphWrites,
                    world_ir: WorldIR | None, places: Mapping[str, str], present: Iterable[str], seed: int,
                    gossip: GossipSettings, registry: Registry | None = None) -> FeatureTurn:
    """Every feature's step for this turn, in registration order."""
    rows: list[RowWrite] = []
    moved: list[tuple[str, Delta]] = []
    covered: list[tuple[str, str]] = []
    memories: list[HeardDeed] = []
    here = frozenset(present)
    for feature in registry or default_registry():
        facts = TurnFacts(turn, graph, writes, world_ir, places, here, seed, gossip, states.get(feature.name))
        step = await feature.after_turn(facts)
        rows.extend(step.rows)
        moved.extend(step.attitudes)
        covered.extend(step.covered)
        memories.extend(step.memories)
    return FeatureTurn(tuple(rows), tuple(moved), tuple(covered), tuple(memories))


def apply_rows(states: Mapping[str, Any], rows: Sequence[RowWrite], registry: Registry | None = None) -> dict[str, Any]:
    """The features' states after a committed turn wrote ``rows``."""
    return {feature.name: feature.apply(states.get(feature.name), rows) for feature in registry or default_registry()}


def load_states(rows: Rows, registry: Registry | None = None) -> dict[str, Any]:
    """Every feature's state from its tables as the save holds them."""
    return {feature.name: feature.load(rows) for feature in registry or default_registry()}


def owned_tables(registry: Registry | None = None) -> tuple[str, ...]:
    """The tables the features own (read back whole when a game opens)."""
    return (registry or default_registry()).tables()
