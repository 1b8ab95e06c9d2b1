"""What the explorer may type next: commands built from what the world offers at this moment.

Every candidate is made of the world's own words (an exit's direction, a person's short name, a topic's
subject, an item's name, a world command's phrase), so a reply that is the parser's fallback to one of
them is the world's fault, not the explorer's. The choice is weighted toward what was tried least, and
it draws only on a seeded ``random.Random``: the same seed plays the same games.
"""

from __future__ import annotations

import random
from collections import Counter

from game.world import World
from game.world.scene import SceneState
from game.world.schema import Item, Reaction, Topic

VERBS = ("look", "inventory", "wait", "exits", "think", "listen", "smell")
"""Parser verbs that need no object: tried now and then, like any player would."""
PERSON_ACTS = ("talk to", "help", "threaten", "follow")


def _name(phrase: str) -> str:
    return phrase.removeprefix("the ").removeprefix("a ").removeprefix("an ").strip()


def topic_command(who: str, topic: Topic) -> str:
    """How the explorer asks (or tells) ``who`` about a topic: its first subject."""
    return f"{'tell' if topic.verb == 'tell' else 'ask'} {who} about {_name(topic.about[0])}"


def item_word(item: Item) -> str:
    """The item's last alias (its shortest handle, usually), as the explorer types it."""
    return _name(item.names[-1])


def reaction_commands(world: World, who: str, reaction: Reaction) -> list[str]:
    """How a player sets off ``reaction`` of ``who``: one command for each of its acts, in the world's words."""
    typed = []
    for act in reaction.act:
        item = world.items.get(reaction.item) if reaction.item else None
        if act in {"give", "show", "bribe"} and item is not None:
            typed.append(f"{act} {item_word(item)} to {who}")
        elif act == "steal" and item is not None:
            typed.append(f"steal {item_word(item)} from {who}")
        elif act in {"accuse", "lie", "warn"} and reaction.about:
            typed.append(f"{act} {who} about {_name(reaction.about[0])}")
        elif act == "lie":  # "lie Hob" is not English; the parser knows "lie to Hob"
            typed.append(f"lie to {who}")
        else:
            typed.append(f"{'talk to' if act == 'talk' else act} {who}")
    return typed


def candidates(world: World, scene: SceneState) -> list[str]:
    """Every command that makes sense here and now, in a stable order."""
    story = scene.story
    place = world.places.get(scene.location or "")
    found: list[str] = []
    if place is not None:
        found += list(place.exits)
        found += [f"examine {_name(feature.names[0])}" for feature in place.features]
    for name in scene.cast:
        character = world.character(name)
        if character is None:
            continue
        who = character.short_name
        found += [f"{act} {who}" for act in PERSON_ACTS]
        found += [topic_command(who, topic) for topic in character.topics]
        # Every act the person answers (a bare "accuse Hob", "apologize to Tibby"); an item shown or given
        # only while carried (below).
        for reaction in character.reactions:
            if not (reaction.item and set(reaction.act) & {"give", "show", "bribe"}):
                found += reaction_commands(world, who, reaction)
        for item_id in scene.inventory:
            item = world.items.get(item_id)
            if item is not None:
                found += [f"give {item_word(item)} to {who}", f"show {item_word(item)} to {who}"]
    if story is not None:
        for item_id, where in story.item_places.items():
            item = world.items.get(item_id)
            if item is not None and where == scene.location:
                found += [f"take {item_word(item)}", f"examine {item_word(item)}"]
    for item_id in scene.inventory:
        item = world.items.get(item_id)
        if item is not None:
            found += [f"examine {item_word(item)}", f"drop {item_word(item)}"]
    # A world command tied to other places only answers "otherwise" here: a wasted turn.
    found += [command.say[0] for command in world.commands
              if not command.when.place or scene.location in command.when.place]
    found += list(VERBS)
    return list(dict.fromkeys(found))


EXIT_WEIGHT = 4.0
GOAL_WEIGHT = 6.0
ENDER_WEIGHT = 0.02
"""An ending found once is found again by the directed games; exploring past it finds the rest."""
"""Going somewhere opens more of a world than another question here, so exits are chosen more often."""


def situation(scene: SceneState) -> str:
    """Where the player is and what they have learned and hold: a command tried here is worth trying again
    once any of it changed (asking Edda about Tobin again, after Tobin's confession, shows her lie)."""
    flags = ",".join(sorted(name for name, value in scene.flags.items() if value))
    revealed = sum(len(a.revealed) for a in (scene.known or {}).values())
    return f"{scene.location}|{flags}|{','.join(sorted(scene.inventory))}|{revealed}"


class Chooser:
    """Picks the next command, favouring what was tried least often, in this place, across every game."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tried: Counter[tuple[str, str]] = Counter()
        self.enders: set[tuple[str, str]] = set()
        """(place, command) that ended a game: an exploring game avoids them, to see what lies past."""
        self.last: tuple[str, str] | None = None
        self.this_game: Counter[str] = Counter()

    def ended(self) -> None:
        """The last command chosen ended its game (an ending was reached)."""
        if self.last is not None:
            self.enders.add(self.last)

    def new_game(self) -> None:
        self.this_game.clear()

    def choose(self, options: list[str], place: str = "", exits: frozenset[str] = frozenset(),
               wanted: frozenset[str] = frozenset(), avoid: frozenset[str] = frozenset()) -> str:
        # Weight 1/(1+n)^2: an untried command is four times as likely as one tried once. What a directed
        # game wants (``wanted``) is weighted far above, less each time this game chose it; what it holds
        # back (``avoid``), and what ended a game before, far below.
        weights = [GOAL_WEIGHT / (1 + self.this_game[option]) ** 2 if option.casefold() in wanted else
                   ENDER_WEIGHT if (place, option) in self.enders or option.casefold() in avoid else
                   (EXIT_WEIGHT if option in exits else 1.0) / (1 + self.tried[(place, option)]) ** 2
                   for option in options]
        choice = self.rng.choices(options, weights=weights, k=1)[0]
        self.tried[(place, choice)] += 1
        self.this_game[choice] += 1
        self.last = (place, choice)
        return choice

    def take(self, scene: SceneState, command: str) -> str:
        """``command``, chosen outright (a directed game's frontier), counted as any choice is."""
        place = situation(scene)
        self.tried[(place, command)] += 1
        self.this_game[command] += 1
        self.last = (place, command)
        return command

    def next_in(self, world: World, scene: SceneState, wanted: frozenset[str] = frozenset(),
                avoid: frozenset[str] = frozenset()) -> str:
        """The next command in ``scene``; ``wanted`` and ``avoid``: commands (casefolded) a directed game
        seeks or holds back."""
        place = world.places.get(scene.location or "")
        exits = frozenset(place.exits) if place is not None else frozenset()
        return self.choose(candidates(world, scene), situation(scene), exits, wanted, avoid)
