"""``ending-cites-unfound``: an ending's detail that speaks of an item the player never found.

An ending's ``details`` say what the player did ("the ledger in your hands"); one told (its text in the
ending turn's output) naming an item the player never carried nor saw lying where they stood cites
something that did not happen in this game: its ``when`` is too loose.
"""

from __future__ import annotations

import re

from game.explore.faults import Fault, absent
from game.explore.matching import keys, squash
from game.world import World
from game.world.scene import SceneState

_ARTICLE = re.compile(r"^(?:the|a|an|some)\s+")


def items_found(scene: SceneState) -> set[str]:
    """The items the player has in hand or in sight in this scene."""
    story = scene.story
    here = {item for item, place in story.item_places.items() if place == scene.location} if story else set()
    return set(scene.inventory) | here


def ending_faults(world: World, scene: SceneState, output: str, found: set[str]) -> list[Fault]:
    """Every item named in a told detail of the ending ``scene`` reached, that is not among ``found``."""
    ending = world.endings.get(scene.ending or "")
    if ending is None:
        return []
    faults: list[Fault] = []
    for detail in ending.details:
        for variant in detail.text:
            said = [key for key in keys(world, [variant]) if key in output]
            if not said:
                continue
            text = f" {squash(world.text(variant))} "
            for item in world.items.values():
                names = {_ARTICLE.sub("", squash(name)) for name in item.names}
                if item.id not in found and any(f" {name} " in text or f" {name}." in text for name in names if name):
                    # The check: the detail is not told (give it a ``when`` that needs the item).
                    faults.append(Fault("ending-cites-unfound",
                                        f"the ending {ending.id} speaks of {item.name}, which the player never found",
                                        (absent(said[0]),)))
    return faults
