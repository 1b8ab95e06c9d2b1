"""Every noun Brinefall's text names can be examined (issue 27, "Scenery the text names").

A player reads a room, a person standing in it, a feature looked at, an item lying there, and types
``x`` and the noun. Each must be a feature or the world's scenery reply, never "there's no boots here"
while the page says "her boots by the door". Played in a fresh in-memory game in every place, with the
cast where the story starts them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playthrough import Playthrough

from game.world import World, load_world

CONTENT = Path(__file__).resolve().parent.parent / "content"
# Words of a text that are not things to look at: a player does not type "x through".
_GLUE = """
about above after again along also always another away back been before behind below beside between
both came come could does doesn down each even ever every from gets give goes going gone half have here
hers into just keep kept know left like long look made make many might more most much must near never
next nobody none nothing once only other over past quite rather said same says since some someone
something still such than that their them then there these they thing this those though three through
till told toward towards under until upon very want wants wasn went were what when where which while
whole will with without would your you've you'd you're it's that's there's isn't don't doesn't can't
won't didn't she's he's they're i'm i've
"""
NOT_NOUNS = frozenset(re.findall(r"\S+", _GLUE))


@pytest.fixture(scope="module")
def world() -> World:
    return load_world(CONTENT, "brinefall")


def nouns(text: str) -> set[str]:
    """The words of a text a player might examine: long enough, and not the glue of a sentence."""
    words = set(re.findall(r"[a-z][a-z'-]*[a-z]", text.casefold()))
    return {w for w in words if len(w) >= 4 and w not in NOT_NOUNS and not w.endswith(("ly", "ing", "ed"))}


def no_such(world: World, word: str) -> list[str]:
    """The world's "nothing of that name here" reply for ``word``, every way it may be said."""
    variants = world.replies.no_such or ["You see no {thing} here."]
    return [v.split("{thing}")[-1].strip() for v in variants]


async def test_every_noun_a_place_names_can_be_examined(world: World) -> None:
    game = await Playthrough.start(world)
    start = game.scene
    failures: list[str] = []
    checked = 0
    for place in world.places.values():
        present = [c for c in world.characters if c.location == place.id and c.type == "individual"]
        texts = [place.description, *(v for f in place.features for v in f.text)]
        texts += [t for c in present for t in (c.description, c.here) if t]
        texts += [i.description for i in world.items.values() if i.location == place.id]
        for word in sorted(set().union(*(nouns(t) for t in texts))):
            game.scene = start.model_copy(update={"location": place.id, "cast": [c.name for c in present]})
            reply = await game.play(f"x {word}")
            checked += 1
            endings = no_such(world, word)
            if any(end and end in reply for end in endings) or "Nothing comes of that" in reply:
                failures.append(f"{place.id}: x {word} -> {reply}")
    assert checked > 300, "the test should look at every place's words"
    assert not failures, "\n".join(failures)
