"""A told turn as an ordered list of steps over one draft: retrieve, context, narrate, World IR, extract,
then each registered feature's after-turn step (word travelling among them, then the attitudes moving), then
the story's tier lines and the memories.

Each step reads what the steps before it left in the ``TurnDraft`` and adds its own part; none writes
anything outside the draft, so a failure or a cancellation at any step leaves the game as it was. The
pipeline (``game.engine.turn``) runs the steps in order, times each, and hands the draft's ``finished``
turn to the one commit (``game.engine.turn_commit``). A step may stream events (the narration as it
arrives) or stop the turn (``continue`` when the narrator has nothing more to say).
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from game.engine.enrich_fallback import Fallback, fallback_notice, fast_fallback, told_before
from game.engine.events import Event, GraphUpdating, MetaOutput, NarrationDelta, NarrationDone, Notice
from game.engine.feature_steps import FeatureTurn, after_turn
from game.engine.mind_context import (
    ContextInputs,
    ProviderFactory,
    compose_turn,
    context_row,
    narrator_inputs,
)
from game.engine.play_state import PlayState, is_command
from game.engine.presence import (
    present_ids,
    present_knowers,
    scoped_context,
    seen_where_made,
    stage_places,
    witnesses,
)
from game.engine.tuning import TurnTuning
from game.engine.turn_commit import FinishedTurn
from game.features.attitudes.model import AttitudeView
from game.features.feature import Feature, Remembering
from game.features.retelling import Telling
from game.graph.endings import ReadEndings
from game.graph.index import GraphIndex
from game.graph.ports import GraphWrites
from game.graph.retrieve import ScopedRetrieval
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.narrator.base import CountsTokens, ExtractionReport, NarrationRequest, NarrationResult, Narrator
from game.registry import Registry
from game.store.database import TurnRecord
from game.store.rows import RowWrite
from game.store.told_log import Told
from game.story.tiers import TierLines
from game.world import awareness
from game.world.ir import WorldIR

NOTHING_MORE = "There is nothing more to tell of this turn: the narrator has said all it had."
"""What a continued turn answers when the narrator adds nothing (the offline story tells each turn whole)."""


def continued(before: str, more: str) -> str:
    """A narration and what a continuation added, read as one text (a space between unless one is there)."""
    if not before.strip():
        return more
    if more[:1].isspace() or before[-1:].isspace():
        return before + more
    return f"{before} {more}"


def turn_usage(narrator: Narrator, turn: int) -> dict[str, int]:
    """A model narrator's requests and tokens by step for ``turn`` (empty for one that counts none)."""
    usage = getattr(narrator, "usage", None)
    figures = usage(turn) if callable(usage) else {}
    return dict(figures) if isinstance(figures, dict) else {}

@dataclass(frozen=True)
class TurnTools:
    """What the steps tell a turn with: the pipeline's narrator, tuning and features at the turn's start."""

    narrator: Narrator
    vocabulary: Vocabulary
    tuning: TurnTuning
    registry: Registry
    providers: ProviderFactory
    tier_lines: TierLines | None = None


@dataclass
class TurnDraft:
    """One told turn as its steps build it; nothing of it exists outside the draft until the commit."""

    state: PlayState
    tools: TurnTools
    text: str
    how: Telling
    timings: dict[str, float] = field(default_factory=dict)
    stopped: bool = False
    """A step ended the turn before the commit (nothing is stored)."""
    scoped: ScopedRetrieval | None = None
    request: NarrationRequest | None = None
    narration: str = ""
    result: NarrationResult | None = None
    endings: ReadEndings | None = None
    execution: UpsertExecution | None = None
    report: ExtractionReport = field(default_factory=lambda: ExtractionReport(False))
    writes: GraphWrites = field(default_factory=GraphWrites)
    fallback: Fallback | None = None
    places: dict[str, str] = field(default_factory=dict)
    present: set[str] | None = None
    """Who was with the player this turn, by node ID (the World IR's presence), for the features' steps."""
    told: tuple[Told, ...] = ()
    featured: FeatureTurn = field(default_factory=FeatureTurn)
    spoken: dict[str, str] = field(default_factory=dict)
    rows: list[RowWrite] = field(default_factory=list)
    """Rows of the turn's own tables in the order they are written (context first)."""

    @property
    def turn(self) -> int:
        return self.state.turn + 1

    @property
    def graph(self) -> GraphIndex:
        return self.state.graph

    @property
    def told_request(self) -> NarrationRequest:
        assert self.request is not None, "the context step builds the request"
        return self.request

    @property
    def told_result(self) -> NarrationResult:
        assert self.result is not None, "the World IR step reads the result"
        return self.result

    @property
    def world_ir(self) -> WorldIR | None:
        """The turn's World IR, or None when the narrator could not give one."""
        result = self.told_result
        return None if result.ir_error else result.world_ir

    def finished(self) -> FinishedTurn:
        """The draft as the turn the commit stores (and the front ends are told of)."""
        result, report = self.told_result, self.report
        record = TurnRecord(
            number=self.turn, input=self.text, narration=self.narration, npc_context=self.told_request.npc_context,
            world_ir=None if result.ir_error else result.world_ir.to_json_dict(), timings=self.timings,
            extracted=report.extracted, extraction="full" if self.fallback is None else self.fallback.extraction,
        )
        assert self.execution is not None
        notices = [*result.notices, *([] if self.endings is None or self.fallback is not None
                                      else [self.endings.notice()])]
        shown = [Notice(text) for text in notices if text]
        if self.fallback is not None:
            shown.append(Notice(fallback_notice(report.message, self.fallback), "warning"))
        return FinishedTurn(record, self.writes, result, report, self.told,
                            (*self.rows, *self.featured.rows), self.featured.merges,
                            mode=self.told_request.mode, tiers=self.featured.tiers,
                            spoken=dict(self.spoken), notices=tuple(shown))


