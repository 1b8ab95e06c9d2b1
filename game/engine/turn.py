"""One story turn, written once: input, retrieve, narrate, World IR, extract, awareness, gossip, store.

The same pipeline runs a game on disk and a game in memory. Only the storage step differs, so it is
pluggable (``TurnStore``): ``GameSession`` commits the turn row, the graph writes and the scene in ONE
SQLite transaction; the tests' in-memory playthrough keeps them in lists. Either way nothing of a turn
exists outside local variables until the store has it, so a failure or a cancellation at any step
leaves the game exactly as it was, and memory (``PlayState``) changes only after the store succeeded.

Meta commands (undo, save, ...) are not story turns; the session handles them before this pipeline.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from game.engine.changes import summarize_writes
from game.engine.enrich_fallback import Fallback, fallback_notice, fast_fallback, told_before
from game.engine.events import (
    AttitudeChanged,
    Event,
    GameEnded,
    GraphChanged,
    GraphUpdating,
    MetaOutput,
    NarrationDelta,
    NarrationDone,
    Notice,
    TurnCommitted,
    TurnFailed,
)
from game.engine.feature_steps import apply_rows, run_steps
from game.engine.identity_turn import decided, follow, read_answer, settle
from game.engine.merge_play import MergeSaid, MergeTiers, known_after, tiers_before
from game.engine.meta import parse_meta
from game.engine.mind_context import (
    ContextInputs,
    ProviderFactory,
    compose_turn,
    context_row,
    default_providers,
    narrator_inputs,
)
from game.engine.telling import NOTHING_MORE, Telling, continued, turn_usage
from game.errors import KithError, NarratorError, SaveError
from game.graph.endings import ReadEndings
from game.graph.gossip import GossipSettings, Told, gossip_turn, pair_key
from game.graph.index import GraphIndex
from game.graph.knowledge import Knowing
from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.ports import GraphWrites
from game.graph.retrieve import RetrievalSettings, ScopedRetrieval, cast_seeds, retrieve, retrieve_scoped
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.mind import attitude_turn
from game.mind.attitude import TABLE as ATTITUDES
from game.mind.attitude import Attitude, AttitudeBook, AttitudeView
from game.mind.context import ContextSettings
from game.mind.identity_provider import asked_line, next_question
from game.mind.memory import MemoryBook
from game.mind.memory_consolidate import SummarizingNarrator
from game.mind.memory_forming import memory_rows
from game.narrator.base import (
    CountsTokens,
    ExtractionReport,
    NarrationRequest,
    NarrationResult,
    Narrator,
    PastTurn,
)
from game.registry import default_registry
from game.store.database import TurnRecord
from game.store.pending import IdentityMerge, PendingIdentity
from game.store.rows import RowWrite
from game.story.tiers import TierLines
from game.text import strip_control
from game.world import awareness
from game.world.ir import WorldIR
from game.world.scene import SceneState
from game.world.words import clean

HISTORY_TURNS = 24
"""How many recent turns a narrator sees (and the session keeps in memory)."""

AGAIN_WORDS = frozenset({"again", "g"})
EMPTY_REPLY = "You wait for yourself to decide. (Type `help` for what you can do.)"
NOTHING_AGAIN = "There is nothing to do again yet."
MAX_INPUT_CHARS = 8000
"""The longest line a turn takes (an edited input has the same bound): every later prompt carries it."""
TOO_LONG_REPLY = f"That is more than one turn can take ({MAX_INPUT_CHARS:,} characters). Say it in shorter steps."
ENDED_REPLY = ("The story has reached its end. Type `undo` to step back, `restart` to begin again, "
               "or `restore` to return to a snapshot.")


@dataclass
class PlayState:
    """A game as it stands in memory after its last stored turn: what the next turn starts from."""

    graph: GraphIndex
    scene: SceneState
    turn: int = 0
    history: deque[PastTurn] = field(default_factory=lambda: deque(maxlen=HISTORY_TURNS))
    verbose: bool = False
    last_input: str | None = None
    talked: dict[tuple[str, str], int] = field(default_factory=dict)
    """The last turn each pair of people gossiped (``pair_key``): gossip's cooldown."""
    attitudes: AttitudeBook = field(default_factory=AttitudeBook)
    """Every recorded attitude toward the player (``game.mind.attitude``)."""
    memories: MemoryBook = field(default_factory=MemoryBook)
    """What NPCs remember of the player and what they have said (``game.mind.memory``)."""
    pending: list[PendingIdentity] = field(default_factory=list)
    """Open questions of identity (``game.store.pending``): one is asked a turn, answered the next."""
    features: dict[str, Any] = field(default_factory=dict)
    """Each registered feature's state (``game.registry``), by feature name: deeds and who knows them."""

    @classmethod
    def at(cls, graph: GraphIndex, scene: SceneState, turn: int, history: Iterable[PastTurn],
           verbose: bool, talked: Mapping[tuple[str, str], int] | None = None,
           attitudes: AttitudeBook | None = None, memories: MemoryBook | None = None,
           pending: Iterable[PendingIdentity] = ()) -> PlayState:
        """The state of a game read back from a save (or seeded fresh): ``again`` repeats its last input."""
        past = deque(history, maxlen=HISTORY_TURNS)
        last = next((p.player_input for p in reversed(past) if not is_command(p.player_input)), None)
        return cls(graph, scene.model_copy(update={"verbose": verbose}), turn, past, verbose, last,
                   dict(talked or {}), attitudes or AttitudeBook(), memories or MemoryBook(),
                   pending=[p for p in pending if p.is_open])


