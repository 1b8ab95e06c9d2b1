"""``GameSession``: one open game. It runs turns and meta commands and emits events; it draws nothing.

Story turns go through the one turn pipeline (``game.engine.turn``) with this session's storage step:
the turn row, the graph writes and the scene committed in ONE transaction. Everything else a front end
needs (undo, snapshots, restart, the narrator, the map layout, past turns, graph history) is a method
here: the save database is private, so nothing reaches around the session into the file.

It is one piece (over 400 lines) on purpose: it is the interface every front end uses, and each method is
a few lines delegating to the turn pipeline, the store or the graph views; the work itself lives there.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.config import Settings
from game.engine import meta_commands, tellings_store
from game.engine.enrich import Extractor, Reading
from game.engine.enrich_background import DEFAULT_DELAY, BackgroundEnricher
from game.engine.enrich_session import SessionEnrichment
from game.engine.events import (
    Event,
    Notice,
)
from game.engine.feature_commands import FeatureReach
from game.engine.meta import PlayerLine, read_line
from game.engine.mind_context import CONTEXT_TABLE, ProviderFactory
from game.engine.opening import open_game, read_play_state
from game.engine.rebuild import Rebuilt
from game.engine.relationship_turn import set_attitude_turn
from game.engine.save_store import SaveStore
from game.engine.tellings import Tellings
from game.engine.transcript import Transcript
from game.engine.tuning import context_settings, retrieval_settings
from game.engine.turn import PlayState, TurnPipeline
from game.graph.index import GraphIndex, GraphSource
from game.graph.metapaths import MetaPath
from game.graph.models import Edge, Node
from game.graph.ports import GraphWrites
from game.graph.retrieve import RetrievalSettings
from game.mind.attitude import AttitudeView
from game.mind.attitude_command import RelationshipRequest
from game.mind.context import ComposedContext
from game.mind.memory import MemoryBook
from game.narrator.base import Narrator, PastTurn
from game.registry import Registry, default_registry
from game.store import damage
from game.store.damage import DECODE_ERRORS, damaged
from game.store.database import SaveDatabase, TurnRecord
from game.store.pending import PendingIdentity
from game.store.saves import resolve_save, validate_save_name
from game.story.tiers import tier_change_lines
from game.world.scene import SceneState

if TYPE_CHECKING:
    from game.world import World


RESUME_TURNS = 3
"""How many of the last turns a resumed game shows before the prompt."""


class GameSession:
    """An open save with its world, narrator, graph index and scene."""

    def __init__(self, settings: Settings, db: SaveDatabase, world: World, narrator: Narrator, state: PlayState,
                 new_game: bool, discovered: Sequence[MetaPath] = (), registry: Registry | None = None) -> None:
        self._settings = settings
        self._db = db
        self.world = world
        self.vocabulary = world.vocabulary
        self.new_game = new_game
        self._transcript = Transcript()
        self._discovered = tuple(discovered)
        self._store = SaveStore(db, world, settings, registry or default_registry())
        self._pipeline = TurnPipeline(
            state, narrator, world.vocabulary, self._store, ending_titles=world.ending_titles,
            tier_lines=tier_change_lines(world, settings.seed),
        )
        self._pipeline.registry = self._store.registry
        self._tune(settings)
        self._enrichment = SessionEnrichment(db, self._pipeline)

    # ------------------------------------------------------------------------------------- the game now

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def narrator(self) -> Narrator:
        return self._pipeline.narrator

    @property
    def graph(self) -> GraphIndex:
        """The current graph (open versions), in memory; read it, never write it."""
        return self._pipeline.state.graph

    @property
    def attitudes(self) -> AttitudeView:
        """Everyone's attitude toward the player now (``game.mind.attitude``)."""
        state = self._pipeline.state
        return AttitudeView(state.attitudes, state.graph)

    @property
    def scene(self) -> SceneState:
        return self._pipeline.state.scene

    async def stage_at(self, turn: int | None) -> list[str]:
        """Who was on stage after ``turn`` (now, when None): the scene view of the map as it stood then
        centres on them, not on who is on stage today."""
        if turn is None or turn >= self.turn:
            return list(self.scene.cast)
        raw = await self._db.scene_at(turn)
        cast = raw.get("cast") if raw is not None else None
        return [str(name) for name in cast] if isinstance(cast, list) else []

    @property
    def turn(self) -> int:
        """Committed player turns; 0 is the world's initial state."""
        return self._pipeline.state.turn

    @property
    def history(self) -> Sequence[PastTurn]:
        """The most recent committed turns (at most ``HISTORY_TURNS``), oldest first."""
        return self._pipeline.state.history

    def time_of_day(self) -> str:
        """The world's words for the hour at the story clock now ("" when the world has none), for the
        status line. The same clock always reads the same, so the line does not flicker between variants."""
        from game.story.clock import time_of_day  # the story engine loads with the first turn, not at import

        story = self.scene.story
        clock = story.clock if story is not None and story.clock is not None else self.turn
        return time_of_day(self.world, clock, random.Random(clock))

    @property
    def features(self) -> Mapping[str, Any]:
        """Each registered feature's state now (``game.registry``): deeds and who knows them."""
        return self._pipeline.state.features

    @property
    def registry(self) -> Registry:
        """The features of this game (``game.registry``): their steps, states and commands."""
        return self._pipeline.registry

    def feature_reach(self, name: str) -> FeatureReach:
        """What the feature ``name``'s meta commands may use of this game (``CommandReach``)."""
        return FeatureReach(self._db, self.turn, self.features.get(name), self.reload)

    @property
    def memories(self) -> MemoryBook:
        """What NPCs remember of the player now (read-only for callers: turns change it)."""
        return self._pipeline.state.memories

    @property
    def verbose(self) -> bool:
        return self._pipeline.state.verbose

    @property
    def retrieval_settings(self) -> RetrievalSettings:
        return self._pipeline.retrieval_settings

    @property
    def context_providers(self) -> ProviderFactory:
        """What each turn's context is composed from (``mind_context.default_providers`` unless replaced)."""
        return self._pipeline.context_providers

    @context_providers.setter
    def context_providers(self, providers: ProviderFactory) -> None:
        self._pipeline.context_providers = providers

    @property
    def transcript_path(self) -> Path | None:
        return self._transcript.path

    # ------------------------------------------------------------------------------------- opening

    @classmethod
    async def open(cls, settings: Settings, save: str | Path | None = None, *, new: bool = False,
                   world: str | None = None, narrator: Narrator | None = None,
                   env: Mapping[str, str] | None = None, world_loaded: World | None = None,
                   registry: Registry | None = None) -> GameSession:
        """Open ``save`` (a name or a path), creating it when missing or when ``new``.

        With no save: resume the most recently played one, or start a new game with a generated name.
        ``env`` is where a narrator made here reads its API key (the process environment when not given);
        ``world_loaded`` is a new game's world when the caller has loaded it already; ``registry`` holds
        the game's features (Kith's own when not given).
        """
        game = await open_game(settings, save, new=new, world=world, narrator=narrator, env=env,
                               world_loaded=world_loaded, registry=registry)
        return cls(settings, game.db, game.world, game.narrator, game.state, game.new_game, game.discovered,
                   registry)

    async def close(self) -> None:
        try:
            await self._enrichment.pause()
            await self.narrator.aclose()
        finally:
            await self._db.close()

    async def __aenter__(self) -> GameSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def save_name(self) -> str:
        return self._db.name

    @property
    def save_path(self) -> Path:
        return self._db.path

    @property
    def narrator_label(self) -> str:
        return self.narrator.label

    def opening_text(self) -> str:
        """A new game's opening, or a resumed game's story so far: its last few turns, each with what the
        player typed, so whoever comes back to it reads where they were, not only the room they are in."""
        if self.turn == 0:
            return self.narrator.opening(self.scene)
        history = self.history
        recent = [history[i] for i in range(max(0, len(history) - RESUME_TURNS), len(history))]
        told = [f"> {past.player_input}\n\n{past.narration}" if past.player_input else past.narration
                for past in recent]
        return "\n\n".join([f"*{self.world.title} — resumed at turn {self.turn}.*", *told]).strip()

    # ------------------------------------------------------------------------------------- turns

    async def play_turn(self, line: str | PlayerLine) -> AsyncIterator[Event]:
        """Handle one line of player input, yielding events; a story turn commits at most once. A line the
        screen has read already (``read_line``) is taken as read, not parsed again."""
        await self._enrichment.pause()  # a turn never waits for the queue, only for a commit under way
        try:
            async for event in self._play_turn(
                    line if isinstance(line, PlayerLine) else read_line(line, registry=self.registry)):
                yield event
        finally:
            self._enrichment.wake()

    async def _play_turn(self, line: PlayerLine) -> AsyncIterator[Event]:
        text, command = line.text, line.command
        logged = bool(text)  # an empty line is not a command, and is not logged
        problem = self._transcript.write(f"> {text}\n") if logged else None
        events = meta_commands.run(self, command) if command is not None else self._pipeline.play(text)
        async for event in events:
            yield event
            if logged and problem is None:
                problem = self._transcript.log(event)
        if problem is not None:
            yield Notice(problem, "warning")

    def set_attitude(self, npc: Node, request: RelationshipRequest, text: str) -> AsyncIterator[Event]:
        """``/relationship NAME set ...``: the attitude set (and the graph kept in agreement), committed as a
        turn of its own so ``undo`` takes it back."""
        return set_attitude_turn(self._pipeline, self.vocabulary, self.settings.seed, npc, request, text)

    async def reextract_pending(self) -> list[str]:
        """Run the memory update again for turns committed without one; returns a line per turn."""
        return (await self.rebuild()).lines

    async def rebuild(self, extractor: Extractor = "model") -> Rebuilt:
        """Read every queued turn again with ``extractor``, committed together (``kith graph rebuild``)."""
        return await self._enrichment.rebuild(extractor)

    def enrich(self, extractor: Extractor = "model") -> AsyncIterator[Reading]:
        """Read the queued turns one by one, each committed on its own (``kith graph enrich``)."""
        return self._enrichment.enrich(extractor)

    def enrich_in_background(self, delay: float = DEFAULT_DELAY, on_read: Callable[[Reading], None] | None = None,
                             on_progress: Callable[[int], None] | None = None) -> BackgroundEnricher | None:
        """Drain the queue between turns while the player reads (the app asks; headless scripts do not).

        Only a model can enrich: with the offline narrator this does nothing and returns None. ``on_read``
        is called after each turn read (the app redraws its map and tells the story log), ``on_progress``
        with how many turns are left to read while it reads (0 once it stops: the status line).
        """
        return self._enrichment.in_background(delay, on_read, on_progress)

    async def extraction_counts(self) -> dict[str, int]:
        """How many turns memory holds each way (``full``, ``fast``, ``none``, ``enriched``)."""
        return await self._db.extraction_counts()

    # ------------------------------------------------------------------------------------- what is saved

    async def turns(self, last: int | None = None) -> list[TurnRecord]:
        """Every committed turn (or the ``last`` few), oldest first."""
        return await self._db.turns(last=last)

    async def turn_inputs(self, numbers: list[int]) -> dict[int, str]:
        """What the player typed at each of these turns (those that exist)."""
        return await self._db.turn_inputs(numbers)

    async def turn_context(self) -> ComposedContext | None:
        """What the narrator was told at the last told turn (a command kept as a turn tells nothing), or
        None before any (or in a save from before contexts were kept)."""
        row = await self._db.latest_turn_row(CONTEXT_TABLE, self.turn)
        if row is None:
            return None
        try:
            return ComposedContext.from_json(json.loads(str(row["context"])))
        except DECODE_ERRORS as error:
            raise damaged(self._db.name, error) from error

    async def commit_command(self, text: str, reply: str, writes: GraphWrites | None = None) -> int:
        """Keep a command that changed the game as a turn of its own (``undo`` steps back over it)."""
        return await self._pipeline.commit_command(text, reply, writes)

    async def pending_identities(self, *, open_only: bool = True) -> list[PendingIdentity]:
        """Questions of identity (a new name that may be someone known), the open ones by default."""
        return await self._db.pending_identities(open_only=open_only)

    async def pending_extraction(self) -> list[TurnRecord]:
        """Turns committed without their memory update (see ``reextract_pending``)."""
        return await self._db.pending_extraction()

    async def all_nodes(self) -> list[Node]:
        """Every node of the save: the graph's history views (the in-memory ``graph`` holds the present)."""
        return await self._db.all_nodes()

    async def all_edges(self) -> list[Edge]:
        """Every version of every relation, closed ones included."""
        return await self._db.all_edges()

    async def map_layout(self) -> dict[str, tuple[float, float]]:
        """Where each node sits on the map, kept between updates so old nodes stay put."""
        return await self._db.load_layout()

    async def save_map_layout(self, positions: Mapping[str, tuple[float, float]]) -> None:
        await self._db.save_layout(dict(positions))

    async def last_snapshot(self) -> str | None:
        """The snapshot last saved or restored in this game, which a bare `restore` returns to."""
        return (await self._db.meta()).get("last_snapshot")

    # ------------------------------------------------------------------------------------- state changes

    async def snapshot(self, name: str) -> Path:
        """Copy the game as it is now to the save ``name``, which a bare `restore` then returns to."""
        path = self.snapshot_path(name)
        await self._db.snapshot_to(path)
        await self._db.set_meta({"last_snapshot": name})
        return path

    async def restore(self, name: str, keep: str) -> None:
        """Replace the game with the snapshot ``name`` (whose path the caller checked); the game as it was
        is kept first as the snapshot ``keep``, as ``restart`` keeps it."""
        await self._keep_before_replacing(keep)
        await self._db.restore_from(self.snapshot_path(name))
        await self._db.set_meta({"last_snapshot": name})
        await self.reload()

    async def undo(self) -> str:
        """Take back the last turn exactly (graph and scene included); returns what the player had typed."""
        await self._enrichment.pause()
        taken_back = self.history[-1].player_input if self.history else ""
        await self._db.undo_last_turn()
        await self.reload()
        return taken_back

    async def restart(self, keep: str) -> None:
        """Back to turn 0; the game so far is kept first as the snapshot ``keep``."""
        await self._keep_before_replacing(keep)
        await self._db.rewind_to_start()  # one transaction: a kill mid-way leaves the game as it was
        await self.reload()

    async def _keep_before_replacing(self, keep: str) -> None:
        """The one way a command that replaces the game (restart, restore) keeps it: the background reading
        stops first, so the copy is the game as the player left it and nothing lands in it afterwards."""
        await self._enrichment.pause()
        await self._db.snapshot_to(self.snapshot_path(keep))

    async def set_verbose(self, verbose: bool) -> None:
        """Describe revisited places in full (or not); kept in the save."""
        self._pipeline.state.verbose = verbose
        await self._db.set_meta({"verbose": "1" if verbose else "0"})

    async def swap_narrator(self, narrator: Narrator, settings: Settings | None = None) -> None:
        """Tell the next turns with ``narrator`` (and ``settings``); the previous narrator is closed."""
        await self._enrichment.pause()
        previous = self._pipeline.narrator
        self._pipeline.narrator = narrator
        if settings is not None:
            self._tune(settings)
        await previous.aclose()

    def _tune(self, settings: Settings) -> None:
        """Every setting the turn reads, built from ``settings`` in this one place (opening and the settings
        screen alike), with the world's and the save's meta-paths: building them twice once lost those."""
        self._settings = settings
        self._pipeline.seed = settings.seed
        self._pipeline.retrieval_settings = retrieval_settings(settings, self.world.metapaths, self._discovered)
        self._pipeline.tunings = self._pipeline.registry.tunings(settings)
        self._pipeline.context_settings = context_settings(settings)
        self._store.settings = settings

    async def reload(self) -> None:
        """Re-read graph, scene and history from disk (after undo, restore or restart)."""
        self._pipeline.state = await self.read_state()

    async def read_state(self, *, lazy: bool = True, source: GraphSource | None = None) -> PlayState:
        """The whole game as the save holds it (``read_play_state``).

        Read inside a transaction (as retry reads the game before a turn it has undone but not committed),
        a lazy graph needs a ``source`` that sees what the transaction does (``graph_before_turn``), or
        ``lazy=False``: it reads through a second connection, which sees only what is committed.
        """
        return await read_play_state(self._db, self.world, self.settings, self.verbose, lazy=lazy, source=source,
                                     registry=self.registry)

    # ------------------------------------------------------------------------------------- tellings, notes

    @property
    def tellings(self) -> Tellings:
        """Retry, continue, edit and flip the last turn; Story mode; undo within a turn."""
        return Tellings(self._db, self._pipeline, self.reload, self.read_state)

    @property
    def notes(self) -> Mapping[str, str]:
        """The save's Memory (``memory``) and Author's note (``note``): the notes feature's state, which the
        F6 screen edits (``/memory``, ``/note``)."""
        notes = self.features.get("notes")
        return notes if isinstance(notes, Mapping) else {}

    async def turn_usage(self) -> dict[str, int]:
        """The tokens the last turn's kept telling cost, by step (empty offline or before any turn)."""
        with damage.reading(self._db.name):
            return await tellings_store.kept_usage(self._db.conn, self.turn)

    def snapshot_path(self, name: str) -> Path:
        return resolve_save(validate_save_name(name), self.settings.saves_dir)

    # ------------------------------------------------------------------------------------- transcript

    def start_transcript(self, path: Path) -> None:
        """Log every command and its output as plain text to ``path`` (appending)."""
        self._transcript.start(path)

    def stop_transcript(self) -> None:
        self._transcript.stop()
