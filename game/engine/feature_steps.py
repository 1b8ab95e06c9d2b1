"""The registered features' after-turn steps, each one step of a told turn (``game.engine.turn_steps``),
run after the turn's graph writes, in registration order.

Each feature's rows join the turn's other rows, and the knower rows it adds join the turn's graph writes
(which the next feature's step then reads), so they are written in the turn's one transaction and undone
with it; the features' states in play move only once the commit succeeded (``apply_rows``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from game.engine.tuning import TurnTuning
from game.features.feature import Delta, Feature, HeardDeed, Rows, TierChange, TurnFacts
from game.graph.index import GraphIndex
from game.graph.ports import GraphWrites
from game.graph.rule_calls import apply_rule_call
from game.graph.upsert import UpsertExecution
from game.mind.context import ComposedContext
from game.registry import Registry, default_registry
from game.store.merge_log import MergeEntry
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
    tiers: tuple[TierChange, ...] = ()
    """Tiers toward the player the steps moved (``StepResult.tiers``)."""
    merges: tuple[MergeEntry, ...] = ()
    """Merge-log entries and merges of people the steps decided (``StepResult.merges``), for the commit."""


async def after_turn(feature: Feature, so_far: FeatureTurn, states: Mapping[str, Any], turn: int,
                     graph: GraphIndex, writes: GraphWrites, world_ir: WorldIR | None, places: Mapping[str, str],
                     present: Iterable[str], tuning: TurnTuning,
                     said: Mapping[str, Mapping[str, int]] | None = None, context: ComposedContext | None = None,
                     execution: UpsertExecution | None = None) -> tuple[FeatureTurn, GraphWrites]:
    """``feature``'s step for this turn (one of a told turn's steps, in registration order), added to what
    the features before it added (``said``: what each NPC has said to the player, ``TurnFacts.said``;
    ``context``: what the narrator was told). ``execution``: the turn's extraction, which runs the step's
    ``agreement`` and the judgements of new names (None: the turn extracted nothing, and a rule's call is not run
    either). Returned beside it: the turn's graph writes with the knower rows and the agreement the step
    added (``writes`` itself when it added none), which the turn's draft holds from then on, so the next
    feature's step reads them."""
    facts = TurnFacts(turn, graph, writes, world_ir, places, frozenset(present), tuning.seed,
                      tuning.features.get(feature.name), states.get(feature.name), said=said or {},
                      attitudes=so_far.attitudes, covered=so_far.covered, context=context, execution=execution)
    step = await feature.after_turn(facts)
    if step.knowings:
        writes = writes.copy()
        writes.knowings.update(step.knowings)
    if step.agreement and execution is not None:
        writes = await apply_rule_call(execution, writes, step.agreement)
    return FeatureTurn((*so_far.rows, *step.rows), (*so_far.attitudes, *step.attitudes),
                       (*so_far.covered, *step.covered), (*so_far.memories, *step.memories),
                       (*so_far.tiers, *step.tiers), (*so_far.merges, *step.merges)), writes


def apply_rows(states: Mapping[str, Any], rows: Sequence[RowWrite], registry: Registry | None = None) -> dict[str, Any]:
    """The features' states after a committed turn wrote ``rows``."""
    return {feature.name: feature.apply(states.get(feature.name), rows) for feature in registry or default_registry()}


def load_states(rows: Rows, registry: Registry | None = None) -> dict[str, Any]:
    """Every feature's state from its tables as the save holds them."""
    return {feature.name: feature.load(rows) for feature in registry or default_registry()}


def owned_tables(registry: Registry | None = None) -> tuple[str, ...]:
    """The tables the features own (read back whole when a game opens)."""
    return (registry or default_registry()).tables()
