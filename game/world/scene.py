"""The scene a turn carries forward: where the player is, who is on stage, and the story's own state.

It lives in ``world`` because both sides of a turn need it without importing each other: the world
builds the scene at turn 0, the engine saves and restores it, and every narrator reads and returns it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from game.graph.models import CamelModel


class SceneState(CamelModel):
    """What the story knows besides the graph; saved with every turn and restored by undo."""

    location: str | None = None
    cast: list[str] = Field(default_factory=list, description="Who is on stage for the next turn.")
    inventory: list[str] = Field(default_factory=list)
    flags: dict[str, Any] = Field(default_factory=dict)
    met: list[str] = Field(default_factory=list)
    visited: list[str] = Field(default_factory=list)
    ending: str | None = Field(default=None, description="The ending reached, if the story is over.")
    verbose: bool = False
    rng_state: int = Field(default=0, description="Seed for the next turn's choices, so replays agree.")
    extra: dict[str, Any] = Field(default_factory=dict, description="Narrator-specific state.")
