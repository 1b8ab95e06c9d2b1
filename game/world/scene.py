"""The scene a turn carries forward: where the player is, who is on stage, and the story's own state.

It lives in ``world`` because both sides of a turn need it without importing each other: the world
builds the scene at turn 0, the engine saves and restores it, and every narrator reads and returns it.
It is saved as JSON with every turn (snake_case keys, ``model_dump(mode="json")``), so older saves must
keep loading: their untyped ``extra`` dict is read into the typed ``StoryState`` here, once.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from game.graph.models import CamelModel


class StoryState(CamelModel):
    """The story engine's own state: where everyone and everything is, and what has already happened."""

    positions: dict[str, str | None] = Field(default_factory=dict, description="Character -> place (None: gone).")
    item_places: dict[str, str] = Field(default_factory=dict, description="Item -> the place it lies in.")
    held: dict[str, str] = Field(default_factory=dict, description="Item -> the character holding it.")
    fired: dict[str, int] = Field(default_factory=dict, description="Beat id -> the turn it fired.")
    used: list[str] = Field(default_factory=list, description="Once-only topics, reactions and commands spent, and topics already answered (told:).")
    goal: str | None = None
    partner: str | None = Field(default=None, description="Who the player last spoke to or acted on.")
    previous: str | None = Field(default=None, description="The place the player came from ('go back').")
    departures: dict[str, str] = Field(
        default_factory=dict, description="Who left the player's place this turn, and where to (to follow).")
    clock: int | None = Field(
        default=None, description="Turns that took time: the story's clock, which looking and asking around "
        "do not advance. None in saves older than it; the story engine then starts it from the turn number.")
    it: str | None = Field(default=None, description="The thing 'it' and 'them' mean: the last one named.")
    people: list[str] = Field(
        default_factory=list, description="The people last named or acted on, newest first (for 'him', 'her').")
    news_told: list[str] = Field(
        default_factory=list, description="News already reacted to, as 'hearer|edge id': each person says "
        "what they heard about their own people only once.")

    @model_validator(mode="before")
    @classmethod
    def _drop_last_input(cls, data: Any) -> Any:
        """Saves from before 'again' moved into the turn pipeline (which keeps the last line in memory)
        hold ``last_input`` here; it is read and dropped, since nothing reads it back from a save."""
        if isinstance(data, dict) and "last_input" in data:
            data = {k: v for k, v in data.items() if k != "last_input"}
        return data


class Awareness(CamelModel):
    """What the player knows of one person, group or faction (a graph node).

    ``name`` is the node's name when the player learned of it, so the story engine, which works by
    names, can tell who the player knows without asking the graph.
    """

    name: str
    how: Literal["met", "heard"] = Field(description="Stood on stage with them, or only heard of them.")
    since_turn: int = Field(ge=0)
    revealed: list[str] = Field(default_factory=list, description="Revelation keys learned, in order.")


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
    story: StoryState | None = Field(
        default=None, description="None until the story engine sets it up (from the world's turn 0).")
    known: dict[str, Awareness] | None = Field(
        default=None, description="Node id -> what the player knows of them. None (a save from before the "
        "player's knowledge was kept, or a scene built by hand): the player knows everyone, as they did then.")

    @model_validator(mode="before")
    @classmethod
    def _read_legacy_extra(cls, data: Any) -> Any:
        """Saves written before ``story`` was typed kept it as ``extra``, a dict with the same keys.

        A dict without ``positions`` never held the story's state (a scene built by hand), so it reads
        as no story state at all; keys this version does not know are dropped rather than refused.
        """
        if not isinstance(data, dict) or "extra" not in data:
            return data
        data = dict(data)
        extra = data.pop("extra")
        if isinstance(extra, dict) and "positions" in extra and data.get("story") is None:
            data["story"] = {k: v for k, v in extra.items() if k in StoryState.model_fields}
        return data
