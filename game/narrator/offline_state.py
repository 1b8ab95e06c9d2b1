"""The offline narrator's working state for one turn, read from and written back to a ``SceneState``.

A turn works on its own copy: the ``SceneState`` handed in is never touched, because the engine may
throw the turn away (a failed commit, a cancel) and must find the scene exactly as it was.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from game.world import World
from game.world.scene import SceneState


@dataclass
class Play:
    """Everything a turn may change besides the graph."""

    location: str
    inventory: list[str]
    flags: dict[str, Any]
    met: list[str]
    visited: list[str]
    positions: dict[str, str | None]
    item_places: dict[str, str]
    held: dict[str, str]
    fired: dict[str, int]
    used: list[str]
    goal: str | None
    partner: str | None
    previous: str | None
    departures: dict[str, str]
    last_input: str | None
    verbose: bool
    ending: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_scene(cls, scene: SceneState, world: World) -> Play:
        extra = copy.deepcopy(scene.extra)
        start = world.initial_scene().extra if "positions" not in extra else {}
        def take(key: str, default: Any) -> Any:
            return extra.pop(key, start.get(key, default))
        # A save may be older than its world's content: forget what the world no longer has.
        location = scene.location if scene.location in world.places else world.start
        known_people = {c.name for c in world.characters}
        return cls(
            location=location,
            inventory=[i for i in scene.inventory if i in world.items],
            flags=dict(scene.flags),
            met=list(scene.met),
            visited=list(scene.visited),
            positions={n: p for n, p in dict(take("positions", {})).items() if n in known_people},
            item_places={i: p for i, p in dict(take("item_places", {})).items()
                         if i in world.items and p in world.places},
            held={i: n for i, n in dict(take("held", {})).items() if i in world.items and n in known_people},
            fired={str(k): int(v) for k, v in dict(take("fired", {})).items()},
            used=list(take("used", [])),
            goal=take("goal", world.section.goal),
            partner=take("partner", None),
            previous=take("previous", None),
            departures=dict(take("departures", {})),
            last_input=take("last_input", None),
            verbose=scene.verbose,
            ending=scene.ending,
            extra=extra,
        )

    def to_scene(self, world: World, rng_state: int) -> SceneState:
        return SceneState(
            location=self.location,
            cast=self.cast(world),
            inventory=list(self.inventory),
            flags=dict(self.flags),
            met=list(self.met),
            visited=list(self.visited),
            ending=self.ending,
            verbose=self.verbose,
            rng_state=rng_state,
            extra={
                **self.extra,
                "positions": dict(self.positions),
                "item_places": dict(self.item_places),
                "held": dict(self.held),
                "fired": dict(self.fired),
                "used": list(self.used),
                "goal": self.goal,
                "partner": self.partner,
                "previous": self.previous,
                "departures": dict(self.departures),
                "last_input": self.last_input,
            },
        )

    # ------------------------------------------------------------------------------------ queries

    def present(self, world: World, place: str | None = None) -> list[str]:
        """Individuals at ``place`` (the player's by default), in the world's order."""
        where = place or self.location
        return [c.name for c in world.characters if c.type == "individual" and self.positions.get(c.name) == where]

    def cast(self, world: World) -> list[str]:
        return self.present(world)

    def items_here(self) -> list[str]:
        return [item for item, place in self.item_places.items() if place == self.location]

    def carries(self, item: str) -> bool:
        return item in self.inventory

    def flag(self, name: str) -> bool:
        return bool(self.flags.get(name))

    # ------------------------------------------------------------------------------------ changes

    def give_player(self, item: str) -> None:
        self.item_places.pop(item, None)
        self.held.pop(item, None)
        if item not in self.inventory:
            self.inventory.append(item)

    def remove_item(self, item: str) -> None:
        self.item_places.pop(item, None)
        self.held.pop(item, None)
        if item in self.inventory:
            self.inventory.remove(item)

    def put(self, item: str, place: str | None = None, holder: str | None = None) -> None:
        """Leave ``item`` at a place or with a character, taking it from wherever it was."""
        self.remove_item(item)
        if place is not None:
            self.item_places[item] = place
        elif holder is not None:
            self.held[item] = holder

    def meet(self, name: str) -> None:
        if name not in self.met:
            self.met.append(name)

    def move_player(self, place: str) -> None:
        if place != self.location:
            self.previous = self.location
        self.location = place
        if place not in self.visited:
            self.visited.append(place)
