"""Faults the engine can prove from one turn: what the scene says at once that cannot all be true.

Each check reads the scene before and after the turn and the turn's output, never the narrator's mind,
so a fault found is a fault replayed: the same commands show it again (``shrink`` relies on that).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from game.explore.matching import keys, squash
from game.explore.reach import Catalogue
from game.world import World
from game.world.scene import SceneState

KINDS = ("item-twice", "person-twice", "denied-after-confession", "cites-unknown", "tier-mismatch",
         "ending-cites-unfound", "exception", "fallback-reply")
FALLBACK_DEFAULT = "Nothing comes of that."
"""The story's own ``unknown`` reply when a world gives none (game/story/context.py)."""


@dataclass(frozen=True)
class Fault:
    kind: str
    detail: str
    checks: tuple[str, ...] = field(default=(), compare=False)
    """Script check lines that fail while the fault shows (a saved failure's checks)."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.detail)


def _where_items(world: World, scene: SceneState) -> dict[str, list[tuple[str, str]]]:
    """Item id -> every (place it is said to be, the script check that it is not there)."""
    where: dict[str, list[tuple[str, str]]] = {}
    story = scene.story
    for item in scene.inventory:
        where.setdefault(item, []).append(("carried by the player", f"{{state}} !inventory has {item}"))
    if story is not None:
        for item, place in story.item_places.items():
            where.setdefault(item, []).append((f"lying in {place}", f"{{state}} !story.item_places has {item}"))
        for item, holder in story.held.items():
            where.setdefault(item, []).append((f"held by {holder}", f"{{state}} !story.held has {item}"))
    return where


def item_faults(world: World, scene: SceneState) -> list[Fault]:
    """One item in two places at once; or two items of one name in two places, which the player reads as one."""
    where = _where_items(world, scene)
    # The check is that the item is not in its second place: it fails while it is in both.
    faults = [Fault("item-twice", f"{item} is in two places at once ({places[0][0]}, {places[1][0]})",
                    (places[1][1],))
              for item, places in sorted(where.items()) if len(places) > 1]
    by_name: dict[str, list[str]] = {}
    for item in sorted(where):
        found = world.items.get(item)
        if found is not None:
            by_name.setdefault(squash(found.name), []).append(item)
    for name, items in sorted(by_name.items()):
        places = sorted({place for item in items for place, _ in where[item]})
        if len(items) > 1 and len(places) > 1:
            # Named without its places: the same pair seen in other places is the same fault.
            faults.append(Fault("item-twice", f"{name!r} is two items ({', '.join(items)}) seen in two places",
                                tuple(check for item in items[1:] for _, check in where[item][:1])))
    return faults


def person_faults(world: World, scene: SceneState) -> list[Fault]:
    """Someone on stage who stands elsewhere, or is on stage twice."""
    faults: list[Fault] = []
    positions = scene.story.positions if scene.story is not None else {}
    for name in sorted(set(scene.cast)):
        if scene.cast.count(name) > 1:
            faults.append(Fault("person-twice", f"{name} is on stage {scene.cast.count(name)} times",
                                (f"{{state}} !cast has {name}",)))
        place = positions.get(name)
        if place is not None and place != scene.location:
            faults.append(Fault("person-twice", f"{name} is on stage in {scene.location} and stands in {place}",
                                (f"{{state}} !cast has {name}",)))
    return faults


def fallback_fault(world: World, command: str, output: str) -> Fault | None:
    """The parser's "I don't follow" to a command the explorer built from the world's own words."""
    variants = world.replies.unknown or [FALLBACK_DEFAULT]
    found = [key for key in keys(world, variants) if key in output]
    if found:
        return Fault("fallback-reply", f"{command!r} was answered by the parser's fallback", (absent(found[0]),))
    return None


def lie_faults(catalogue: Catalogue, before: SceneState, output: str) -> list[Fault]:
    """A lie told when the player already knew, from anyone, a revelation it denies.

    The engine stops a lie once its speaker remembers confessing; a revelation the player learned from
    someone else (or a scene) leaves the lie standing, and the player hears a denial of what they know."""
    faults: list[Fault] = []
    world = catalogue.world
    known = {(world.canonical(a.name) or a.name, key) for a in (before.known or {}).values() for key in a.revealed}
    for speaker, reply, denies, own in catalogue.lies:
        said = [key for key in reply if key in output]
        if not said:
            continue
        denied = {_denied(world, speaker, entry) for entry in denies} or {(speaker, key) for key in own}
        confessed = sorted(f"{name}:{key}" for name, key in denied & known)
        if confessed:
            faults.append(Fault("denied-after-confession",
                                f"{speaker} denied {', '.join(confessed)}, which the player had learned",
                                (absent(said[0]),)))
    return faults


def _denied(world: World, speaker: str, entry: str) -> tuple[str, str]:
    """A lie's ``denies`` entry as (character name, key): ``NAME:KEY``, or the speaker's own ``KEY``."""
    name, colon, key = entry.partition(":")
    if not colon:
        return (speaker, entry)
    return (world.canonical(name) or name, key)


def absent(key: str) -> str:
    """A check that the output does not hold ``key`` (squashed text: any case, any spacing)."""
    return "!/(?i)" + r"\W+".join(re.findall(r"\w+", key))


def turn_faults(catalogue: Catalogue, command: str, before: SceneState, after: SceneState, output: str) -> list[Fault]:
    """Every fault this turn shows (``output`` squashed)."""
    world = catalogue.world
    faults = [*item_faults(world, after), *person_faults(world, after)]
    fallback = fallback_fault(world, command, output)
    if fallback is not None:
        faults.append(fallback)
    faults += lie_faults(catalogue, before, output)
    return faults
