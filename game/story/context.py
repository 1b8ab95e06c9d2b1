"""The turn in progress, as every action sees it: the world, the working state, the log, the rules.

Actions reach everything through one ``Turn``, so a new action needs no new plumbing. Helpers here are
the ones several families share: the world's replies, saying a text, refusing, and finding the person
a phrase means among those present (the check nearly every people action starts with).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from game.features.attitudes.model import AttitudeView
from game.features.memories.book import MemoryView
from game.graph.ports import GraphReader
from game.mind.context import ComposedContext
from game.story.log import TurnLog
from game.story.prose import agreement, capital, choose, fill, join_words, pick
from game.story.relations import RelationView
from game.story.remembered import Remembered
from game.story.resolve import character_named
from game.story.rules import Rules
from game.story.state import Play
from game.world import CharacterDef, World
from game.world.scene import SceneState
from game.world.schema import Detail
from game.world.words import strip_articles

DEFAULT_REPLIES: dict[str, str] = {
    "unknown": "Nothing comes of that.",
    "no_such": "You see no {thing} here.",
    "nobody": "There is no one here to talk to.",
    "not_here": "{name} isn't here.",
    "no_exit": "You can't go that way.",
    "wait": "Time passes.",
    "no_topic": "{name} has nothing to tell you about that.",
    "think": "You stop and think.",
    "no_exit_indoors": "There's no way out in that direction.",
    "unknown_subject": "{name} doesn't know about {thing}.",
    "not_news": "{name} hears you out about {thing}, and has nothing to add.",
    "told_before": "{name} has told you this already",
    "scenery": "You look at the {thing}. There's nothing more to see than you have already seen.",
    "withhold": "\"You'll get nothing from me, the way things stand between us,\" {name} says.",
}
SELF_WORDS = frozenset({"me", "myself", "self", "yourself"})
PRONOUNS = frozenset({"him", "her", "them", "they", "he", "she"})
OBJECT_PRONOUNS: dict[str | None, str] = {"he": "him", "she": "her", "they": "them", None: "them"}


@dataclass(frozen=True)
class Refusal:
    """A check's answer when an action cannot happen: said to the player, and no time passes."""

    message: str


