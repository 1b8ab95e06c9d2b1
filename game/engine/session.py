"""``GameSession``: one open game as its front ends see it. It runs turns and meta commands and emits
events; it draws nothing.

A facade: story turns go through the one turn pipeline (``game.engine.turn``), meta commands through
``meta_commands`` with the game's command reach (``GameCommands``, never the session), and the game now is
read through ``GameReads``, which both faces share. The save database is private, so nothing reaches
around the session into the file.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from game.config import Settings
from game.engine import meta_commands
from game.engine.enrich import Extractor, Reading
from game.engine.enrich_background import DEFAULT_DELAY, BackgroundEnricher
from game.engine.events import Event, Notice, TurnReplaced
from game.engine.game_commands import GameCommands
from game.engine.game_parts import GameParts, GameReads
from game.engine.meta import PlayerLine, read_line
from game.engine.mind_context import ProviderFactory
from game.engine.opening import open_game
from game.engine.play_state import PlayState
from game.engine.rebuild import Rebuilt
from game.engine.retell import replaced
from game.engine.save_store import SaveStore
from game.engine.tuning import turn_tuning
from game.engine.turn import TurnPipeline
from game.graph.metapaths import MetaPath
from game.graph.models import Edge, Node
from game.narrator.base import Narrator
from game.registry import Registry, default_registry
from game.store import damage, enrichment, layout, turn_log
from game.store.database import SaveDatabase, TurnRecord
from game.store.rows import Scalar
from game.story.tiers import tier_change_lines

if TYPE_CHECKING:
    from game.world import World


RESUME_TURNS = 3
"""How many of the last turns a resumed game shows before the prompt."""


class GameSession(GameReads):
    """An open save with its world, narrator, graph index and scene."""

    def __init__(self, settings: Settings, db: SaveDatabase, world: World, narrator: Narrator, state: PlayState,
                 new_game: bool, discovered: Sequence[MetaPath] = (), registry: Registry | None = None) -> None:
        store = SaveStore(db, world, settings, registry or default_registry())
        pipeline = TurnPipeline(state, narrator, world.vocabulary, store, ending_titles=world.ending_titles,
                                tier_lines=tier_change_lines(world, settings.seed))
        pipeline.registry = store.registry
        super().__init__(GameParts(db, world, pipeline, store, settings, tuple(discovered)))
        self.new_game = new_game
        self._commands = GameCommands(self._parts)
        self._enrichment = self._parts.enrichment
        self._tune(settings)

    @property
    def asked(self) -> tuple[str, int] | None:
        """The question a command asked and awaits (``meta_commands.withdraw_question`` withdraws it)."""
        return self._commands.asked

    @asked.setter
    def asked(self, asked: tuple[str, int] | None) -> None:
        self._commands.asked = asked

    @property
    def context_providers(self) -> ProviderFactory:
        """What each turn's context is composed from (``mind_context.default_providers`` unless replaced)."""
        return self._pipeline.context_providers

    @context_providers.setter
    def context_providers(self, providers: ProviderFactory) -> None:
        self._pipeline.context_providers = providers

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
        transcript = self._parts.transcript
        problem = transcript.write(f"> {text}\n") if logged else None
        events = meta_commands.run(self._commands, command) if command is not None else self._pipeline.play(text)
        async for event in events:
            yield event
            if logged and problem is None:
                problem = transcript.log(event)
        if problem is not None:
            yield Notice(problem, "warning")

    async def reextract_pending(self) -> list[str]:
        """Run the graph update again for turns committed without one; returns a line per turn."""
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
        """How many turns the graph holds each way (``full``, ``fast``, ``none``, ``enriched``)."""
        return await enrichment.extraction_counts(self._db)

    # ------------------------------------------------------------------------------------- what is saved

    async def turns(self, last: int | None = None) -> list[TurnRecord]:
        """Every committed turn (or the ``last`` few), oldest first."""
        return await turn_log.turns(self._db, last=last)

    async def feature_rows(self, table: str) -> list[dict[str, Scalar]]:
        """Every row of a feature's own table as the save holds it (the answered questions too, which the
        feature's state leaves out)."""
        return await self._db.read_rows(table)

    async def pending_extraction(self) -> list[TurnRecord]:
        """Turns committed without their graph update (see ``reextract_pending``)."""
        return await enrichment.pending_extraction(self._db)

    async def all_nodes(self) -> list[Node]:
        """Every node of the save: the graph's history views (the graph index, ``graph``, holds the present)."""
        return await self._db.graph.all_nodes()

    async def all_edges(self) -> list[Edge]:
        """Every version of every relation, closed ones included."""
        return await self._db.graph.all_edges()

    async def map_layout(self) -> dict[str, tuple[float, float]]:
        """Where each node sits on the map, kept between updates so old nodes stay put."""
        return await layout.load_layout(self._db)

    async def save_map_layout(self, positions: Mapping[str, tuple[float, float]]) -> None:
        await layout.save_layout(self._db, dict(positions))

    # ------------------------------------------------------------------------------------- state changes

    async def snapshot(self, name: str) -> Path:
        """Copy the game as it is now to the save ``name``, which a bare `restore` then returns to."""
        return await self._commands.snapshot(name)

    async def undo(self) -> str:
        """Take back the last turn exactly (graph and scene included); returns what the player had typed."""
        return await self._commands.undo()

    async def reload(self) -> None:
        """Re-read graph, scene and history from disk (after undo, restore or restart)."""
        await self._commands.reload()

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
        self._parts.settings = settings
        self._pipeline.tuning = turn_tuning(settings, self.world.metapaths, self._parts.discovered,
                                            self._pipeline.registry)
        self._parts.store.settings = settings

    # ------------------------------------------------------------------------------------- tellings, notes

    async def kept_telling(self) -> TurnReplaced | None:
        """The last turn as the save keeps it (which telling, of how many), or None before any turn or when
        no feature keeps its tellings. For a front end whose retelling was stored but whose ``TurnReplaced``
        never reached it (Esc pressed while the store finished)."""
        for feature in self.registry.retellers():
            kept = await feature.kept_telling(self._commands.retell_reach())
            if kept is not None:
                return replaced(kept)
        return None

    @property
    def notes(self) -> Mapping[str, str]:
        """The save's Memory (``memory``) and Author's note (``note``): the notes feature's state, which the
        F6 screen edits (``/memory``, ``/note``)."""
        notes = self.features.get("notes")
        return notes if isinstance(notes, Mapping) else {}

    async def turn_usage(self) -> dict[str, int]:
        """The tokens the last turn's kept telling cost, by step (empty offline or before any turn)."""
        with damage.reading(self._db.name):
            for feature in self.registry.retellers():
                return await feature.turn_usage(self._db, self.turn)
        return {}

    # ------------------------------------------------------------------------------------- transcript

    def start_transcript(self, path: Path) -> None:
        """Log every command and its output as plain text to ``path`` (appending)."""
        self._commands.start_transcript(path)