def is_command(text: str) -> bool:
    """Whether a stored turn's input was a command kept as a turn (``/knowledge NAME add ...``,
    ``/relationship NAME set ...``), not story: ``again`` never repeats one and narrators never see one in
    their history."""
    return parse_meta(text) is not None


@dataclass(frozen=True)
class FinishedTurn:
    """Everything one told turn produced, before it is stored."""

    record: TurnRecord
    writes: GraphWrites
    result: NarrationResult
    report: ExtractionReport
    told: tuple[Told, ...] = ()
    """The turn's gossip exchanges; their knower rows are already in ``writes``."""
    rows: tuple[RowWrite, ...] = ()
    """Rows of other features' tables the turn changed (attitudes, memories...), stored and undone with it."""
    merges: tuple[IdentityMerge, ...] = ()
    """Identities the turn assumed (logged) or the player confirmed (folded), in the same transaction."""
    mode: str = "tell"
    """How it was told (``NarrationRequest.mode``): ``story`` is the player's own writing (Story mode)."""
    said: MergeSaid | None = None
    """What the story adds once ``merges`` are folded (a tier line), asked inside the commit's transaction."""


class TurnStore(Protocol):
    """Where a finished turn is kept. Raising means nothing of it was kept (the pipeline reports it)."""

    folds_people: bool
    """Whether it merges the people a turn's identity answer folds (a save does; a game in memory does
    not, and there answers to questions of identity are not taken)."""

    async def commit(self, turn: FinishedTurn) -> PlayState | None:
        """Keep ``turn``; returns the game as now kept when the commit changed more than the turn's own
        writes say (people merged, minds folded: memory cannot follow by applying the turn), else None."""


async def witnesses(graph: GraphIndex, cast: Iterable[str]) -> list[str]:
    """Who sees a turn's relations made: the player, and the cast on stage when the player acted."""
    on_stage = [node.id for node in await cast_seeds(graph, list(cast))]
    return sorted(graph.player_ids) + [node_id for node_id in on_stage if node_id not in graph.player_ids]


async def present_ids(graph: GraphIndex, writes: GraphWrites, names: Iterable[str]) -> set[str]:
    """The node IDs of the people where the player is this turn (the player included), people the turn
    itself created among them."""
    wanted = list(dict.fromkeys(names))
    found = set(graph.player_ids)
    for reader in (graph, GraphIndex(writes.nodes.values())):
        found.update(node.id for node in await cast_seeds(reader, wanted))
    return found