Step = Callable[[TurnDraft], AsyncIterator[Event]]
"""One step of a told turn: it reads and fills the draft, and may stream events to the player."""


def quiet(work: Callable[[TurnDraft], Awaitable[None]]) -> Step:
    """A step that streams nothing."""
    async def step(draft: TurnDraft) -> AsyncIterator[Event]:
        await work(draft)
        nothing: tuple[Event, ...] = ()  # nothing to tell the player until the commit
        for event in nothing:
            yield event
    return step


async def _retrieve(draft: TurnDraft) -> None:
    """What the graph holds for this turn, scoped to what the people present know."""
    state = draft.state
    draft.scoped = await scoped_context(state.graph, draft.text, state.scene.cast, draft.tools.tuning.retrieval)


async def _context(draft: TurnDraft) -> None:
    """What the narrator is told: every section within the budget (game/engine/mind_context.py)."""
    state, tools, how, turn = draft.state, draft.tools, draft.how, draft.turn
    scoped = draft.scoped
    assert scoped is not None, "the retrieve step comes first"
    inputs = ContextInputs(state, scoped, await present_knowers(state.graph, state.scene.cast))
    count = tools.narrator.count_tokens if isinstance(tools.narrator, CountsTokens) else None
    context = await compose_turn(turn, draft.text, inputs, tools.tuning.context, tools.providers, count)
    npc_context, knowledge = narrator_inputs(context, scoped)
    draft.rows.append(context_row(context))
    draft.request = NarrationRequest(
        turn=turn, player_input=draft.text, npc_context=npc_context,
        scene=state.scene.model_copy(update={"verbose": state.verbose}), graph=state.graph,
        history=tuple(p for p in state.history if not is_command(p.player_input)),
        seed=tools.tuning.seed + turn + how.seed_shift, knowledge=knowledge, context=context,
        attitudes=AttitudeView(state.attitudes, state.graph), memories=state.memories.view(turn),
        features=state.features,
        memory=tools.registry.standing_words(state.features, "memory"),
        authors_note=tools.registry.standing_words(state.features, "authors_note"),
        mode="story" if how.story else "given" if how.given is not None else "continue" if how.continue_from
        else "tell",
        continue_from=how.continue_from,
    )


async def narrate(draft: TurnDraft) -> AsyncIterator[Event]:
    """The narration, streamed as it comes (or the player's own, given); ``continue`` adds to the last."""
    how = draft.how
    parts: list[str] = []
    if how.given is None:
        async for delta in draft.tools.narrator.narrate(draft.told_request):
            if delta:
                parts.append(delta)
                yield NarrationDelta(delta)
    narration = "".join(parts) if how.given is None else how.given
    if how.continue_from:
        if not narration.strip():
            draft.stopped = True
            yield MetaOutput(NOTHING_MORE, "continue")
            return
        narration = continued(how.continue_from, narration)
    draft.narration = narration
    yield NarrationDone(narration)


async def world_ir(draft: TurnDraft) -> AsyncIterator[Event]:
    """The World IR of what was narrated. The graph update is the World IR and the extraction together:
    the player sees it from here to the commit, not only once the (often slower) World IR is back."""
    yield GraphUpdating(draft.turn)
    draft.result = await draft.tools.narrator.finish(draft.told_request, draft.narration)


