"""One story turn, written once: its input read, its steps run over one draft, and one commit.

A told turn is an ordered list of steps (``game.engine.turn_steps``: retrieve, context, narrate, World
IR, extract, each feature's after-turn step (word travelling among them), attitudes, memories) over one ``TurnDraft``; then the
one commit (``game.engine.turn_commit``) stores it and derives what the front ends are told. A command kept
as a turn and an answer to a question a feature asked are finished turns too, committed the same way.

The same pipeline runs a game on disk and a game without a save. Only the storage step differs, so it is
pluggable (``TurnStore``): ``GameSession`` commits the turn row, the graph writes and the scene in ONE
SQLite transaction; the tests' playthrough without a save keeps them in lists. Either way nothing of a turn
exists outside its draft until the store has it, so a failure or a cancellation at any step leaves the
game exactly as it was, and the game in play (``PlayState``) changes only after the store succeeded.

Meta commands (undo, save, ...) are not story turns; the session handles them before this pipeline.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from game.engine.events import Event, MetaOutput, TurnFailed
from game.engine.feature_steps import apply_rows
from game.engine.mind_context import ProviderFactory, default_providers
from game.engine.play_state import PlayState, is_command
from game.engine.tuning import TurnTuning
from game.engine.turn_commit import FinishedTurn, TurnStore, committed_events, shielded
from game.engine.turn_steps import TurnDraft, TurnTools, turn_steps
from game.errors import KithError, NarratorError, SaveError
from game.features.feature import AnswerReach, MergeSaid, TierChange
from game.features.retelling import Telling
from game.graph.ports import GraphWrites
from game.graph.retrieve import RetrievalSettings
from game.graph.vocabulary import Vocabulary
from game.mind.context import ContextSettings
from game.narrator.base import ExtractionReport, NarrationResult, Narrator, PastTurn
from game.registry import default_registry
from game.store.database import TurnRecord
from game.store.merge_log import MergeEntry
from game.store.rows import RowWrite
from game.story.tiers import TierLines
from game.text import strip_control
from game.world.ir import WorldIR
from game.world.scene import SceneState
from game.world.words import clean

AGAIN_WORDS = frozenset({"again", "g"})
EMPTY_REPLY = "You wait for yourself to decide. (Type `help` for what you can do.)"
NOTHING_AGAIN = "There is nothing to do again yet."
MAX_INPUT_CHARS = 8000
"""The longest line a turn takes (an edited input has the same bound): every later prompt carries it."""
TOO_LONG_REPLY = f"That is more than one turn can take ({MAX_INPUT_CHARS:,} characters). Say it in shorter steps."
ENDED_REPLY = ("The story has reached its end. Type `undo` to step back, `restart` to begin again, "
               "or `restore` to return to a snapshot.")


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
                 tunings: Mapping[str, Any] | None = None,
                 context_settings: ContextSettings | None = None,
                 tier_lines: TierLines | None = None,
                 tuning: TurnTuning | None = None) -> None:
        self.state = state
        self.tuning = tuning or TurnTuning(seed, retrieval_settings or RetrievalSettings(),
                                           dict(tunings or {}), context_settings or ContextSettings())
        """What every turn is tuned by (``tuning.turn_tuning`` builds it from the player's settings)."""
        self.context_providers: ProviderFactory = default_providers
        self.tier_lines = tier_lines
        """What the story says when someone's tier changes (the world's lines), for those on stage."""
        self.narrator = narrator
        self.vocabulary = vocabulary
        self.store = store
        self.ending_titles: Mapping[str, str] = ending_titles or {}
        self.registry = default_registry()
        """The features whose steps run in each turn (``game.registry``)."""

    @property
    def seed(self) -> int:
        return self.tuning.seed

    @property
    def retrieval_settings(self) -> RetrievalSettings:
        return self.tuning.retrieval

    @property
    def tunings(self) -> Mapping[str, Any]:
        """Each feature's tuning by name (``Registry.tunings``)."""
        return self.tuning.features

    @property
    def context_settings(self) -> ContextSettings:
        return self.tuning.context

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
        state = self.state
        reach = AnswerReach(text, state.graph, state.turn, state.scene, state.attitudes, self.tier_lines)
        answer = self.registry.answer(state.features, reach) if self.store.folds_people else None
        if answer is None:
            async for event in self.tell(wanted):
                yield event
            return
        answered = self.kept_turn(text.strip(), answer.reply, answer.kind, rows=answer.rows, merges=answer.merges,
                                  scene=answer.scene, said=answer.said)
        try:
            events = await self.commit(answered)
        except KithError as error:  # a save that cannot be written: nothing of the answer was kept
            yield TurnFailed(_not_saved(error.message, as_written=isinstance(error, SaveError)), error.title)
            return
        for event in events:
            yield event

    def beside(self, state: PlayState, store: TurnStore) -> TurnPipeline:
        """This pipeline's narrator and settings over another state and store: a turn told again."""
        told = TurnPipeline(state, self.narrator, self.vocabulary, store, ending_titles=self.ending_titles,
                            tier_lines=self.tier_lines, tuning=self.tuning)
        told.context_providers = self.context_providers
        told.registry = self.registry
        return told

    async def tell(self, text: str, telling: Telling | None = None) -> AsyncIterator[Event]:
        """Tell and store the turn ``text`` as it is (no input handling; see ``play``): each step in order
        over one draft, each timed, then the one commit."""
        tools = TurnTools(self.narrator, self.vocabulary, self.tuning, self.registry, self.context_providers,
                          self.tier_lines)
        draft = TurnDraft(self.state, tools, text, telling or Telling())
        timings = draft.timings
        started = clock = time.perf_counter()
        try:
            for name, step in turn_steps(self.registry):
                async for event in step(draft):
                    yield event
                if draft.stopped:
                    return
                now = time.perf_counter()
                timings[name] = round(timings.get(name, 0.0) + (now - clock) * 1000, 3)
                clock = now
            timings["engine_ms"] = round((clock - started) * 1000, 3)
            events = await self.commit(draft.finished(), timed=True)
        except KithError as error:
            again = not isinstance(error, NarratorError) or error.retry_helps
            yield TurnFailed(_not_saved(error.message, as_written=isinstance(error, SaveError), again=again),
                             error.title)
            return
        except (OSError, ValueError) as error:
            failure = NarratorError(f"the turn could not be completed ({type(error).__name__}: {error})")
            yield TurnFailed(_not_saved(failure.message), failure.title)
            return
        for event in events:
            yield event

    async def commit(self, finished: FinishedTurn, *, timed: bool = False) -> list[Event]:
        """The one commit of every kind of turn: stored, shielded (once the store starts it finishes), the game
        in play following only what was kept; returns what the front ends are told of it (``committed_events``).
        ``timed``: the commit's time joins the turn's timings (a told turn's)."""
        started = time.perf_counter()
        graph = self.state.graph  # the graph the turn is applied to (a fold may replace the state after)

        async def keep() -> None:
            kept = await self.store.commit(finished)  # a failed commit raises here, and nothing was kept
            self.apply(finished)
            if kept is not None:  # people were folded together: the game as the save now holds it
                kept.verbose = self.state.verbose
                self.state = kept

        await shielded(keep())
        if timed:
            finished.record.timings["commit_ms"] = round((time.perf_counter() - started) * 1000, 3)
        return committed_events(finished, graph.nodes, self.ending_title)

    def apply(self, finished: FinishedTurn) -> None:
        """The play state follows the store: the graph, the scene, the turn number, the history."""
        state, record = self.state, finished.record
        state.graph.apply(finished.writes)
        state.scene = finished.result.scene
        state.turn = record.number
        state.history.append(PastTurn(record.number, record.input, record.narration))
        if not is_command(record.input):
            state.last_input = record.input
        state.features = apply_rows(state.features, finished.rows, self.registry)

    def kept_turn(self, text: str, reply: str, kind: str, writes: GraphWrites | None = None,
                  rows: Sequence[RowWrite] = (), merges: Sequence[MergeEntry] = (),
                  scene: SceneState | None = None, said: MergeSaid | None = None,
                  tiers: Sequence[TierChange] = ()) -> FinishedTurn:
        """A command that changes the game (``/knowledge NAME add ...``, ``/relationship NAME set ...``, an
        answer to a question a feature asked) as a turn of its own, ready for the one commit: its input is the
        command, its narration the reply (and what ``said`` makes of its merges, shown as a ``kind`` reply),
        the scene stays as it was (or is ``scene``: an answer's merge folds who the player knows). ``undo``
        then steps back over it exactly like over a told turn."""
        state = self.state
        record = TurnRecord(number=state.turn + 1, input=text, narration=reply, npc_context="", world_ir=None)
        result = NarrationResult(world_ir=WorldIR(), scene=(scene or state.scene).model_copy(deep=True))
        return FinishedTurn(record, writes or GraphWrites(), result, ExtractionReport(True), (), tuple(rows),
                            tuple(merges), said=said, tiers=tuple(tiers), reply=MetaOutput(reply, kind))

    async def commit_command(self, text: str, reply: str, kind: str, writes: GraphWrites | None = None,
                             rows: Sequence[RowWrite] = (), tiers: Sequence[TierChange] = ()) -> list[Event]:
        """Keep a command that changed the game as a turn of its own (``kept_turn``), through the one commit."""
        return await self.commit(self.kept_turn(text, reply, kind, writes, rows, tiers=tiers))

    def ending_title(self, ending: str) -> str:
        if ending in self.ending_titles:
            return self.ending_titles[ending]
        return ending.replace("-", " ").replace("_", " ").title()