def seen_where_made(graph: GraphIndex, writes: GraphWrites, present: set[str]) -> GraphWrites:
    """``writes`` with only the witnesses who were where each relation was made.

    The execution hands every relation of a turn to the same witnesses (the stage as the turn began), but
    people move during a turn and a turn also carries relations made elsewhere (a story beat in another
    place, a model telling what happens up the hill). So a ``witnessed`` or ``told`` row of someone not
    ``present`` (with the player this turn) goes, and a relation none of whose people were present is
    known to its own ends only. A relation somebody told this turn (it has ``told`` rows) was spoken of
    here; one with no individual end (a guild against a guild) has no place to be: both keep the
    witnesses who were present.
    """
    spoken = {row.edge_id for row in writes.knowings.values() if row.how == "told"}
    elsewhere: set[str] = set()
    for edge in writes.edges.values():
        ends = [writes.nodes.get(end) or graph.nodes.get(end) for end in (edge.source, edge.target)]
        people = [node.id for node in ends if node is not None and node.type == "individual"]
        if edge.id not in spoken and people and not present.intersection(people):
            elsewhere.add(edge.id)

    def seen(row: Knowing) -> bool:
        if row.how not in ("witnessed", "told"):
            return True
        return row.knower in present and row.edge_id not in elsewhere

    kept = {key: row for key, row in writes.knowings.items() if seen(row)}
    if len(kept) == len(writes.knowings):
        return writes
    trimmed = writes.copy()
    trimmed.knowings = kept
    return trimmed


async def present_knowers(graph: GraphIndex, cast: Iterable[str]) -> list[Node]:
    """Whose knowledge a turn's narrator is told: the player, then each person of the cast on stage."""
    players = [graph.nodes[node_id] for node_id in sorted(graph.player_ids) if node_id in graph.nodes]
    return players + [node for node in await cast_seeds(graph, list(cast)) if node.id not in graph.player_ids]


async def scoped_context(graph: GraphIndex, text: str, cast: Sequence[str],
                         settings: RetrievalSettings) -> ScopedRetrieval:
    """What the narrator is told this turn: only what the people present know (the player included).

    The rule for graphs that cannot say who knows what: with no player node (a bare graph, not a game)
    retrieval is not scoped and ``knowledge`` is empty, as before knowledge existed. A save from before
    knowledge was migrated with every relation known to its two ends and the player aware of everyone,
    so it is scoped like any game and the player's own lines hold what they knew before.
    """
    if not graph.player_ids:
        return ScopedRetrieval(await retrieve(graph, text, cast, settings))
    return await retrieve_scoped(graph, text, cast, await present_knowers(graph, cast), settings)


async def stage_places(graph: GraphIndex, scene: SceneState) -> dict[str, str]:
    """Who stands where after a turn, by node ID: the story's positions, else the cast as one place.

    The offline story keeps everyone's place; a model narrator's scene has only the cast on stage.
    """
    story = scene.story
    named: dict[str, str] = {}
    if story is not None and story.positions:
        named = {name: place for name, place in story.positions.items() if place is not None}
    else:
        named = dict.fromkeys(scene.cast, scene.location or "stage")
    keys = {name: normalize_name(name) for name in named}
    found = await graph.nodes_named(keys.values())
    places: dict[str, str] = {}
    for name, place in named.items():
        people = [n for n in found.get(keys[name], []) if n.type == "individual"]
        if len(people) == 1:
            places[people[0].id] = place
    return places


def _not_saved(message: str, *, as_written: bool = False, again: bool = True) -> str:
    """A failed turn's message as one sentence and what it means for the turn. ``as_written``: a save's
    message, which begins with the save's name (shown as typed, never capitalised) and already says that
    nothing was saved. ``again``: whether trying the turn again may help (not on a model that cannot chat)."""
    sentence = message.strip()
    if sentence and sentence[-1] not in ".!?":
        sentence += "."
    if not as_written:
        sentence = f"{sentence[:1].upper()}{sentence[1:]}"
    retry = " You can try again." if again else ""
    if "nothing was saved" in sentence or "nothing was changed" in sentence:
        return f"{sentence}{retry}"
    return f"{sentence} Nothing of this turn was saved" + ("; you can try again." if again else ".")


