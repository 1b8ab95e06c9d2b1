"""The context orchestrator's time per turn, and the prompt's size by section at 10 and 200 memories per NPC.

Brinefall's graph in memory with five characters on stage: each turn composes the context from the real
providers (SCENE, GRAPH, KNOWLEDGE) and two synthetic ones standing in for the minds' sections until
they are wired in: RELATIONSHIP (one tier line per person) and MEMORY (10 or 200 memories of the player
per person). The figures: the orchestrator's median and p95 milliseconds per turn, each section's tokens
and lines kept (of those offered) within the default 2,000-token budget, and the narration system
prompt's estimated tokens with the context in it.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from game.engine.mind_context import ContextInputs, compose_turn, default_providers, narrator_inputs
from game.engine.turn import PlayState, present_knowers, scoped_context
from game.graph.memory import GraphIndex
from game.graph.retrieve import RetrievalSettings
from game.graph.upsert import UpsertExecution
from game.mind.context import ComposedContext, ContextSettings
from game.mind.context_budget import estimate_tokens
from game.mind.sections import ContextProvider, ContextQuery, Section, SectionLine
from game.narrator.llm.prompts import narrate_system_v1
from game.settings_source import default_content_dir
from game.world import World, load_world

STAGE = 5
"""Characters on stage with the player."""


@dataclass(frozen=True)
class Scale:
    memories: tuple[int, ...]
    turns: int


FULL = Scale(memories=(10, 200), turns=200)
QUICK = Scale(memories=(10,), turns=3)


class SyntheticMemories:
    """MEMORY: ``count`` one-sentence memories of the player per person in focus, newest weighing most."""

    def __init__(self, count: int) -> None:
        self.count = count

    @property
    def name(self) -> str:
        return "MEMORY"

    async def provide(self, query: ContextQuery) -> Section:
        return Section("MEMORY", tuple(
            SectionLine(person, f"You remember that on turn {i} the player helped you haul the nets in before "
                        "the tide turned.", weight=1.0 - i / (self.count + 1),
                        facts={"kind": "episodic", "turn": i, "importance": 0.5, "valence": 0.4})
            for person in query.focus for i in range(self.count)))


class SyntheticTiers:
    """RELATIONSHIP: the seed's tier line for each person in focus."""

    @property
    def name(self) -> str:
        return "RELATIONSHIP"

    async def provide(self, query: ContextQuery) -> Section:
        return Section("RELATIONSHIP", tuple(SectionLine(
            person, "Current relationship tier: FRIENDLY. Trust 70/100, respect 60/100, friendliness 80/100. "
            "Interactions: 12.", facts={"tier": "FRIENDLY"}) for person in query.focus))


async def _graph(world: World) -> GraphIndex:
    index = GraphIndex()
    execution = UpsertExecution(index, world.vocabulary, 0, rng=random.Random(0))
    for call in world.initial_graph_calls():
        await execution.run(call)
    index.apply(execution.writes)
    return index


async def _measure(world: World, memories: int, turns: int) -> tuple[list[float], ComposedContext, int]:
    graph = await _graph(world)
    cast = [character.name for character in world.characters[:STAGE]]
    scene = world.initial_scene().model_copy(update={"cast": cast})
    state = PlayState.at(graph, scene, 1, [], False)

    def providers(inputs: ContextInputs) -> Sequence[ContextProvider]:
        return [*default_providers(inputs), SyntheticTiers(), SyntheticMemories(memories)]

    settings = ContextSettings()
    timings: list[float] = []
    context = ComposedContext()
    texts = ["look", "ask hob about ness", "talk to tibby", "wait"]
    for number in range(turns):
        text = texts[number % len(texts)]
        scoped = await scoped_context(graph, text, cast, RetrievalSettings())
        inputs = ContextInputs(state, scoped, await present_knowers(graph, cast))
        started = time.perf_counter()
        context = await compose_turn(number + 1, text, inputs, settings, providers)
        timings.append((time.perf_counter() - started) * 1000)
    npc_context, knowledge = narrator_inputs(context, scoped)
    system = narrate_system_v1(world, scene, npc_context, turns, knowledge, context)
    return timings, context, estimate_tokens(system)


def run(quick: bool) -> list[str]:
    scale = QUICK if quick else FULL
    world = load_world(default_content_dir(), "brinefall")
    lines: list[str] = []
    for memories in scale.memories:
        timings, context, prompt = asyncio.run(_measure(world, memories, scale.turns))
        timings.sort()
        p95 = timings[max(0, int(len(timings) * 0.95) - 1)]
        lines.append(f"{memories:>3} memories per NPC, {STAGE} on stage: orchestrator per turn median "
                     f"{statistics.median(timings):.3f} ms, p95 {p95:.3f} ms ({scale.turns} turns)")
        for section in context.sections:
            offered = len(section.lines) + section.dropped
            lines.append(f"    {section.name:<12} {section.tokens:>5} tokens, {len(section.lines):>4} of "
                         f"{offered:>4} lines kept")
        lines.append(f"    {'all sections':<12} {context.tokens:>5} of {context.budget} tokens; narration system "
                     f"prompt {prompt} tokens")
    return lines
