"""Actions about places: looking around, listing the ways on, going somewhere.

Also the place description every family uses (arriving, following someone, the opening).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from game.story.actions.base import Action
from game.story.clock import time_of_day
from game.story.context import Refusal, Turn
from game.story.parser import DIRECTION_WORDS, Intent
from game.story.prose import join_words, mid_sentence, tidy
from game.story.resolve import exit_named, exit_through, feature_named, names_place, place_named, route
from game.story.state import Play
from game.world import World
from game.world.schema import DIRECTIONS
from game.world.words import key_words, strip_articles


def describe_place(world: World, play: Play, full: bool, details: Sequence[str] = (),
                   poses: Mapping[str, str] | None = None) -> list[str]:
    """The player's place as paragraphs: its name, its description with who and what is here, the ways on.

    ``full`` gives the whole description (first visits, ``look``, verbose mode), otherwise the brief one.
    ``details`` are the place's detail sentences that hold now, ``poses`` the people's poses that hold
    (``poses_now``): the caller evaluates their conditions.
    """
    place = world.places[play.location]
    body = place.description if full or not place.brief else place.brief
    extras: list[str] = list(details) if full or not place.brief else []
    for name in play.present(world):
        character = world.character(name)
        assert character is not None
        line = character.here if play.location == character.location else character.away
        line = (poses or {}).get(name, line)
        extras.append(world.text(line) if line else f"{character.short_name} is here.")
    for item_id in play.items_here():
        item = world.items[item_id]
        extras.append(item.here if item.here else f"You notice {item.name} here.")
    paragraphs = tidy(world.text(body)).split("\n\n")
    if extras:
        paragraphs[-1] = f"{paragraphs[-1]} {' '.join(tidy(e) for e in extras)}"
    return [f"**{place.name}**", *paragraphs, exits_line(world, play.location)]


def exits_line(world: World, place_id: str) -> str:
    place = world.places[place_id]
    ways = []
    for direction in sorted(place.exits, key=DIRECTIONS.index):
        target = world.places[place.exits[direction]]
        ways.append(f"{direction} to {mid_sentence(target.name)}")
    if not ways:
        return "There is no way out of here." if place.indoors else "There is no way on from here."
    if place.indoors and len(ways) == 1:
        direction = next(iter(place.exits))
        return f"The way out is {direction}, to {mid_sentence(world.places[place.exits[direction]].name)}."
    return f"From here you can go {join_words(ways, 'or')}."


async def describe(turn: Turn, full: bool) -> None:
    place = turn.world.places[turn.play.location]
    details = await turn.details(place.details)
    for paragraph in describe_place(turn.world, turn.play, full, details, await poses_now(turn)):
        turn.log.say(paragraph)


async def poses_now(turn: Turn) -> dict[str, str]:
    """The pose each person at home here is in now, where one of theirs holds (``CharacterDef.poses``)."""
    world, play = turn.world, turn.play
    poses: dict[str, str] = {}
    for name in play.present(world):
        character = world.character(name)
        if character is None or character.location != play.location:
            continue
        held = await turn.details(character.poses)
        if held:
            poses[name] = held[0]
    return poses


@dataclass(frozen=True)
class Arrival:
    """Where a move ends, and whether the player has been there before (a first visit is told in full)."""

    destination: str
    first_visit: bool


async def arrive(turn: Turn, arrival: Arrival) -> None:
    """Report an arrival: the full description on a first visit (or in verbose mode), the brief one after."""
    await describe(turn, full=arrival.first_visit or turn.play.verbose)


class Look(Action[None]):
    """The whole place, then the hour: the story's clock is something the player can see."""

    async def check(self, turn: Turn, intent: Intent) -> None:
        return None

    async def report(self, turn: Turn, plan: None) -> None:
        await describe(turn, full=True)
        turn.log.say(time_of_day(turn.world, turn.play.story.clock or 0, turn.rng))

    def takes_time(self, plan: None) -> bool:
        return False


class Exits(Action[None]):
    async def check(self, turn: Turn, intent: Intent) -> None:
        return None

    async def report(self, turn: Turn, plan: None) -> None:
        turn.log.say(exits_line(turn.world, turn.play.location))

    def takes_time(self, plan: None) -> bool:
        return False


class Go(Action[Arrival]):
    """``go north``, ``go back``, ``go to the quay``: through an exit, if no barrier stops you."""

    async def check(self, turn: Turn, intent: Intent) -> Arrival | Refusal:
        play, world = turn.play, turn.world
        place = world.places[play.location]
        wanted = intent.obj
        direction: str | None = DIRECTION_WORDS.get(wanted)
        previous = play.story.previous
        if direction is None and strip_articles(wanted) in {"back", "back the way i came"} and previous:
            direction = next((d for d, p in place.exits.items() if p == previous), None)
        if direction is None:
            direction = exit_named(world, play.location, wanted)
        first, _, rest = wanted.partition(" ")
        if direction is None and rest and DIRECTION_WORDS.get(first) in place.exits:
            direction = DIRECTION_WORDS[first]  # "go down the crack", "climb up the stair"
        if direction is None:
            direction = exit_through(world, play.location, wanted)
        if direction is None and names_place(world, play.location, wanted):
            return Refusal(f"You are already at {mid_sentence(place.name)}.")
        if direction is None and wanted not in DIRECTION_WORDS:
            elsewhere = _further_or_into(turn, wanted)
            if elsewhere is not None:
                return elsewhere
        if direction is None or direction not in place.exits:
            wall = "no_exit_indoors" if place.indoors else "no_exit"
            return Refusal(f"{turn.reply(wall)} {exits_line(world, play.location)}")
        for barrier in place.barriers:
            if barrier.exit == direction and not await turn.rules.holds(barrier.requires):
                return Refusal(turn.pick(barrier.text))
        destination = place.exits[direction]
        return Arrival(destination, destination not in play.visited)

    async def carry_out(self, turn: Turn, plan: Arrival) -> None:
        turn.play.move_player(plan.destination)

    async def report(self, turn: Turn, plan: Arrival) -> None:
        await arrive(turn, plan)


def _further_or_into(turn: Turn, phrase: str) -> Refusal | None:
    """Why ``go to PHRASE`` cannot be one step: the place is further on (the way is told), or the phrase
    names something here that is no way on ("enter house": what the house shows instead)."""
    world, play = turn.world, turn.play
    goal = place_named(world, phrase)
    steps = route(world, play.location, goal) if goal is not None else []
    if goal is not None and len(steps) > 1:
        first, *rest = steps
        way = f"go {first[0]} to {mid_sentence(world.places[first[1]].name)}"
        then = ", then ".join(direction for direction, _ in rest)
        return Refusal(f"It is more than one step to {mid_sentence(world.places[goal].name)}: {way}, then {then}.")
    feature = feature_named(world, play.location, phrase)
    if feature is not None:
        return Refusal(f"There's no going into the {key_words(phrase)}. {turn.pick(feature.text)}")
    return None
