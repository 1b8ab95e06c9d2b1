"""Games aimed at what no game of a lane has reached yet: a topic, a reaction, a beat or a world command.

Blind play and the endings' goals leave behind content whose ``when`` is a chain (Hob's word of the purse,
then Hob's distrust, then "talk to Hob"). Such a game takes one of those in turn as its goal: its ``when``
(and an item shown or given, carried) is walked back as an ending's would be (``goals``), the frontier
steps toward what it still lacks (``frontier``), and once it holds the game goes to the person and types
the command. What a lane aims at depends only on what its own earlier games reached, so the lanes stay
independent of each other and of timing.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.explore.chooser import reaction_commands, topic_command
from game.explore.goals import Goal, producers, walk
from game.explore.reach import _unique
from game.world import World
from game.world.scene import SceneState
from game.world.schema import Conditions, Topic


@dataclass(frozen=True)
class Target:
    """One piece of content as a goal: the report's (kind, label), what it needs, and how it is typed."""

    kind: str
    label: str
    when: Conditions
    typed: tuple[str, ...] = ()
    person: str | None = None
    """Whose topic or reaction it is: the game goes to wherever they stand now."""
    place: str | None = None
    """Where it is to be typed when nobody's (a world command tied to a place)."""


def targets(world: World) -> list[Target]:
    """Every topic, reaction, beat and world command the report would list, in the report's order."""
    found: list[Target] = []
    topics: dict[str, list[str]] = {}
    reactions: dict[str, list[str]] = {}
    for character in world.characters:
        who = character.short_name
        for index, topic in enumerate(character.topics):
            label = _unique(f"{character.name}: {topic.about[0]}", topics)
            topics[label] = []
            if topic.explore:
                found.append(Target("topics", label, _unshadowed(character.topics[:index], topic),
                                    (topic_command(who, topic),), character.name))
        for reaction in character.reactions:
            act = "/".join(reaction.act) + (f" {reaction.item}" if reaction.item else "")
            label = _unique(f"{character.name}: {act}", reactions)
            reactions[label] = []
            when = reaction.when
            if reaction.item and set(reaction.act) & {"give", "show", "bribe"}:  # the item must be carried
                when = when.model_copy(update={"items": [*when.items, reaction.item]})
            if reaction.explore:
                found.append(Target("reactions", label, when, tuple(reaction_commands(world, who, reaction)),
                                    character.name))
    for beat in world.beats:
        if beat.explore:
            found.append(Target("beats", beat.id, beat.when))
    for command in world.commands:
        places = [p for p in command.when.place if not p.startswith("!")]
        if command.explore:
            found.append(Target("commands", command.id, command.when, (command.say[0],),
                                place=places[0] if places else None))
    return found


def _unshadowed(earlier: list[Topic], topic: Topic) -> Conditions:
    """``topic``'s ``when``, and out of the player's hands what an earlier answer on the same subject waits on
    being held: that answer is given first while its item is carried (Crane's ledger in the player's hands,
    not his word of it once out of them), so this one needs the item put down."""
    subject = topic.about[0].casefold()
    verb = "tell" if topic.verb == "tell" else "ask"  # as ``topic_command`` types it
    without = [f"!{item}" for other in earlier
               if other.verb in {verb, "both"} and subject in {about.casefold() for about in other.about}
               if other.when.items and other.when.model_copy(update={"items": []}).is_empty()
               for item in other.when.items[:1] if not item.startswith("!")]
    if not without:
        return topic.when
    return topic.when.model_copy(update={"items": [*topic.when.items, *dict.fromkeys(without)]})


def place_of_person(world: World, person: str, scene: SceneState) -> str | None:
    """Where ``person`` stands as the game goes (None: nowhere the player can go)."""
    positions = scene.story.positions if scene.story is not None else {}
    character = world.character(person)
    where = positions.get(person, character.location if character is not None else None)
    return where if where in world.places else None


def target_goal(world: World, target: Target) -> Goal:
    """``target`` as a goal: its commands, and the chain its ``when`` walks back to (``goals.walk``)."""
    character = world.character(target.person) if target.person is not None else None
    places = [p for p in target.when.place if not p.startswith("!")]
    place = (character.location if character is not None else target.place) or (places[0] if places else "")
    goal = Goal(f"{target.kind}/{target.label}", commands=set(target.typed), places={place} - {""},
                opens=(target.when, place), typed=target.typed, person=target.person)
    walk(world, goal, producers(world), [target.when])
    goal.triggers.clear()  # nothing to hold back: no ending waits on it
    return goal
