"""The one interface every narrator implements, and the requests and results a turn passes through it.

A turn asks the narrator three things in order: ``narrate`` (stream the prose), ``finish`` (the turn's
World IR and the scene after it), and ``extract`` (turn World IR into upserts through an
``UpsertExecution``). Nothing a narrator does is written until the engine commits the turn.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from game.features.attitudes.model import AttitudeView
from game.features.memories.book import MemoryView
from game.graph.ports import GraphReader
from game.graph.upsert import UpsertExecution
from game.mind.context import ComposedContext
from game.world.ir import WorldIR
from game.world.scene import SceneState


@dataclass(frozen=True)
class PastTurn:
    """A committed turn, for a narrator's window of recent history."""

    number: int
    player_input: str
    narration: str


@dataclass(frozen=True)
class NarrationRequest:
    """Everything a narrator may use to tell one turn."""

    turn: int
    player_input: str
    npc_context: str
    scene: SceneState
    graph: GraphReader
    history: tuple[PastTurn, ...] = ()
    seed: int = 0
    knowledge: dict[str, list[str]] = field(default_factory=dict)
    """What each person present knows, by name (the player character first): ``npcContext`` lines, each
    ending in how sure they are (``sure``, ``heard``, ``rumour``). Empty when retrieval was not scoped
    (a graph with no player node), and then ``npc_context`` is everything the walk found."""
    context: ComposedContext = field(default_factory=ComposedContext)
    """Everything the narrator is told this turn, section by section (GRAPH, KNOWLEDGE, SCENE, and the
    minds' MEMORY and RELATIONSHIP), cut to the budget. ``npc_context`` and ``knowledge`` are its GRAPH and
    KNOWLEDGE sections as text; the offline engine reads the rest by person (``ComposedContext.about``)."""
    attitudes: AttitudeView | None = None
    """Everyone's attitude toward the player as the turn begins (the offline story's tiers read it)."""
    memories: MemoryView | None = None
    """What NPCs remember of the player as the turn begins (``game.features.memories.book``); the offline story reads it."""
    features: Mapping[str, Any] = field(default_factory=dict)
    """Each registered feature's state as the turn begins (``game.registry``): the offline story reads the
    deeds each person knows to choose their news."""
    memory: str = ""
    """The player's Memory for this save (``/memory``): always in a model's prompt."""
    authors_note: str = ""
    """The player's Author's note (``/note``): a short style note near the end of a model's prompt."""
    mode: Literal["tell", "continue", "given", "story"] = "tell"
    """How the turn is told: afresh; ``continue`` on from ``continue_from``; ``given`` (an edit: the
    narration is the player's, only World IR and extraction run); ``story`` (the player's text added to
    the story as written, Story mode)."""
    continue_from: str = ""
    """The narration so far, which ``continue`` writes on from."""


@dataclass
class NarrationResult:
    """What a told turn leaves behind besides its prose."""

    world_ir: WorldIR
    scene: SceneState
    notices: list[str] = field(default_factory=list)
    ir_error: str | None = None
    """Set when the World IR could not be had; the turn then stores no IR and extracts nothing."""


@dataclass
class ExtractionReport:
    """How the post-turn extraction went. ``extracted`` is False when it failed and nothing was written."""

    extracted: bool
    calls: int = 0
    rejected: int = 0
    message: str = ""
    usage: dict[str, int] = field(default_factory=dict)


@runtime_checkable
class CountsTokens(Protocol):
    """A narrator that knows how many tokens a text costs on its server (a model narrator's calibrated
    estimate): the context is then budgeted in its tokens instead of the plain estimate."""

    def count_tokens(self, text: str) -> int: ...


class Narrator(Protocol):
    """Tells turns. Implementations: ``game.narrator.offline.OfflineNarrator`` (the story engine) and
    ``game.narrator.llm.narrator.OpenAINarrator`` (a model)."""

    @property
    def label(self) -> str:
        """How the status line names it: "offline narrator", "gpt-4o-mini @ localhost:11434"."""
        ...

    def opening(self, scene: SceneState) -> str:
        """The text shown when a new game starts (turn 0)."""
        ...

    def narrate(self, request: NarrationRequest) -> AsyncIterator[str]:
        """Stream the turn's prose as text deltas."""
        ...

    async def finish(self, request: NarrationRequest, narration: str) -> NarrationResult:
        """The turn's World IR and the scene after it."""
        ...

    async def extract(
        self, request: NarrationRequest, result: NarrationResult, execution: UpsertExecution
    ) -> ExtractionReport:
        """Apply the turn's World IR to the graph through ``execution`` (buffered, committed by the engine)."""
        ...

    async def aclose(self) -> None:
        """Release connections; called when the session closes."""
        ...