async def _extract(draft: TurnDraft) -> None:
    """The turn's graph writes: the narrator's extraction, else the fast path; witnessed where made."""
    state, tools, turn, result = draft.state, draft.tools, draft.turn, draft.told_result
    seed, narrator = tools.tuning.seed, tools.narrator
    # A narrator that tells the world's own story beats ends relations as its author wrote; every other
    # reading of the turn is held to the one rule for endings read from text.
    draft.endings = None if getattr(narrator, "authors_endings", False) else ReadEndings(draft.text)
    execution = UpsertExecution(state.graph, tools.vocabulary, turn, rng=random.Random(f"{seed}:{turn}"),
                                witnesses=await witnesses(state.graph, state.scene.cast),
                                identity=state.graph.nodes.values, endings=draft.endings)
    draft.execution = execution
    if result.ir_error:
        # Without a World IR there is nothing true to extract; the turn is stored marked so that
        # `kith graph rebuild` can ask for the IR again later.
        report = ExtractionReport(False, message=result.ir_error)
    else:
        report = await narrator.extract(draft.told_request, result, execution)
    if not report.usage:
        report.usage = turn_usage(narrator, turn)
    draft.report = report
    writes = execution.writes if report.extracted else GraphWrites()
    if not report.extracted:
        # The model could not record the turn: keep what the narration plainly states (marked fast).
        draft.fallback = await fast_fallback(
            state.graph, tools.vocabulary, turn, draft.narration, rng=random.Random(f"{seed}:{turn}:fast"),
            witnesses=await witnesses(state.graph, state.scene.cast),
            before=told_before(p.narration for p in state.history if not is_command(p.player_input)),
            acted=draft.text)
        writes = draft.fallback.writes
    if writes and not result.ir_error:
        # Who was with the player this turn: the World IR's presence. A story that keeps everyone's place
        # says it exactly; a model's may leave someone out, so the cast counts too (before the turn only
        # when the player stayed where they were).
        ir = result.world_ir
        here = [*ir.characters_present, *ir.next_cast]
        if result.scene.story is None:
            here += result.scene.cast
            if result.scene.location == state.scene.location:
                here += state.scene.cast
        writes = seen_where_made(state.graph, writes, await present_ids(state.graph, writes, here))
    draft.writes = writes
    # The player's awareness after this turn, whichever narrator told it: the people on stage are met; the
    # people the narration names, and the ends of relations the player learned, are heard of.
    scene = result.scene
    told_of = awareness.ends_of_known(state.graph, writes)
    known = await awareness.after_turn(scene.known, [state.graph, GraphIndex(writes.nodes.values())], turn,
                                       scene.cast, draft.narration, told_of)
    if known is not None:
        result.scene = scene.model_copy(update={"known": known})


def feature_step(feature: Feature) -> Step:
    """The after-turn step of one registered feature: its rows, attitude changes and tiers join the draft's,
    its rule's upsert call (``StepResult.agreement``) runs through the turn's extraction."""
    async def work(draft: TurnDraft) -> None:
        ir = draft.world_ir
        if draft.present is None:
            here = [*ir.characters_present, *ir.next_cast] if ir is not None else []
            draft.present = await present_ids(draft.graph, draft.writes, here)
            draft.places = await stage_places(draft.graph, draft.told_result.scene)
        execution = draft.execution if draft.report.extracted else None
        draft.featured, draft.writes = await after_turn(
            feature, draft.featured, draft.state.features, draft.turn, draft.graph, draft.writes, ir, draft.places,
            draft.present, draft.tools.tuning, draft.state.memories.said, draft.told_request.context, execution)
    return quiet(work)


async def _tier_lines(draft: TurnDraft) -> None:
    """The story's line for each tier the features' steps moved (the attitudes'), told after the narration."""
    result = draft.told_result
    # An ending's epilogue has the last word: a tier line after it would speak from beyond the end.
    lines = draft.tools.tier_lines
    if not result.scene.ending and lines is not None:
        for change in draft.featured.tiers:
            line = lines(change.name, change.after, change.before) if change.name in result.scene.cast else None
            if line:
                draft.spoken[change.npc_id] = line
    if draft.spoken:
        draft.narration = "\n\n".join([draft.narration, *draft.spoken.values()])


async def _memories(draft: TurnDraft) -> None:
    """What the people present remember of the turn: the registered features' last step (the memories
    feature's), which reads what the features and the attitudes left (summarised by a model narrator that can)."""
    state, featured = draft.state, draft.featured
    facts = Remembering(draft.turn, state.graph, draft.writes, draft.world_ir, draft.tools.narrator,
                        featured.memories, featured.covered)
    draft.rows.extend(await draft.tools.registry.remember(facts, state.features, draft.tools.tuning.features))


def turn_steps(registry: Registry) -> list[tuple[str, Step]]:
    """A told turn's steps in order, each with the timing it is measured under: the core's, then each
    registered feature's after-turn step (``features_ms`` together; the attitudes' among them), then the
    story's lines for the tiers they moved, then the memories, which read what the features said."""
    core: list[tuple[str, Step]] = [
        ("retrieve_ms", quiet(_retrieve)), ("context_ms", quiet(_context)), ("narrate_ms", narrate), ("world_ir_ms", world_ir),
        ("extract_ms", quiet(_extract)),
    ]
    features = [("features_ms", feature_step(feature)) for feature in registry.in_step_order()]
    return [*core, *features, ("tiers_ms", quiet(_tier_lines)), ("memory_ms", quiet(_memories))]
