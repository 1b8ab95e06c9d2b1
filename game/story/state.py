"""The story's working state for one turn, read from and written back to a ``SceneState``.

A turn works on its own copy: the ``SceneState`` handed in is never touched, because the engine may
throw the turn away (a failed commit, a cancel) and must find the scene exactly as it was. Reading a
scene also forgets what its world no longer has, since a save may be older than its world's content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.graph.names import normalize_name
from game.world import World
from game.world.scene import Awareness, SceneState, StoryState


@dataclass
class Play:
    """Everything a turn may change besides the graph: the scene's fields, and the story's typed state."""

    location: str
    inventory: list[str]
    flags: dict[str, Any]
    met: list[str]
    visited: list[str]
    verbose: bool
    story: StoryState
    ending: str | None = None
    known: dict[str, Awareness] | None = None
    """What the player knows of people (None: everyone, as in saves from before it was kept)."""
    reveals: list[tuple[str, str]] = field(default_factory=list)
    """Revelations learned this turn, (character name, key): the turn adds them to ``known`` at its end."""

    @classmethod
    def from_scene(cls, scene: SceneState, world: World) -> Play:
        # A scene without story state (an old save, one built by hand) starts from the world's turn 0.
        base = scene.story if scene.story is not None else world.initial_scene().story
        story = base.model_copy(deep=True) if base is not None else StoryState(goal=world.section.goal)
        known_people = {c.name for c in world.characters}
        story.positions = {n: p for n, p in story.positions.items() if n in known_people}
        story.item_places = {i: p for i, p in story.item_places.items() if i in world.items and p in world.places}
        story.held = {i: n for i, n in story.held.items() if i in world.items and n in known_people}
        return cls(
            location=scene.location if scene.location in world.places else world.start,
            inventory=[i for i in scene.inventory if i in world.items],
            flags=dict(scene.flags),
            met=list(scene.met),
            visited=list(scene.visited),
            verbose=scene.verbose,
            story=story,
            ending=scene.ending,
            known=dict(scene.known) if scene.known is not None else None,
        )

    def to_scene(self, world: World, rng_state: int) -> SceneState:
        return SceneState(
            location=self.location,
            cast=self.present(world),
            inventory=list(self.inventory),
            flags=dict(self.flags),
            met=list(self.met),
            visited=list(self.visited),
            ending=self.ending,
            verbose=self.verbose,
            rng_state=rng_state,
            story=self.story.model_copy(deep=True),
            known=dict(self.known) if self.known is not None else None,
        )

    # ------------------------------------------------------------------------------------ queries

    def present(self, world: World, place: str | None = None) -> list[str]:
        """Individuals at ``place`` (the player's by default), in the world's order."""
        where = place or self.location
        positions = self.story.positions
        return [c.name for c in world.characters if c.type == "individual" and positions.get(c.name) == where]

    def knows(self, name: str) -> bool:
        """Whether the player has met or heard of ``name`` (anyone they are with counts as met)."""
        if self.known is None or self.story.positions.get(name, "") == self.location:
            return True
        wanted = normalize_name(name)
        return any(normalize_name(a.name) == wanted for a in self.known.values())

    def revealed(self, name: str) -> list[str]:
        """The revelation keys the player has learned about ``name``, in order."""
        wanted = normalize_name(name)
        if self.known is None:
            return []
        return next((a.revealed for a in self.known.values() if normalize_name(a.name) == wanted), [])

    def items_here(self) -> list[str]:
        return [item for item, place in self.story.item_places.items() if place == self.location]

    def carries(self, item: str) -> bool:
        return item in self.inventory

    def flag(self, name: str) -> bool:
        return bool(self.flags.get(name))

    def spent(self, key: str) -> bool:
        """Whether a once-only topic, reaction or command (``topic:Mira:2``) has been used up, or a topic already
        answered (``told:Mira:2``: asked again, it is a reminder)."""
        return key in self.story.used

    # ------------------------------------------------------------------------------------ changes

    def spend(self, key: str) -> None:
        self.story.used.append(key)

    def give_player(self, item: str) -> None:
        self.story.item_places.pop(item, None)
        self.story.held.pop(item, None)
        if item not in self.inventory:
            self.inventory.append(item)

    def remove_item(self, item: str) -> None:
        self.story.item_places.pop(item, None)
        self.story.held.pop(item, None)
        if item in self.inventory:
            self.inventory.remove(item)

    def put(self, item: str, place: str | None = None, holder: str | None = None) -> None:
        """Leave ``item`` at a place or with a character, taking it from wherever it was."""
        self.remove_item(item)
        if place is not None:
            self.story.item_places[item] = place
        elif holder is not None:
            self.story.held[item] = holder

    def meet(self, name: str) -> None:
        if name not in self.met:
            self.met.append(name)

    def move_player(self, place: str) -> None:
        if place != self.location:
            self.story.previous = self.location
        self.location = place
        if place not in self.visited:
            self.visited.append(place)