@dataclass
class Turn:
    """One turn being told. ``rng`` is seeded by the request, so the same input tells the same turn."""

    world: World
    number: int
    player_input: str
    before: SceneState
    play: Play
    rng: random.Random
    log: TurnLog
    rules: Rules
    memory: Remembered
    """What the people here remember of the player, and the acts this turn states for their memories."""
    acted_on: list[str] = field(default_factory=list)
    mentioned_thing: str | None = None
    mentioned_people: list[str] = field(default_factory=list)
    followable: dict[str, str] = field(default_factory=dict)
    greeting: tuple[str, int] | None = None
    """Who greeted the player this turn and the paragraph it is: a cold word after it takes its place."""
    features: Mapping[str, Any] = field(default_factory=dict)
    """Each registered feature's state as the turn began (``game.registry``): deeds and who knows them."""
    mind: ComposedContext = field(default_factory=ComposedContext)
    """What the narrator is told this turn, section by section (the model reads the same): an action asks
    ``mind.about_named(name)`` or ``mind.facts(section, node_id)`` for what a character remembers or feels."""

    @classmethod
    def start(cls, world: World, scene: SceneState, graph: GraphReader, number: int, player_input: str,
              seed: str, mind: ComposedContext | None = None,
              attitudes: AttitudeView | None = None, memories: MemoryView | None = None) -> Turn:
        """A turn over a working copy of ``scene``; ``seed`` says which variants of a text it picks."""
        play = Play.from_scene(scene, world)
        if play.story.clock is None:
            # A save from before the story clock: every turn it holds took time then.
            play.story.clock = max(0, number - 1)
        rng = random.Random(f"{seed}:{scene.rng_state}:{number}:{player_input}")
        log = TurnLog()
        view = RelationView(world, graph)
        rules = Rules(world, play, view, log, play.story.clock + 1, rng, attitudes)
        return cls(world, number, player_input, scene, play, rng, log, rules, Remembered(world, view, memories),
                   mind=mind or ComposedContext())

    # ------------------------------------------------------------------------------------ saying

    def reply(self, key: str, **values: str) -> str:
        """One of the world's replies for ``key`` (or the default), with ``{name}`` and the like filled."""
        variants = getattr(self.world.replies, key, None)
        text = choose(variants, self.rng) if variants else DEFAULT_REPLIES[key]
        if "thing" in values:
            values = {**agreement(values["thing"]), **values}
        return capital(fill(text, values))

    def say_cold(self, name: str, text: str, cold: bool) -> None:
        """Say ``text`` of ``name``'s; when ``cold`` (news of a harm, a grievance remembered) it replaces
        the greeting they gave this turn, so one reply has one tone ("What can the Guild do for you?"
        never stands beside "does not smile")."""
        at = self.greeting
        if cold and at is not None and at[0] == name and at[1] < len(self.log.paragraphs):
            self.log.paragraphs[at[1]] = text
            self.greeting = None
            return
        self.log.say(text)

    def pick(self, variants: list[str]) -> str:
        """One of a content text's variants as prose, to say and to quote as evidence."""
        return pick(self.world, variants, self.rng)

    def say_text(self, variants: list[str]) -> str:
        """Say one of ``variants`` and return it as said, so evidence is quoted from the prose itself."""
        text = self.pick(variants)
        self.log.say(text)
        return text

    async def details(self, details: Sequence[Detail]) -> list[str]:
        """The detail sentences whose conditions hold now, in order, each as one of its variants."""
        return [self.pick(d.text) for d in details if await self.rules.holds(d.when)]

    def fail(self, text: str) -> None:
        """A reply to something that could not be done: no time passes, so no beat fires."""
        self.log.say(text)
        self.log.time_passes = False

    def short(self, name: str) -> str:
        character = self.world.character(name)
        return character.short_name if character else name

    def hint(self) -> str:
        """A nudge built from the scene: someone to talk to, somewhere to go."""
        options = ["look around"]
        people = self.play.present(self.world)
        if people:
            options.append(f"talk to {self.short(people[0])}")
        place = self.world.places[self.play.location]
        options += [f"go {direction}" for direction in place.exits]  # every way on: the crack's "down" too
        return f"You could {join_words(options, 'or')}."

    # ------------------------------------------------------------------------------------ people

    def touch(self, name: str) -> None:
        """Note someone the player acted on: they are on stage in this turn's World IR."""
        if name not in self.acted_on:
            self.acted_on.append(name)

    def present_character(self, phrase: str) -> CharacterDef | Refusal:
        """The individual ``phrase`` names if they are here; otherwise why not.

        An empty phrase means the only person here, or the one the player was talking to.
        """
        present = self.play.present(self.world)
        partner = self.play.story.partner
        if not phrase:
            if len(present) == 1:
                return self._character(present[0])
            if partner in present and partner is not None:
                return self._character(partner)
            if not present:
                return Refusal(self.reply("nobody"))
            names = join_words([self.short(n) for n in present], "or")
            return Refusal(f"Whom do you want to ask? {names} could answer.")
        if phrase.strip() in PRONOUNS:
            # Left unresolved (pronouns.resolve found no one it could mean): ask rather than guess.
            names = join_words([self.short(n) for n in present], "or")
            return Refusal(f"Who do you mean by \"{phrase.strip()}\"?" + (f" {names} could answer." if present else ""))
        if strip_articles(phrase) in SELF_WORDS:
            return Refusal("You know your own mind well enough. Find someone else to put it to.")
        character = character_named(self.world, phrase)
        if character is None:
            here = join_words([self.short(n) for n in present])
            tail = f" {here} {'is' if len(present) == 1 else 'are'} here." if present else ""
            return Refusal(f"No one here answers to \"{phrase}\".{tail}")
        if not self.play.knows(character.name):
            return self.stranger()
        if character.type != "individual":
            return Refusal(f"{character.name} is more than one person; find someone who speaks for them.")
        if character.name not in present:
            return Refusal(self.reply("not_here", name=character.short_name))
        self.touch(character.name)
        return character

    def stranger(self) -> Refusal:
        """The answer for a name the player has not heard yet: it must not say who that is, or where.

        Nor does it repeat the name: the narration the player reads is where they hear of people.
        """
        return Refusal("You don't know anyone by that name.")

    def unnamed(self, refusal: Refusal) -> Refusal:
        """``refusal``, unless it repeats the name of someone the player has not heard of.

        A refusal often echoes the player's words ("There's no isolde here"); said back, a stranger's
        name would be a name the player has now read, as if the story had told it.
        """
        if self.play.known is None:
            return refusal
        said, typed = refusal.message.casefold(), self.player_input.casefold()
        for character in self.world.characters:
            if self.play.knows(character.name):
                continue
            for name in character.names:
                pattern = rf"(?<!\w){re.escape(name.casefold())}(?!\w)"
                # Only an echo: a world's own refusal that names someone is the story telling of them.
                if re.search(pattern, said) and re.search(pattern, typed):
                    return self.stranger()
        return refusal

    def _character(self, name: str) -> CharacterDef:
        character = self.world.character(name)
        assert character is not None, f"{name} is placed in the story but not in the world"
        return character

    def visible_items(self) -> list[str]:
        """Items in reach of the eye: carried, lying here, or held by someone here."""
        present = set(self.play.present(self.world))
        held_here = [i for i, who in self.play.story.held.items() if who in present]
        return [*self.play.inventory, *self.play.items_here(), *held_here]
