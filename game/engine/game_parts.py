"""An open game's parts, and the game as it stands now, read the same way by its two faces.

An open game has two faces: ``GameSession`` for the front ends (the app, line mode, scripts) and
``GameCommands`` for the meta command handlers (``command_context.CommandContext``). Both are built over
one ``GameParts`` (the save, the world, the turn pipeline and its store, the enrichment queue and the
transcript) and both read the game now through ``GameReads``: the graph, the scene, the turn, everyone's
attitudes and memories, the features' states and what the save keeps of past turns. So neither face reaches
into the other, and a handler never holds the session.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.engine.enrich_session import SessionEnrichment
from game.engine.save_store import SaveStore
from game.engine.transcript import Transcript
from game.engine.turn import TurnPipeline
from game.features.attitudes.model import AttitudeView
from game.features.memories.book import MemoryBook
from game.graph.index import GraphIndex
from game.graph.metapaths import MetaPath
from game.graph.retrieve import RetrievalSettings
from game.mind.context import CONTEXT_TABLE, ComposedContext
from game.narrator.base import Narrator, PastTurn
from game.registry import Registry
from game.store import turn_log
from game.store.damage import DECODE_ERRORS, damaged
from game.store.database import SaveDatabase
from game.world.scene import SceneState

if TYPE_CHECKING:
    from game.config import Settings
    from game.world import World


@dataclass
class GameParts:
    """What one open game is made of, shared by its faces (``settings`` change with the settings screen)."""

    db: SaveDatabase
    world: World
    pipeline: TurnPipeline
    store: SaveStore
    settings: Settings
    discovered: tuple[MetaPath, ...] = ()
    """The save's discovered meta-paths (``kith graph patterns --discover``), kept across a settings change."""
    enrichment: SessionEnrichment = field(init=False)
    transcript: Transcript = field(default_factory=Transcript)

    def __post_init__(self) -> None:
        self.enrichment = SessionEnrichment(self.db, self.pipeline)


class GameReads:
    """The game as it stands now, read-only: what both faces of an open game show."""

    def __init__(self, parts: GameParts) -> None:
        self._parts = parts
        self._db = parts.db
        self._pipeline = parts.pipeline
        self.world = parts.world
        self.vocabulary = parts.world.vocabulary

    @property
    def settings(self) -> Settings:
        return self._parts.settings

    @property
    def narrator(self) -> Narrator:
        return self._pipeline.narrator

    @property
    def graph(self) -> GraphIndex:
        """The current graph (open versions): the graph index; read it, never write it."""
        return self._pipeline.state.graph

    @property
    def attitudes(self) -> AttitudeView:
        """Everyone's attitude toward the player now (``game.features.attitudes.model``)."""
        state = self._pipeline.state
        return AttitudeView(state.attitudes, state.graph)

    @property
    def scene(self) -> SceneState:
        return self._pipeline.state.scene

    @property
    def turn(self) -> int:
        """Committed player turns; 0 is the world's initial state."""
        return self._pipeline.state.turn

    @property
    def history(self) -> Sequence[PastTurn]:
        """The most recent committed turns (at most ``HISTORY_TURNS``), oldest first."""
        return self._pipeline.state.history

    @property
    def features(self) -> Mapping[str, Any]:
        """Each registered feature's state now (``game.registry``): deeds and who knows them."""
        return self._pipeline.state.features

    @property
    def registry(self) -> Registry:
        """The features of this game (``game.registry``): their steps, states and commands."""
        return self._pipeline.registry

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
    def save_name(self) -> str:
        return self._db.name

    @property
    def save_path(self) -> Path:
        return self._db.path

    @property
    def transcript_path(self) -> Path | None:
        return self._parts.transcript.path

    def time_of_day(self) -> str:
        """The world's words for the hour at the story clock now ("" when the world has none), for the
        status line. The same clock always reads the same, so the line does not flicker between variants."""
        from game.story.clock import time_of_day  # the story engine loads with the first turn, not at import

        story = self.scene.story
        clock = story.clock if story is not None and story.clock is not None else self.turn
        return time_of_day(self.world, clock, random.Random(clock))

    async def stage_at(self, turn: int | None) -> list[str]:
        """Who was on stage after ``turn`` (now, when None): the scene view of the map as it stood then
        centres on them, not on who is on stage today."""
        if turn is None or turn >= self.turn:
            return list(self.scene.cast)
        raw = await turn_log.scene_at(self._db, turn)
        cast = raw.get("cast") if raw is not None else None
        return [str(name) for name in cast] if isinstance(cast, list) else []

    async def turn_context(self) -> ComposedContext | None:
        """What the narrator was told at the last told turn (a command kept as a turn tells nothing), or
        None before any (or in a save from before contexts were kept)."""
        row = await turn_log.latest_turn_row(self._db, CONTEXT_TABLE, self.turn)
        if row is None:
            return None
        try:
            return ComposedContext.from_json(json.loads(str(row["context"])))
        except DECODE_ERRORS as error:
            raise damaged(self._db.name, error) from error

    async def turn_inputs(self, numbers: list[int]) -> dict[int, str]:
        """What the player typed at each of these turns (those that exist)."""
        return await turn_log.turn_inputs(self._db, numbers)

