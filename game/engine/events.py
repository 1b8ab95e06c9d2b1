"""Frozen events a turn emits; the UI and the line-mode loop render them and nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ChangeKind = Literal["node-created", "node-updated", "edge-opened", "edge-superseded", "edge-closed"]
"""What one line of a turn's graph changes is about."""

NoticeLevel = Literal["information", "warning", "error"]
"""How loudly a notice is shown (the same words as Textual's notification severities)."""


@dataclass(frozen=True)
class NarrationDelta:
    """A piece of the turn's prose, as it arrives."""

    text: str


@dataclass(frozen=True)
class NarrationDone:
    """The turn's whole prose."""

    text: str


@dataclass(frozen=True)
class MetaOutput:
    """Output of a meta command (help, save, /graph ...), shown apart from the story."""

    text: str
    command: str


@dataclass(frozen=True)
class GraphUpdating:
    """The narration is done and the graph update has started (the UI shows a spinner)."""

    turn: int


@dataclass(frozen=True)
class GraphChange:
    """One line of what a turn did to the graph."""

    kind: ChangeKind
    text: str


@dataclass(frozen=True)
class GraphChanged:
    """The committed turn changed the graph; ``changes`` says how, one line each."""

    turn: int
    changes: tuple[GraphChange, ...]


@dataclass(frozen=True)
class AttitudeChanged:
    """Someone's attitude tier toward the player changed this turn; ``line`` is what the story said of it
    ("" when they were not on stage to show it)."""

    turn: int
    name: str
    before: str
    after: str
    line: str = ""


@dataclass(frozen=True)
class TurnCommitted:
    """The turn is on disk. ``timings`` are milliseconds by step."""

    turn: int
    extracted: bool
    timings: dict[str, float] = field(default_factory=dict)
    extraction: str = "full"
    """How the graph holds the turn: ``full``, ``fast`` (the fast path, waiting for a model) or ``none``."""
    usage: dict[str, int] = field(default_factory=dict)
    """A model narrator's requests and tokens by step (``narrate.prompt_tokens`` ...); empty offline."""


@dataclass(frozen=True)
class TurnReplaced:
    """The last turn is now told as ``narration`` (retry, continue, an edit, a flip between tellings, an undone edit):
    a front end shows it in place of what the turn said before. KeptTelling ``index`` of ``count``."""

    turn: int
    narration: str
    index: int
    count: int
    player_input: str = ""


@dataclass(frozen=True)
class TurnFailed:
    """Nothing of the turn was written; ``message`` says why, for the player."""

    message: str
    title: str = "Turn failed"


@dataclass(frozen=True)
class Notice:
    """Something the player should know that is not story (a context window shrinking, a fallback)."""

    text: str
    level: NoticeLevel = "information"


@dataclass(frozen=True)
class GameEnded:
    """The story reached an ending."""

    ending: str
    title: str


@dataclass(frozen=True)
class SessionReset:
    """The session now shows another state (undo, restore, load, restart): redraw everything."""

    reason: str
    turn: int


@dataclass(frozen=True)
class QuitRequested:
    """The player asked to quit (the TUI confirms first)."""


@dataclass(frozen=True)
class ConfirmRequested:
    """A command that replaces the game asks first (``restore``): its ``MetaOutput`` says to type
    ``command`` again, which line mode and scripts do; the TUI asks ``question`` in a modal and plays
    ``command`` again on ``yes``."""

    command: str
    question: str
    yes: str = "Yes"


Event = (
    NarrationDelta | NarrationDone | MetaOutput | GraphUpdating | GraphChanged | AttitudeChanged | TurnCommitted
    | TurnFailed | Notice | GameEnded | SessionReset | QuitRequested | TurnReplaced | ConfirmRequested
)
