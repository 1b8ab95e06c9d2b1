"""What a context provider hands the orchestrator: one titled section of lines about the people in focus.

The orchestrator (``game.mind.context``) asks every provider for its section, each within its share of the
token budget and its time limit, and composes them for the narrator: the model reads the sections as
prompt text ("[MEMORY] ...", "[RELATIONSHIP] ...", "[KNOWLEDGE] ..."); the offline story engine reads the
same lines by person, and the typed ``facts`` beside them, to choose what a character says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from game.graph.index import GraphIndex
from game.world.scene import SceneState


@dataclass(frozen=True)
class ContextQuery:
    """The turn a context is composed for."""

    turn: int
    player_input: str
    focus: tuple[str, ...]
    """Node IDs of the people the turn is about, most relevant first: those the input names, else the cast."""
    graph: GraphIndex
    scene: SceneState


@dataclass(frozen=True)
class SectionLine:
    """One thing the narrator is told, about one person (``about`` is '' for the scene as a whole)."""

    about: str
    text: str
    weight: float = 1.0
    """How much the line matters: when the section's share of the budget is short, the heaviest stay."""
    facts: Mapping[str, str | int | float] = field(default_factory=dict)
    """The line's content typed, for the offline engine (e.g. ``{"tier": "FRIENDLY"}``); never shown."""


@dataclass(frozen=True)
class Section:
    """A provider's part of the context: ``name`` is the prompt's tag (MEMORY, RELATIONSHIP, KNOWLEDGE...)."""

    name: str
    lines: tuple[SectionLine, ...] = ()


class ContextProvider(Protocol):
    """A source of one section. It must not write anything: composing a context has no side effects."""

    @property
    def name(self) -> str:
        """The section's tag, also the name its budget share and time limit are configured by."""
        ...

    async def provide(self, query: ContextQuery) -> Section: ...
