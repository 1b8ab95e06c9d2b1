"""Playing toward an ending: the commands and places an ending's conditions point to, walked backwards.

An ending is set by a beat's or a command's effects; their ``when`` names places to be in, items to
carry, flags to have set and people to have met. Each flag leads back to what sets it (a topic, a
reaction, a command, a feature, an item's taking, a beat, whose own ``when`` is walked in turn, a few
steps deep). The explorer's directed games weight those commands, and the exits toward those places,
above the rest: a guess at a route, not a solver, but it finds endings blind play rarely reaches.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from game.explore.chooser import item_word, reaction_commands, topic_command
from game.world import World
from game.world.schema import Conditions, Effects

DEPTH = 4
FIRED = "@fired:"
"""The pseudo-flag a beat sets by firing (never a world's own flag: ids take no '@')."""
LYING = "@lying:"
"""The pseudo-flag of an item lying in a place, where it can be taken (set by what puts it there)."""
WITHOUT = "@without:"
"""The pseudo-flag of an item out of the player's hands (``items = ["!ledger"]``), which dropping it sets."""


@dataclass
class Goal:
    ending: str
    commands: set[str] = field(default_factory=set)
    places: set[str] = field(default_factory=set)
    triggers: set[str] = field(default_factory=set)
    """Commands that set off the ending's own conditions (ringing the bell for the Moot): played too early,
    they end the game in another ending, so a directed game holds them back until late."""
    opens: tuple[Conditions, str] | None = None
    """For a barrier's goal: what the barrier requires, and the place behind it (``barrier_goals``); for a
    content target's, what it needs and where it is typed (``targets``)."""
    typed: tuple[str, ...] = ()
    """A content target's own commands, typed once ``opens`` holds (a barrier has none: it is walked through)."""
    person: str | None = None
    """Whose topic or reaction a content target is: its place follows them as they move."""


def producers(world: World) -> list[tuple[Effects, Conditions, list[str], str | None]]:
    """Every effect in the world, with its conditions, the commands that trigger it and where."""
    found: list[tuple[Effects, Conditions, list[str], str | None]] = []
    for character in world.characters:
        who = character.short_name
        for topic in character.topics:
            found.append((topic.effects, topic.when, [topic_command(who, topic)], character.location))
        for reaction in character.reactions:
            typed = reaction_commands(world, who, reaction)
            when = reaction.when
            if reaction.item and set(reaction.act) & {"give", "show", "bribe"}:  # the item must be carried
                when = when.model_copy(update={"items": [*when.items, reaction.item]})
            found.append((reaction.effects, when, typed, character.location))
    for command in world.commands:
        found.append((command.effects, command.when, [command.say[0]], None))
    for place in world.places.values():
        for feature in place.features:
            found.append((feature.effects, Conditions(), [f"examine {feature.names[0].removeprefix('the ')}"], place.id))
    for item in world.items.values():
        # Taken only while it lies somewhere: one held by someone (Crane's ledger) waits for what puts it down.
        where = item.location if item.location in world.places else None
        found.append((item.on_take, Conditions(flags=[LYING + item.id]), [f"take {item_word(item)}"], where))
        # Out of the player's hands once put down anywhere: what Crane says of his ledger after it is taken
        # and then dropped (giving it away may not do: Lise hands it back).
        found.append((Effects.model_validate({"set": [WITHOUT + item.id]}), Conditions(items=[item.id]), [f"drop {item_word(item)}"], None))
    for beat in world.beats:
        # A beat's firing is what another's ``fired`` or ``since`` waits on: a flag of its own (``FIRED``).
        fired = beat.effects.model_copy(update={"set_flags": [*beat.effects.set_flags, FIRED + beat.id]})
        found.append((fired, beat.when, [], None))
    for index, (effects, when, typed, where) in enumerate(found):
        # What puts an item down in a place lets it be taken there (``LYING``).
        lying = [LYING + item for item, at in effects.put.items() if at in world.places]
        if lying:
            found[index] = (effects.model_copy(update={"set_flags": [*effects.set_flags, *lying]}), when, typed, where)
    return found


def fired_flags(when: Conditions) -> set[str]:
    """The beats ``when`` waits on having fired (``fired``, ``since``), as ``FIRED`` flags."""
    return {FIRED + beat for beat in [*when.fired, *when.since] if not beat.startswith("!")}


Wants = tuple[set[str], set[str], set[str], set[tuple[str, str, str]]]


def _wants(world: World, when: Conditions) -> Wants:
    """(flags, items, places, relations) a condition asks for, its ``any`` alternatives included.

    A relation is (source, target, RELATION) by canonical names: one that must hold, never one that must not."""
    flags = {f for f in when.flags if not f.startswith("!")} | fired_flags(when)
    items = {i for i in when.items if not i.startswith("!")}
    places = {p for p in when.place if not p.startswith("!")}
    relations = {_relation(world, ref.source, ref.target, ref.relation) for ref in when.relations if not ref.negated}
    for sub in when.any_of:
        more = _wants(world, sub)
        flags |= more[0]
        items |= more[1]
        places |= more[2]
        relations |= more[3]
    return flags, items, places, relations


def _relation(world: World, source: str, target: str, relation: str) -> tuple[str, str, str]:
    return (world.canonical(source) or source, world.canonical(target) or target, relation.upper())


def barrier_goals(world: World) -> list[Goal]:
    """A goal for each barrier on an exit: open it and go through. What lies behind a password or a guard
    (the Eel Run's cave, the counting room) is half a world that roaming rarely opens by chance."""
    goals = []
    for place in world.places.values():
        for barrier in place.barriers:
            beyond = place.exits.get(barrier.exit)
            if beyond in world.places:
                goal = Goal(f"{place.id}/{barrier.exit}", places={place.id, beyond},
                            opens=(barrier.requires, beyond))
                walk(world, goal, producers(world), [barrier.requires])
                goal.triggers.clear()  # nothing to hold back: opening the way ends no game
                goals.append(goal)
    return goals


def goal_for(world: World, ending: str) -> Goal:
    goal = Goal(ending)
    found = producers(world)
    starts = []
    for effects, when, typed, where in found:
        if effects.ending == ending:
            goal.commands |= set(typed)
            if where is not None:
                goal.places.add(where)
            starts.append(when)
    walk(world, goal, found, starts)
    return goal


def walk(world: World, goal: Goal, found: list[tuple[Effects, Conditions, list[str], str | None]],
          starts: list[Conditions]) -> None:
    """Add to ``goal`` what ``starts`` ask for, walked back through what sets it, ``DEPTH`` steps deep."""
    queue: deque[tuple[Conditions, int]] = deque((when, 0) for when in starts)
    seen_flags: set[str] = set()
    seen_relations: set[tuple[str, str, str]] = set()
    while queue:
        when, depth = queue.popleft()
        flags, items, places, relations = _wants(world, when)
        goal.places |= {p for p in places if p in world.places}
        for item in items:
            held = world.items.get(item)
            if held is not None:
                goal.commands.add(f"take {item_word(held)}")
                if held.location in world.places:
                    goal.places.add(held.location)
        if depth >= DEPTH:
            continue
        if depth == 0:
            goal.triggers |= {command for effects, _, typed, _ in found if set(effects.set_flags) & flags
                              for command in typed}
        for relation in relations - seen_relations:
            seen_relations.add(relation)
            for effects, cond, typed, where in found:
                made = {_relation(world, c.source, c.target, c.relation) for c in effects.relations if c.strength > 0}
                if relation in made:
                    goal.commands |= set(typed)
                    if where is not None and where in world.places:
                        goal.places.add(where)
                    queue.append((cond, depth + 1))
        for flag in flags - seen_flags:
            seen_flags.add(flag)
            for effects, cond, typed, where in found:
                if flag in effects.set_flags:
                    goal.commands |= set(typed)
                    if where is not None and where in world.places:
                        goal.places.add(where)
                    queue.append((cond, depth + 1))


def step_toward(world: World, here: str, targets: set[str]) -> str | None:
    """The exit that starts the shortest way from ``here`` to the nearest of ``targets`` (None: there, or none)."""
    if here in targets or not targets:
        return None
    first: dict[str, str] = {}
    queue: deque[str] = deque([here])
    seen = {here}
    while queue:
        place = queue.popleft()
        found = world.places.get(place)
        if found is None:
            continue
        for direction, to in found.exits.items():
            if to in seen:
                continue
            seen.add(to)
            first[to] = first.get(place, direction)
            if to in targets:
                return first[to]
            queue.append(to)
    return None
