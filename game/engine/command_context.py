"""What a command handler may use of the game: the narrow face an open game shows its commands.

The handlers (``meta_commands``, ``mind_commands``, ``known_names``) are typed against
these protocols and handed ``GameCommands`` (``game.engine.game_commands``), never the session, so they
import nothing of it: the session calls them, never the other way round. ``GameView`` is what the inspector
commands read; ``CommandContext`` adds what the game commands (save, restore, undo, the transcript, kept
commands) may do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from game.features.feature import CommandReach, TierChange
from game.store.rows import RowWrite

if TYPE_CHECKING:
    from game.config import Settings
    from game.engine.events import Event
    from game.engine.retell import GameRetelling
    from game.features.attitudes.model import AttitudeView
    from game.graph.index import GraphIndex
    from game.graph.ports import GraphWrites
    from game.graph.retrieve import RetrievalSettings
    from game.graph.vocabulary import Vocabulary
    from game.mind.context import ComposedContext
    from game.narrator.base import Narrator, PastTurn
    from game.registry import Registry
    from game.world import World
    from game.world.scene import SceneState


class KnownWorld(Protocol):
    """The graph and what the player knows of it: all a name is resolved against (``known_names``)."""

    @property
    def graph(self) -> GraphIndex: ...
    @property
    def scene(self) -> SceneState: ...


class GameView(KnownWorld, Protocol):
    """The game as the inspector commands read it (``/graph``, ``/why``, ``/mind``, ``/knowledge``...)."""

    world: World
    vocabulary: Vocabulary

    @property
    def turn(self) -> int: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def narrator(self) -> Narrator: ...
    @property
    def history(self) -> Sequence[PastTurn]: ...
    @property
    def registry(self) -> Registry: ...
    @property
    def attitudes(self) -> AttitudeView: ...
    @property
    def features(self) -> Mapping[str, Any]: ...
    @property
    def retrieval_settings(self) -> RetrievalSettings: ...
    async def turn_context(self) -> ComposedContext | None: ...
    async def turn_inputs(self, numbers: list[int]) -> dict[int, str]: ...


class Asking(Protocol):
    """A game that may hold a question a command asked (``restore`` asks first): what confirms it."""

    asked: tuple[str, int] | None
    """The restore the player was asked to confirm, and at which turn."""


@dataclass(frozen=True)
class KeptTurn:
    """Graph writes a feature's command keeps as a turn of its own (``GraphReach.keep_as_turn``), and what
    the player typed, as ``undo`` names it."""

    text: str
    writes: GraphWrites
    rows: tuple[RowWrite, ...] = ()
    tiers: tuple[TierChange, ...] = ()


class FeatureCommandReach(CommandReach, Protocol):
    """The reach a feature's command is handed, as the engine sees it: what the command kept, if anything."""

    kept: KeptTurn | None
    """The turn the command keeps, committed with its reply once it returns (``meta_commands.run``)."""


class CommandContext(GameView, Asking, Protocol):
    """A command's whole reach: what it reads, and the game's own operations it may ask for."""

    @property
    def save_name(self) -> str: ...
    @property
    def save_path(self) -> Path: ...
    @property
    def transcript_path(self) -> Path | None: ...
    def snapshot_path(self, name: str) -> Path: ...
    async def snapshot(self, name: str) -> Path: ...
    async def last_snapshot(self) -> str | None: ...
    async def restore(self, name: str, keep: str) -> None: ...
    async def restart(self, keep: str) -> None: ...
    async def undo(self) -> str: ...
    async def set_verbose(self, verbose: bool) -> None: ...
    def feature_reach(self, name: str) -> FeatureCommandReach: ...
    def retell_reach(self) -> GameRetelling: ...
    async def commit_command(self, text: str, reply: str, kind: str, writes: GraphWrites | None = None,
                             rows: Sequence[RowWrite] = (), tiers: Sequence[TierChange] = ()) -> list[Event]: ...
    def start_transcript(self, path: Path) -> None: ...
    def stop_transcript(self) -> None: ...
