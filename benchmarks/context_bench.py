"""The context orchestrator's time per turn, and the prompt's size by section at 10 and 200 memories per NPC.

Brinefall's graph in memory with five characters on stage, composed by the game's own providers
(``default_providers``: SCENE, GRAPH, KNOWLEDGE, RELATIONSHIP, MEMORY): nothing synthetic stands in. Each
person on stage holds 10 or 200 real memories of the player in a ``MemoryBook`` (rows as the memory step
writes them, sentences from its own act table: what the player did to them and what they saw done to the
others) and a real attitude in an ``AttitudeBook`` (each act done to them applied with the attitude
rules' own deltas), so their tiers differ. The MEMORY provider offers each person's few most relevant
memories (``CONTEXT_RECALL``), ranked over all they hold: the memories held cost time, not prompt.

The figures: the orchestrator's median and p95 milliseconds per turn, each section's tokens and lines
kept (of those offered) within the default 2,000-token budget, and the narration prompt's estimated
tokens with the context in it (its system message and the turn's block told whole, as a session's first
turn tells it).
"""

from __future__ import annotations

import asyncio
import math
import random
import statistics
import time
from dataclasses import dataclass

from game.engine.mind_context import ContextInputs, compose_turn, narrator_inputs
from game.engine.play_state import PlayState
from game.engine.presence import present_knowers, scoped_context
from game.features.attitudes.model import AttitudeBook
from game.features.attitudes.rules import ACT_DELTAS, ACT_REASONS
from game.features.feature import Delta
from game.features.memories.book import Memory, MemoryBook
from game.features.memories.rules import ACTS, WITNESS_FACTOR
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.retrieve import RetrievalSettings
from game.graph.upsert import UpsertExecution
from game.mind.context import ComposedContext, ContextSettings
from game.mind.context_budget import estimate_tokens
from game.narrator.llm.narrate_prompt import narrate_system, render_block, turn_items
from game.settings_source import default_content_dir
from game.world import World, load_world

STAGE = 5
"""Characters on stage with the player."""
VERBS = ("help", "give", "warn", "threaten", "accuse", "ask", "tell", "show")
DETAILS = ("the ledger", "a coil of rope", "the tide tables", "a salt-stained letter")


@dataclass(frozen=True)
class Scale:
    memories: tuple[int, ...]
    turns: int


FULL = Scale(memories=(10, 200), turns=200)
QUICK = Scale(memories=(10, 200), turns=2)


async def world_graph(world: World) -> GraphIndex:
    """The world's turn-0 graph, through real upserts as a new game seeds it."""
    index = GraphIndex()
    execution = UpsertExecution(index, world.vocabulary, 0, rng=random.Random(0))
    for call in world.initial_graph_calls():
        await execution.run(call)
    index.apply(execution.writes)
    return index


def minds(graph: GraphIndex, people: list[Node], per_npc: int, seed: int = 0) -> tuple[AttitudeBook, MemoryBook]:
    """``per_npc`` memories of the player for each of ``people`` (turns 1..per_npc) and the attitudes
    the acts done to them left: each turn the player does one act to one of them, the rest look on."""
    rng = random.Random(seed)
    player = graph.nodes[sorted(graph.player_ids)[0]]
    book = MemoryBook()
    attitudes = {p.id: AttitudeBook().of(graph, p) for p in people}
    rows = []
    for turn in range(1, per_npc + 1):
        target = people[turn % len(people)]
        verb = rng.choice(VERBS)
        how, detail = ACTS[verb], rng.choice(DETAILS)
        for witness in people:
            own = witness.id == target.id
            text = how.text.format(player=player.name, target="me" if own else target.name, detail=detail,
                                   about=f" of {detail}")
            rows.append(Memory(npc=witness.id, seq=turn, kind="episodic", text=text, turn=turn,
                               importance=how.importance * (1.0 if own else WITNESS_FACTOR), valence=how.valence,
                               tags=how.tags, strength=1.0, last_used=turn, about="" if own else target.id).row())
        if verb in ACT_DELTAS:
            reason = ACT_REASONS[verb].format(thing=detail)
            attitudes[target.id] = attitudes[target.id].changed(Delta(*ACT_DELTAS[verb], reason), turn)
    book.apply(rows)
    return AttitudeBook().updated(attitudes.values()), book


async def measure(world: World, memories: int, turns: int) -> tuple[list[float], ComposedContext, int]:
    """Compose ``turns`` turns' contexts with ``memories`` memories per person on stage."""
    graph = await world_graph(world)
    cast = [character.name for character in world.characters[:STAGE]]
    scene = world.initial_scene().model_copy(update={"cast": cast})
    people = [node for node in await present_knowers(graph, cast) if node.id not in graph.player_ids]
    attitudes, book = minds(graph, people, memories)
    state = PlayState.at(graph, scene, memories, [], False, attitudes=attitudes, memories=book)
    settings = ContextSettings()
    timings: list[float] = []
    context = ComposedContext()
    texts = ["look", "ask hob about ness", "talk to tibby", "wait"]
    scoped = await scoped_context(graph, texts[0], cast, RetrievalSettings())
    for number in range(turns):
        text = texts[number % len(texts)]
        scoped = await scoped_context(graph, text, cast, RetrievalSettings())
        inputs = ContextInputs(state, scoped, await present_knowers(graph, cast))
        started = time.perf_counter()
        context = await compose_turn(memories + 1 + number, text, inputs, settings)
        timings.append((time.perf_counter() - started) * 1000)
    npc_context, knowledge = narrator_inputs(context, scoped)
    # The narration prompt's system message and the turn's block told whole (a session's first turn).
    prompt = narrate_system(world) + render_block(turn_items(world, scene, npc_context, knowledge, context))
    return timings, context, estimate_tokens(prompt)


def run(quick: bool) -> list[str]:
    scale = QUICK if quick else FULL
    world = load_world(default_content_dir(), "brinefall")
    lines: list[str] = []
    for memories in scale.memories:
        timings, context, prompt = asyncio.run(measure(world, memories, scale.turns))
        timings.sort()
        p95 = timings[max(0, math.ceil(len(timings) * 0.95) - 1)]  # never below the median, however few turns
        lines.append(f"{memories:>3} memories per NPC, {STAGE} on stage: orchestrator per turn median "
                     f"{statistics.median(timings):.3f} ms, p95 {p95:.3f} ms ({scale.turns} turns)")
        for section in context.sections:
            offered = len(section.lines) + section.dropped
            lines.append(f"    {section.name:<12} {section.tokens:>5} tokens, {len(section.lines):>4} of "
                         f"{offered:>4} lines kept, {section.ms:.3f} ms")
        for omission in context.omitted:
            lines.append(f"    {omission.name:<12} left out: {omission.reason}")
        lines.append(f"    {'all sections':<12} {context.tokens:>5} of {context.budget} tokens; narration system "
                     f"prompt and turn block {prompt} tokens")
    return lines
