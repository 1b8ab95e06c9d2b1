"""How a turn is told other than afresh (``game.engine.tellings``), as ``TurnPipeline.tell`` reads it: the
options, what ``continue`` says when nothing more comes, joining a continuation, and a narrator's usage.

Kept out of ``turn.py`` so the one pipeline stays about the pipeline; it imports nothing of the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.narrator.base import Narrator


@dataclass(frozen=True)
class Telling:
    """How ``TurnPipeline.tell`` tells a turn other than afresh (``game.engine.tellings``): with a later
    seed (retry), from a narration given as written (an edit, Story mode), or on from one (continue)."""

    seed_shift: int = 0
    given: str | None = None
    """The narration as the player wrote it: nothing is narrated, World IR and extraction read it."""
    story: bool = False
    """Story mode: ``given`` is the player's own text added to the story, not a narrator's."""
    continue_from: str = ""
    """The narration so far: the narrator writes on from it and the turn keeps both, read as one."""


NOTHING_MORE = "There is nothing more to tell of this turn: the narrator has said all it had."
"""What ``continue`` answers when the narrator adds nothing (the offline story tells each turn whole)."""


def continued(before: str, more: str) -> str:
    """A narration and what ``continue`` added, read as one text (a space between unless one is there)."""
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