class TurnPipeline:
    """Tells story turns over a ``PlayState`` with one narrator, and hands each finished turn to a store."""

    def __init__(self, state: PlayState, narrator: Narrator, vocabulary: Vocabulary, store: TurnStore, *,
                 seed: int = 0, retrieval_settings: RetrievalSettings | None = None,
                 ending_titles: Mapping[str, str] | None = None,
                 gossip_settings: GossipSettings | None = None,
                 context_settings: ContextSettings | None = None,
                 tier_lines: TierLines | None = None) -> None:
        self.state = state
        self.context_settings = context_settings or ContextSettings()
        self.context_providers: ProviderFactory = default_providers
        self.tier_lines = tier_lines
        """What the story says when someone's tier changes (the world's lines), for those on stage."""
        self.gossip_settings = gossip_settings or GossipSettings()
        self.narrator = narrator
        self.vocabulary = vocabulary
        self.store = store
        self.seed = seed
        self.retrieval_settings = retrieval_settings or RetrievalSettings()
        self.ending_titles: Mapping[str, str] = ending_titles or {}
        self.registry = default_registry()
        """The features whose steps run in each turn (``game.registry``)."""

    def story_input(self, text: str) -> str | MetaOutput:
        """What the story is asked to do for ``text``, or the reply when no story turn is told.

        The one place for empty input, ``again``/``g`` (the last committed input, told afresh) and a
        story that has ended; narrators never see any of these.
        """
        text = strip_control(text).strip()  # kept in the save and in every later prompt: terminal-safe
        if len(text) > MAX_INPUT_CHARS:
            return MetaOutput(TOO_LONG_REPLY, "too-long")
        # Read as the story's parser reads a line (case, quotes, punctuation, "please"), so "again." and
        # "again please" repeat and "..." is empty here, not as a second rule inside one narrator.
        cleaned = clean(text)
        if not cleaned:
            return MetaOutput(EMPTY_REPLY, "empty")
        if cleaned in AGAIN_WORDS:
            if self.state.last_input is None:
                return MetaOutput(NOTHING_AGAIN, "again")  # before any turn
            text = self.state.last_input
        if self.state.scene.ending:
            return MetaOutput(ENDED_REPLY, "ended")
        return text

    async def play(self, text: str) -> AsyncIterator[Event]:
        """One line of story input: a told turn, committed at most once, or a reply saying why not."""
        wanted = self.story_input(text)
        if isinstance(wanted, MetaOutput):
            yield wanted
            return
        answer = read_answer(text, self.state.pending, self.state.graph, self.state.turn)
        if answer is not None and self.store.folds_people:
            reply, row, merge = settle(answer, self.state.turn + 1)
            merges = [merge] if merge else []
            scene = known_after(merges, self.state.scene, self.state.graph)
            tiers = MergeTiers(tiers_before(merges, self.state.attitudes, self.state.graph), scene.cast,
                               self.tier_lines)
            try:
                turn = await self.commit_command(text.strip(), reply, rows=[row], merges=merges, scene=scene,
                                                 said=tiers)
            except KithError as error:  # a save that cannot be written: nothing of the answer was kept
                yield TurnFailed(_not_saved(error.message, as_written=isinstance(error, SaveError)), error.title)
                return
            yield MetaOutput(reply, "identity")
            for change in tiers.changes:  # the merge moved the kept person's tier: said as a told turn says it
                yield AttitudeChanged(turn, change.name, change.before, change.after, tiers.said.get(change.npc_id, ""))
            yield TurnCommitted(turn, True, {})
            return
        async for event in self.tell(wanted):
            yield event

    def beside(self, state: PlayState, store: TurnStore) -> TurnPipeline:
        """This pipeline's narrator and settings over another state and store: a turn told again."""
        told = TurnPipeline(state, self.narrator, self.vocabulary, store, seed=self.seed,
                            retrieval_settings=self.retrieval_settings, ending_titles=self.ending_titles,
                            gossip_settings=self.gossip_settings, context_settings=self.context_settings,
                            tier_lines=self.tier_lines)
        told.context_providers = self.context_providers
        told.registry = self.registry
        return told

    async def tell(self, text: str, telling: Telling | None = None) -> AsyncIterator[Event]:
        """Tell and store the turn ``text`` as it is (no input handling; see ``play``)."""
        how = telling or Telling()
        state = self.state
        turn = state.turn + 1
        timings: dict[str, float] = {}
        clock = time.perf_counter()
        started = clock

        def lap(name: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            timings[name] = round((now - clock) * 1000, 3)
            clock = now

        try:
            scoped = await scoped_context(state.graph, text, state.scene.cast, self.retrieval_settings)
            lap("retrieve_ms")
            # What the narrator is told: every section within the budget (game/engine/mind_context.py).
            inputs = ContextInputs(state, scoped, await present_knowers(state.graph, state.scene.cast))
            count = self.narrator.count_tokens if isinstance(self.narrator, CountsTokens) else None
            context = await compose_turn(turn, text, inputs, self.context_settings, self.context_providers, count)
            npc_context, knowledge = narrator_inputs(context, scoped)
            asking = next_question(state.pending, state.graph.nodes) if asked_line(context) is not None else None
            lap("context_ms")
            scene = state.scene.model_copy(update={"verbose": state.verbose})
            request = NarrationRequest(
                turn=turn, player_input=text, npc_context=npc_context, scene=scene, graph=state.graph,
                history=tuple(p for p in state.history if not is_command(p.player_input)),
                seed=self.seed + turn + how.seed_shift, knowledge=knowledge, context=context,
                attitudes=AttitudeView(state.attitudes, state.graph), memories=state.memories.view(turn),
                features=state.features,
                memory=self.registry.standing_words(state.features, "memory"),
                authors_note=self.registry.standing_words(state.features, "authors_note"),
                mode="story" if how.story else "given" if how.given is not None
                else "continue" if how.continue_from else "tell",
                continue_from=how.continue_from,
            )
            parts: list[str] = []
            if how.given is None:
                async for delta in self.narrator.narrate(request):
                    if delta:
                        parts.append(delta)
                        yield NarrationDelta(delta)
            narration = "".join(parts) if how.given is None else how.given
            if how.continue_from:
                if not narration.strip():
                    yield MetaOutput(NOTHING_MORE, "continue")
                    return
                narration = continued(how.continue_from, narration)
            lap("narrate_ms")
            yield NarrationDone(narration)
            # The memory step is the World IR and the extraction together: the player sees it from here
            # to the commit, not only once the (often slower) World IR is back.
            yield GraphUpdating(turn)
            result = await self.narrator.finish(request, narration)
            lap("world_ir_ms")
            # A narrator that tells the world's own story beats ends relations as its author wrote; every
            # other reading of the turn is held to the one rule for endings read from text.
            endings = None if getattr(self.narrator, "authors_endings", False) else ReadEndings(text)
            execution = UpsertExecution(state.graph, self.vocabulary, turn,
                                        rng=random.Random(f"{self.seed}:{turn}"),
                                        witnesses=await witnesses(state.graph, state.scene.cast),
                                        identity=state.graph.nodes.values, endings=endings)
            if result.ir_error:
                # Without a World IR there is nothing true to extract; the turn is stored marked so that
                # `kith graph rebuild` can ask for the IR again later.
                report = ExtractionReport(False, message=result.ir_error)
            else:
                report = await self.narrator.extract(request, result, execution)
            if not report.usage:
                report.usage = turn_usage(self.narrator, turn)
            writes = execution.writes if report.extracted else GraphWrites()
            fallback: Fallback | None = None
            if not report.extracted:
                # The model could not record the turn: keep what the narration plainly states (marked fast).
                fallback = await fast_fallback(state.graph, self.vocabulary, turn, narration,
                                               rng=random.Random(f"{self.seed}:{turn}:fast"),
                                               witnesses=await witnesses(state.graph, state.scene.cast),
                                               before=told_before(p.narration for p in state.history if not is_command(p.player_input)),
                                               acted=text)
                writes = fallback.writes
            if writes and not result.ir_error:
                # Who was with the player this turn: the World IR's presence. A story that keeps everyone's
                # place says it exactly; a model's may leave someone out, so the cast counts too (before
                # the turn only when the player stayed where they were).
                ir = result.world_ir
                here = [*ir.characters_present, *ir.next_cast]
                if result.scene.story is None:
                    here += result.scene.cast
                    if result.scene.location == state.scene.location:
                        here += state.scene.cast
                writes = seen_where_made(state.graph, writes, await present_ids(state.graph, writes, here))
            result.scene = await self._aware(result.scene, writes, turn, narration)
            lap("extract_ms")
            # Word travels after what happened is known, and rides in the same writes: one transaction,
            # and undo takes it back with the turn.
            places = await stage_places(state.graph, result.scene)
            gossip = gossip_turn(state.graph, writes, turn, places, self.gossip_settings, self.seed, state.talked)
            if gossip.knowings:
                writes = writes.copy()
                writes.knowings.update(gossip.knowings)
            lap("gossip_ms")
            here = [*result.world_ir.characters_present, *result.world_ir.next_cast] if not result.ir_error else []
            featured = await run_steps(state.features, turn, state.graph, writes,
                                       None if result.ir_error else result.world_ir, places,
                                       await present_ids(state.graph, writes, here), self.seed,
                                       self.gossip_settings, self.registry)
            lap("features_ms")
            moved = attitude_turn.after_turn(state.attitudes, state.graph, writes,
                                             None if result.ir_error else result.world_ir, turn, featured.attitudes,
                                             featured.covered)
            if report.extracted:
                writes = await attitude_turn.agree(execution, writes, moved.agreement)
            # An ending's epilogue has the last word: a tier line after it would speak from beyond the end.
            said = {} if result.scene.ending else self._tier_said(moved, result.scene.cast)
            if said:
                narration = "\n\n".join([narration, *said.values()])
            lap("attitude_ms")
            summarizer = self.narrator.memory_summarizer if isinstance(self.narrator, SummarizingNarrator) else None
            memories = await memory_rows(state.memories, state.graph, writes,
                                         None if result.ir_error else result.world_ir, turn, summarizer,
                                         featured.memories, featured.covered)
            lap("memory_ms")
            timings["engine_ms"] = round((time.perf_counter() - started) * 1000, 3)
            record = TurnRecord(
                number=turn, input=text, narration=narration, npc_context=npc_context,
                world_ir=None if result.ir_error else result.world_ir.to_json_dict(), timings=timings,
                extracted=report.extracted, extraction="full" if fallback is None else fallback.extraction,
            )
            raised, assumed = decided(execution.identities, turn) if report.extracted else ([], [])
            asked = [asking.asked(turn).write()] if asking is not None else []
            await self._store(FinishedTurn(record, writes, result, report, tuple(gossip.told),
                                           (context_row(context), *moved.rows, *memories, *asked, *raised, *featured.rows),
                                           tuple(assumed), mode=request.mode))
            lap("commit_ms")
        except KithError as error:
            again = not isinstance(error, NarratorError) or error.retry_helps
            yield TurnFailed(_not_saved(error.message, as_written=isinstance(error, SaveError), again=again),
                             error.title)
            return
        except (OSError, ValueError) as error:
            failure = NarratorError(f"the turn could not be completed ({type(error).__name__}: {error})")
            yield TurnFailed(_not_saved(failure.message), failure.title)
            return
        for change in moved.changes:
            yield AttitudeChanged(turn, change.name, change.before, change.after, said.get(change.npc_id, ""))
        changes = summarize_writes(writes, state.graph.nodes, turn)
        if changes:
            yield GraphChanged(turn, changes)
        yield TurnCommitted(turn, report.extracted, timings, record.extraction, dict(report.usage))
        for notice in [*result.notices, *([] if endings is None or fallback is not None else [endings.notice()])]:
            if notice:
                yield Notice(notice)
        if fallback is not None:
            yield Notice(fallback_notice(report.message, fallback), "warning")
        if result.scene.ending:
            yield GameEnded(result.scene.ending, self.ending_title(result.scene.ending))

    def _tier_said(self, moved: attitude_turn.AttitudeTurn, cast: Sequence[str]) -> dict[str, str]:
        """The story's line for each tier change of someone on stage after the turn, by node ID."""
        said: dict[str, str] = {}
        for change in moved.changes:
            line = self.tier_lines(change.name, change.after, change.before) if self.tier_lines and change.name in cast else None
            if line:
                said[change.npc_id] = line
        return said

    async def _aware(self, scene: SceneState, writes: GraphWrites, turn: int, narration: str) -> SceneState:
        """The player's awareness after this turn, whichever narrator told it: the people on stage are
        met; the people the narration names, and the ends of relations the player learned, are heard of
        (those new this turn included)."""
        readers = [self.state.graph, GraphIndex(writes.nodes.values())]
        told_of = awareness.ends_of_known(self.state.graph, writes)
        known = await awareness.after_turn(scene.known, readers, turn, scene.cast, narration, told_of)
        return scene if known is None else scene.model_copy(update={"known": known})

    async def _store(self, finished: FinishedTurn) -> None:
        """Store, shielded: once the store starts it finishes, and memory follows only what it kept."""
        task = asyncio.ensure_future(self.store.commit(finished))
        cancelled = False
        while not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                cancelled = True  # however often Esc is pressed, the commit finishes first
        kept = task.result()  # a failed commit raises here, and nothing was kept
        self.apply(finished)
        if kept is not None:  # people were folded together: the game as the save now holds it
            kept.verbose = self.state.verbose
            self.state = kept
        if cancelled:
            raise asyncio.CancelledError

    def apply(self, finished: FinishedTurn) -> None:
        """Memory follows the store: the graph, the scene, the turn number, the history."""
        state, record = self.state, finished.record
        state.graph.apply(finished.writes)
        state.scene = finished.result.scene
        state.turn = record.number
        state.history.append(PastTurn(record.number, record.input, record.narration))
        if not is_command(record.input):
            state.last_input = record.input
        for told in finished.told:
            state.talked[pair_key(told.teller, told.listener)] = told.turn
        recorded = [Attitude.from_row(r.row) for r in finished.rows if r.table == ATTITUDES and r.row is not None]
        if recorded:
            state.attitudes = state.attitudes.updated(recorded)
        state.memories.apply(finished.rows)
        state.features = apply_rows(state.features, finished.rows, self.registry)
        state.pending = follow(state.pending, finished.rows)

    async def commit_command(self, text: str, reply: str, writes: GraphWrites | None = None,
                             rows: Sequence[RowWrite] = (), merges: Sequence[IdentityMerge] = (),
                             scene: SceneState | None = None, said: MergeSaid | None = None) -> int:
        """Store a command that changes the game (``/knowledge NAME add ...``, ``/relationship NAME set ...``,
        an answer to a question of identity) as a turn of its own: its input is the command, its narration the
        reply (and what ``said`` makes of its merges), the scene stays as it was (or is ``scene``: an answer's
        merge folds who the player knows). ``undo`` then steps back over it exactly like over a told turn.
        Returns the turn's number."""
        state = self.state
        record = TurnRecord(number=state.turn + 1, input=text, narration=reply, npc_context="", world_ir=None)
        result = NarrationResult(world_ir=WorldIR(), scene=(scene or state.scene).model_copy(deep=True))
        await self._store(FinishedTurn(record, writes or GraphWrites(), result, ExtractionReport(True), (),
                                       tuple(rows), tuple(merges), said=said))
        return record.number

    def ending_title(self, ending: str) -> str:
        if ending in self.ending_titles:
            return self.ending_titles[ending]
        return ending.replace("-", " ").replace("_", " ").title()
