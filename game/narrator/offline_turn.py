"""One offline turn: read the input, resolve what it names, act, let the world's beats run, report.

The runner works on a copy of the scene and collects prose and relation statements in a ``TurnLog``;
the result is the narration, the World IR and the next ``SceneState``. Randomness comes only from a
generator seeded by the request, so the same seed and input always tell the same turn.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import cast

from game.narrator.base import NarrationRequest
from game.narrator.offline_parse import DIRECTION_WORDS, Intent, parse
from game.narrator.offline_rules import RelationView, Rules, TurnLog
from game.narrator.offline_state import Play
from game.narrator.offline_text import choose, join_words, tidy
from game.world import CharacterDef, World
from game.world.ir import GRAPH_KINDS, EntityKind, IREntity, WorldIR
from game.world.scene import SceneState
from game.world.schema import DIRECTIONS, ITEM_ACTS, TOPIC_ACTS, Feature, Item, Reaction, Topic
from game.world.words import ARTICLES, clean, strip_articles

DEFAULT_REPLIES: dict[str, str] = {
    "unknown": "Nothing comes of that.",
    "no_such": "You see no {thing} here.",
    "nobody": "There is no one here to talk to.",
    "not_here": "{name} isn't here.",
    "no_exit": "You can't go that way.",
    "wait": "Time passes.",
    "no_topic": "{name} has nothing to tell you about that.",
    "think": "You stop and think.",
}
DEFAULT_REFUSALS: dict[str, str] = {
    "talk": "{name} gives you a nod, and nothing more.",
    "help": "{name} doesn't seem to need your help just now.",
    "give": "{name} doesn't want {thing}.",
    "show": "{name} glances at {thing}, unmoved.",
    "threaten": "{name} hears the threat out, and remembers it.",
    "bribe": "{name} won't be bought, not with that.",
    "accuse": "{name} stares at you. \"Say that again when you can prove it.\"",
    "lie": "{name} hears you out and doesn't believe a word.",
    "follow": "{name} isn't going anywhere you can follow.",
    "warn": "{name} listens, but doesn't seem worried.",
}
SELF_WORDS = frozenset({"me", "myself", "self", "yourself"})
PRONOUNS = frozenset({"him", "her", "them", "they", "he", "she"})
HERE_WORDS = frozenset({"here", "around", "room", "place", "surroundings"})


IR_KINDS: dict[str, EntityKind] = {node_type: cast(EntityKind, kind) for kind, node_type in GRAPH_KINDS.items()}
"""A graph node type to the World IR kind that names it: ``GRAPH_KINDS`` the other way round."""


@dataclass
class TurnOutcome:
    """A told turn: its prose, its World IR and the scene after it."""

    text: str
    world_ir: WorldIR
    scene: SceneState


class TurnRunner:
    """Tells one turn. Create one per request; ``run`` may be awaited once."""

    def __init__(self, world: World, request: NarrationRequest, base_seed: int = 0) -> None:
        self.world = world
        self.request = request
        self.play = Play.from_scene(request.scene, world)
        self.rng = random.Random(
            f"{base_seed}:{request.seed}:{request.scene.rng_state}:{request.turn}:{request.player_input}"
        )
        self.log = TurnLog()
        self.view = RelationView(world, request.graph)
        self.rules = Rules(world, self.play, self.view, self.log, request.turn)
        self.acted_on: list[str] = []
        self.followable: dict[str, str] = {}
        self.handlers: dict[str, Callable[[Intent], Awaitable[None]]] = {
            "look": self.look, "examine": self.examine, "inventory": self.inventory, "wait": self.wait,
            "exits": self.exits, "think": self.think, "go": self.go, "take": self.take, "drop": self.drop,
            "give": self.give, "give2": self.give, "show": self.give, "show2": self.give, "talk": self.talk,
            "ask": self.converse, "tell": self.converse, "help": self.act, "threaten": self.act,
            "bribe": self.bribe, "accuse": self.act, "lie": self.act, "follow": self.follow, "warn": self.act,
            "say": self.say, "again": self.again, "empty": self.empty, "unknown": self.unknown,
        }

    async def run(self) -> TurnOutcome:
        play = self.play
        self.followable, play.departures = play.departures, {}
        line = self.request.player_input
        if not await self.custom_command(line):
            intent = parse(line)
            await self.handlers[intent.verb](intent)
            if intent.verb not in {"again", "empty"}:
                play.last_input = line
        else:
            play.last_input = line
        ending_before = self.request.scene.ending
        if self.log.time_passes and play.ending is None:
            await self.run_beats()
        if play.ending is not None and ending_before is None:
            ending = self.world.endings[play.ending]
            self.log.say(f"**{ending.title}**")
            if ending.text:
                self.log.say(self.world.text(ending.text))
        if not self.log.paragraphs:
            self.log.say(self.reply("wait"))
        return TurnOutcome(self.log.text, self.world_ir(), play.to_scene(self.world, self.rng.randrange(2**31)))

    # ------------------------------------------------------------------------------------ helpers

    def reply(self, key: str, **fill: str) -> str:
        variants = getattr(self.world.replies, key, None)
        text = choose(variants, self.rng) if variants else DEFAULT_REPLIES[key]
        return _fill(text, fill)

    def say_text(self, variants: list[str]) -> str:
        """Say one of ``variants`` and return it as said, so evidence is quoted from the prose itself."""
        text = tidy(self.world.text(choose(variants, self.rng)))
        self.log.say(text)
        return text

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
        if place.exits:
            options.append(f"go {next(iter(place.exits))}")
        return f"You could {join_words(options, 'or')}."

    def fail(self, text: str) -> None:
        """A reply to something that could not be done: no time passes, so no beat fires."""
        self.log.say(text)
        self.log.time_passes = False

    def character_named(self, phrase: str) -> CharacterDef | None:
        phrase = phrase.strip()
        for form in (phrase, strip_articles(phrase), f"the {strip_articles(phrase)}"):
            found = self.world.character(form)
            if found is not None:
                return found
        words = strip_articles(phrase).split()
        if len(words) == 1 and len(words[0]) >= 3:
            matches = [c for c in self.world.characters
                       if words[0] in {w.casefold() for n in c.names for w in n.split()}]
            if len(matches) == 1:
                return matches[0]
        return None

    def present_character(self, phrase: str) -> CharacterDef | None:
        """The individual ``phrase`` names if they are here; otherwise says why not and returns None."""
        present = self.play.present(self.world)
        if not phrase:
            if len(present) == 1:
                return self.world.character(present[0])
            partner = self.play.partner
            if partner in present and partner is not None:
                return self.world.character(partner)
            if not present:
                self.fail(self.reply("nobody"))
            else:
                names = join_words([self.short(n) for n in present], "or")
                self.fail(f"Who do you mean? {names} could answer.")
            return None
        if phrase.strip() in PRONOUNS and self.play.partner in present:
            phrase = self.play.partner or phrase
        if strip_articles(phrase) in SELF_WORDS:
            self.fail("You know your own mind well enough. Find someone else to put it to.")
            return None
        character = self.character_named(phrase)
        if character is None:
            here = join_words([self.short(n) for n in present])
            tail = f" {here} {'is' if len(present) == 1 else 'are'} here." if present else ""
            self.fail(f"No one here answers to \"{phrase}\".{tail}")
            return None
        if character.type != "individual":
            self.fail(f"{character.name} is more than one person; find someone who speaks for them.")
            return None
        if character.name not in present:
            self.fail(self.reply("not_here", name=character.short_name))
            return None
        self.touch(character.name)
        return character

    def touch(self, name: str) -> None:
        if name not in self.acted_on:
            self.acted_on.append(name)

    def visible_items(self) -> list[str]:
        present = set(self.play.present(self.world))
        held_here = [i for i, who in self.play.held.items() if who in present]
        return [*self.play.inventory, *self.play.items_here(), *held_here]

    def item_named(self, phrase: str, among: list[str]) -> Item | None:
        wanted = strip_articles(clean(phrase))
        if not wanted:
            return None
        items = [self.world.items[i] for i in among if i in self.world.items]
        for item in items:
            if wanted == item.id or wanted in {strip_articles(clean(n)) for n in item.names}:
                return item
        words = set(wanted.split())
        partial = [i for i in items if any(words <= set(strip_articles(clean(n)).split()) for n in i.names)]
        return partial[0] if partial else None

    def feature_named(self, phrase: str) -> Feature | None:
        wanted = strip_articles(clean(phrase))
        features = self.world.places[self.play.location].features
        for feature in features:
            if wanted in {strip_articles(clean(n)) for n in feature.names}:
                return feature
        words = set(wanted.split())
        for feature in features:
            if any(words <= set(strip_articles(clean(n)).split()) for n in feature.names):
                return feature
        return None

    # ------------------------------------------------------------------------------------ places

    def describe(self, full: bool) -> None:
        for paragraph in describe_place(self.world, self.play, full):
            self.log.say(paragraph)

    def exits_line(self) -> str:
        return exits_line(self.world, self.play.location)

    async def look(self, intent: Intent) -> None:
        self.describe(full=True)

    async def exits(self, intent: Intent) -> None:
        self.log.say(self.exits_line())

    async def go(self, intent: Intent) -> None:
        play = self.play
        place = self.world.places[play.location]
        wanted = intent.obj
        direction: str | None = DIRECTION_WORDS.get(wanted)
        if direction is None and strip_articles(wanted) in {"back", "back the way i came"} and play.previous:
            direction = next((d for d, p in place.exits.items() if p == play.previous), None)
        if direction is None:
            target = strip_articles(clean(wanted))
            for d, place_id in place.exits.items():
                name = strip_articles(clean(self.world.places[place_id].name))
                if target in {place_id, name} or (target and set(target.split()) <= set(name.split())):
                    direction = d
                    break
        if direction is None and self._names_this_place(wanted):
            self.fail(f"You are already at {_mid_sentence(place.name)}.")
            return
        if direction is None or direction not in place.exits:
            self.fail(f"{self.reply('no_exit')} {self.exits_line()}")
            return
        for barrier in place.barriers:
            if barrier.exit == direction and not await self.rules.holds(barrier.requires):
                self.fail(self.world.text(choose(barrier.text, self.rng)))
                return
        destination = place.exits[direction]
        first_visit = destination not in play.visited
        play.move_player(destination)
        self.describe(full=first_visit or play.verbose)

    def _names_this_place(self, phrase: str) -> bool:
        place = self.world.places[self.play.location]
        wanted = strip_articles(clean(phrase))
        return bool(wanted) and wanted in {place.id, strip_articles(clean(place.name))}

    # ------------------------------------------------------------------------------------ things

    async def examine(self, intent: Intent) -> None:
        phrase = intent.obj
        wanted = strip_articles(clean(phrase))
        if wanted in SELF_WORDS:
            self.log.say(f"You are {self.world.player.name}. {self.world.text(self.world.player.summary)}")
            return
        if wanted in HERE_WORDS or self._names_this_place(phrase):
            self.describe(full=True)
            return
        feature = self.feature_named(phrase)
        if feature is not None:
            text = self.say_text(feature.text)
            self.rules.apply(feature.effects, text)
            return
        item = self.item_named(phrase, self.visible_items())
        if item is not None:
            self.log.item(item.id)
            self.log.say(self.world.text(item.description))
            return
        character = self.character_named(phrase)
        if character is not None and character.name in self.play.present(self.world):
            self.touch(character.name)
            self.log.say(self.world.text(character.description or character.summary))
            return
        if character is not None:
            self.fail(self.reply("not_here", name=character.short_name))
            return
        self.fail(self.reply("no_such", thing=wanted or phrase))

    async def inventory(self, intent: Intent) -> None:
        names = [self.world.items[i].name for i in self.play.inventory if i in self.world.items]
        if not names:
            self.log.say("You are carrying nothing but the clothes you stand in.")
        else:
            self.log.say(f"You are carrying {join_words(names)}.")

    async def take(self, intent: Intent) -> None:
        play = self.play
        if strip_articles(intent.obj) in {"all", "everything"}:
            portable = [i for i in play.items_here() if self.world.items[i].portable]
            if not portable:
                self.fail("There is nothing here you can carry off.")
                return
            for item_id in portable:
                await self._take(self.world.items[item_id])
            return
        item = self.item_named(intent.obj, self.visible_items())
        if item is None:
            self.fail(self.reply("no_such", thing=strip_articles(intent.obj)))
        elif play.carries(item.id):
            self.fail(f"You already have {item.name}.")
        elif item.id in play.held:
            self.fail(f"{self.short(play.held[item.id])} has {item.name}, and isn't letting go of it.")
        elif not item.portable:
            self.fail(self.world.text(item.fixed_text) if item.fixed_text else f"{_capital(item.name)} stays where it is.")
        else:
            await self._take(item)

    async def _take(self, item: Item) -> None:
        self.play.give_player(item.id)
        self.log.item(item.id)
        text = tidy(self.world.text(item.take_text)) if item.take_text else f"You take {item.name}."
        self.log.say(text)
        self.rules.apply(item.on_take, text)

    async def drop(self, intent: Intent) -> None:
        item = self.item_named(intent.obj, self.play.inventory)
        if item is None:
            self.fail(f"You aren't carrying any {strip_articles(intent.obj)}.")
            return
        self.play.inventory.remove(item.id)
        self.play.item_places[item.id] = self.play.location
        self.log.item(item.id)
        self.log.say(f"You put down {item.name}.")

    # ------------------------------------------------------------------------------------ people

    async def talk(self, intent: Intent) -> None:
        character = self.present_character(intent.target)
        if character is None:
            return
        self.play.meet(character.name)
        self.play.partner = character.name
        if await self.react(character, "talk", quiet=True):
            return
        if character.greeting:
            self.say_text(character.greeting)
        else:
            self.log.say(_fill(DEFAULT_REFUSALS["talk"], {"name": character.short_name}))

    async def converse(self, intent: Intent) -> None:
        character = self.present_character(intent.target)
        if character is None:
            return
        self.play.meet(character.name)
        self.play.partner = character.name
        topic = intent.topic
        verb = intent.verb
        chosen = await self.pick_topic(character, verb, topic)
        if chosen is None:
            self.no_topic(character, verb)
            return
        index, entry = chosen
        if entry.once:
            self.play.used.append(f"topic:{character.name}:{index}")
        text = self.say_text(entry.reply)
        self.rules.apply(entry.effects, text)

    async def say(self, intent: Intent) -> None:
        """Speaking aloud: whoever you were talking to (or the only one here) answers if it touches a topic."""
        present = self.play.present(self.world)
        listener = self.play.partner if self.play.partner in present else (present[0] if len(present) == 1 else None)
        if listener is None:
            self.fail("Your words go out over the water. No one is near enough to answer."
                      if not present else f"You speak up, but nobody takes it as meant for them. {self.hint()}")
            return
        character = self.world.character(listener)
        assert character is not None
        self.touch(character.name)
        for verb in ("tell", "ask"):
            chosen = await self.pick_topic(character, verb, intent.topic)
            if chosen is not None:
                index, entry = chosen
                if entry.once:
                    self.play.used.append(f"topic:{character.name}:{index}")
                text = self.say_text(entry.reply)
                self.rules.apply(entry.effects, text)
                return
        self.log.say(f"{character.short_name} hears you out, and waits for something {character.short_name} can use.")

    async def pick_topic(self, character: CharacterDef, verb: str, phrase: str) -> tuple[int, Topic] | None:
        candidates = [
            (i, t) for i, t in enumerate(character.topics)
            if t.verb in (verb, "both") and f"topic:{character.name}:{i}" not in self.play.used
        ]
        for exact in (True, False):
            for index, topic in candidates:
                if self.topic_matches(phrase, topic.about, exact) and await self.rules.holds(topic.when):
                    return index, topic
        return None

    def topic_matches(self, phrase: str, keys: list[str], exact: bool = False) -> bool:
        wanted = _topic_words(phrase)
        if not wanted:
            return False
        for key in self.expand_keys(keys):
            words = _topic_words(key)
            if not words:
                continue
            if words == wanted:
                return True
            if not exact and (_contains(wanted, words) or _contains(words, wanted)):
                return True
        return False

    def expand_keys(self, keys: list[str]) -> list[str]:
        """A topic about a character or an item also answers to their other names."""
        expanded = list(keys)
        for key in keys:
            character = self.world.character(key)
            if character is not None:
                expanded.extend(character.names)
            item = self.world.items.get(key)
            if item is not None:
                expanded.extend(item.names)
        return expanded

    def no_topic(self, character: CharacterDef, verb: str) -> None:
        if character.unknown:
            self.say_text(character.unknown)
        else:
            self.log.say(self.reply("no_topic", name=character.short_name))
        open_topics = [t.about[0] for i, t in enumerate(character.topics)
                       if t.when.is_empty() and t.verb in (verb, "both")
                       and f"topic:{character.name}:{i}" not in self.play.used]
        if open_topics:
            self.log.paragraphs[-1] += f" {character.short_name} might talk about {join_words(open_topics[:3], 'or')}."

    async def react(self, character: CharacterDef, act: str, item: Item | None = None, about: str = "",
                    quiet: bool = False) -> bool:
        """Run the first reaction of ``character`` to ``act`` that matches; say its refusal when none does."""
        for index, reaction in enumerate(character.reactions):
            if not self._reaction_fits(reaction, act, item, about, index, character):
                continue
            if not await self.rules.holds(reaction.when):
                continue
            if reaction.once:
                self.play.used.append(f"reaction:{character.name}:{index}")
            text = self.say_text(reaction.reply)
            takes = reaction.takes if reaction.takes is not None else act in {"give", "bribe"}
            if takes and item is not None and self.play.carries(item.id):
                self.play.inventory.remove(item.id)
                self.play.held[item.id] = character.name
            self.rules.apply(reaction.effects, text)
            return True
        if quiet:
            return False
        refusal = character.refusals.get(act)  # type: ignore[call-overload]
        text = choose(refusal, self.rng) if refusal else DEFAULT_REFUSALS[act]
        self.log.say(self.world.text(_fill(text, {"name": character.short_name, "thing": item.name if item else "it"})))
        return False

    def _reaction_fits(self, reaction: Reaction, act: str, item: Item | None, about: str, index: int,
                       character: CharacterDef) -> bool:
        if act not in reaction.act:
            return False
        if act in ITEM_ACTS and reaction.item is not None and (item is None or reaction.item != item.id):
            return False
        if act in TOPIC_ACTS and reaction.about and about and not self.topic_matches(about, reaction.about):
            return False
        return not (reaction.once and f"reaction:{character.name}:{index}" in self.play.used)

    async def act(self, intent: Intent) -> None:
        character = self.present_character(intent.target)
        if character is None:
            return
        self.play.partner = character.name
        await self.react(character, intent.verb, about=intent.topic)

    async def give(self, intent: Intent) -> None:
        act = "show" if intent.verb.startswith("show") else "give"
        if intent.verb in {"give2", "show2"}:
            split = self._split_object_and_person(intent.obj)
            if split is None:
                self.fail(f"{act.capitalize()} what to whom? Try \"{act} the coin to Edda\"."
                          .replace("the coin to Edda", self._example_pair()))
                return
            item_phrase, person = split
        else:
            item_phrase, person = intent.obj, intent.target
        item = self.item_named(item_phrase, self.play.inventory)
        if item is None:
            self.fail(f"You aren't carrying any {strip_articles(item_phrase)}.")
            return
        character = self.present_character(person)
        if character is None:
            return
        self.log.item(item.id)
        self.play.partner = character.name
        if act == "give" and item.currency:
            # Handing someone money is a bribe unless they have a reaction to the gift itself.
            if not await self.react(character, "give", item=item, quiet=True):
                await self.react(character, "bribe", item=item)
            return
        await self.react(character, act, item=item)

    def _split_object_and_person(self, phrase: str) -> tuple[str, str] | None:
        """``give mira the coin`` or ``give coin mira``: find where the person and the thing divide."""
        words = phrase.split()
        for cut in range(1, len(words)):
            left, right = " ".join(words[:cut]), " ".join(words[cut:])
            if self.character_named(left) and self.item_named(right, self.play.inventory):
                return right, left
            if self.item_named(left, self.play.inventory) and self.character_named(right):
                return left, right
        return None

    def _example_pair(self) -> str:
        present = self.play.present(self.world)
        thing = self.world.items[self.play.inventory[0]].name if self.play.inventory else "something"
        person = self.short(present[0]) if present else "someone"
        return f"{thing} to {person}"

    async def bribe(self, intent: Intent) -> None:
        character = self.present_character(intent.target)
        if character is None:
            return
        if intent.obj:
            item = self.item_named(intent.obj, self.play.inventory)
            if item is None:
                self.fail(f"You aren't carrying any {strip_articles(intent.obj)}.")
                return
        else:
            money = [self.world.items[i] for i in self.play.inventory if self.world.items[i].currency]
            if not money:
                self.fail(f"You have nothing {character.short_name} would take.")
                return
            item = money[0]
        self.log.item(item.id)
        self.play.partner = character.name
        await self.react(character, "bribe", item=item)

    async def follow(self, intent: Intent) -> None:
        character = self.character_named(intent.target) if intent.target else None
        if character is not None and character.name in self.followable:
            destination = self.followable[character.name]
            self.touch(character.name)
            self.log.say(f"You follow {character.short_name} to {_mid_sentence(self.world.places[destination].name)}.")
            first_visit = destination not in self.play.visited
            self.play.move_player(destination)
            self.describe(full=first_visit or self.play.verbose)
            return
        await self.act(intent)

    # ------------------------------------------------------------------------------------ time and talk

    async def wait(self, intent: Intent) -> None:
        self.log.say(self.reply("wait"))

    async def think(self, intent: Intent) -> None:
        goal = self.play.goal
        if goal:
            self.log.say(f"{self.reply('think')} {self.world.text(goal)}")
        else:
            self.log.say(f"{self.reply('think')} {self.hint()}")

    async def again(self, intent: Intent) -> None:
        last = self.play.last_input
        if not last or parse(last).verb == "again":
            self.fail("There is nothing to do again yet.")
            return
        if not await self.custom_command(last):
            following = parse(last)
            await self.handlers[following.verb](following)

    async def empty(self, intent: Intent) -> None:
        self.fail(f"You hesitate. {self.hint()}")

    async def unknown(self, intent: Intent) -> None:
        first = intent.obj.split()[0] if intent.obj else ""
        character = self.character_named(intent.obj)
        if character is not None and character.name in self.play.present(self.world):
            self.fail(f"What about {character.short_name}? You could talk to them, ask them about something, "
                      "or help, give, show, threaten, bribe, accuse, warn or follow.")
            return
        if first in {"kill", "attack", "hit", "fight", "punch", "stab"}:
            self.fail("Violence would end more than this conversation. Threaten, if you must.")
            return
        self.fail(f"{self.reply('unknown')} {self.hint()}")

    async def custom_command(self, line: str) -> bool:
        """The world's own verbs ("ring the bell"); True when one matched (whether or not it could run)."""
        wanted = strip_articles(clean(line))
        matching = [c for c in self.world.commands if wanted in {strip_articles(clean(s)) for s in c.say}]
        if not matching:
            return False
        for command in matching:
            key = f"command:{command.id}"
            if command.once and key in self.play.used:
                continue
            if await self.rules.holds(command.when):
                if command.once:
                    self.play.used.append(key)
                text = self.say_text(command.reply)
                self.rules.apply(command.effects, text)
                return True
        refusal = next((c.otherwise for c in matching if c.otherwise), None)
        self.fail(self.world.text(choose(refusal, self.rng)) if refusal else f"{self.reply('unknown')} {self.hint()}")
        return True

    # ------------------------------------------------------------------------------------ beats and IR

    async def run_beats(self) -> None:
        play = self.play
        for beat in self.world.beats:
            if play.ending is not None:
                return
            if beat.once and beat.id in play.fired:
                continue
            if not await self.rules.holds(beat.when):
                continue
            play.fired[beat.id] = self.request.turn
            seen = not beat.visible or play.location in beat.visible
            text = self.say_text(beat.text) if beat.text and seen else ""
            self.rules.apply(beat.effects, text)

    def world_ir(self) -> WorldIR:
        play = self.play
        present = play.present(self.world)
        on_stage = [*present, *(n for n in self.acted_on if n not in present)]
        named = [*on_stage, *(n for n in self.log.named if n not in on_stage)]
        entities = [self.entity(name) for name in named]
        place = self.world.places[play.location]
        entities.append(IREntity(name=place.name, kind="place"))
        for item_id in self.log.items:
            entities.append(IREntity(name=self.world.items[item_id].name, kind="item"))
        return WorldIR(
            characters_present=[n for n in on_stage if not self.world.is_player(n)][:40],
            entities=entities[:60],
            relations=self.log.relations[:40],
            ended_relations=self.log.ended[:20],
            next_cast=present[:40],
            location=play.location,
        )

    def entity(self, name: str) -> IREntity:
        if self.world.is_player(name):
            player = self.world.player
            return IREntity(name=player.name, kind="character", summary=self.world.text(player.summary),
                            aliases=list(player.aliases), labels=list(player.labels))
        character = self.world.character(name)
        assert character is not None
        return IREntity(name=character.name, kind=IR_KINDS[character.type],
                        summary=self.world.text(character.summary), aliases=list(character.aliases),
                        labels=list(character.labels))


def describe_place(world: World, play: Play, full: bool) -> list[str]:
    """The player's place as paragraphs: its name, its description with who and what is here, the ways on.

    ``full`` gives the whole description (first visits, ``look``, verbose mode), otherwise the brief one.
    """
    place = world.places[play.location]
    body = place.description if full or not place.brief else place.brief
    extras: list[str] = []
    for name in play.present(world):
        character = world.character(name)
        assert character is not None
        line = character.here if play.location == character.location else character.away
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
        ways.append(f"{direction} to {_mid_sentence(target.name)}")
    if not ways:
        return "There is no way on from here."
    return f"From here you can go {join_words(ways, 'or')}."


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _mid_sentence(name: str) -> str:
    """``The Salt Quay`` -> ``the Salt Quay``: a place name inside a sentence."""
    first, _, rest = name.partition(" ")
    return f"{first.lower()} {rest}" if first in {"The", "A", "An"} and rest else name


def _topic_words(text: str) -> tuple[str, ...]:
    words = [w.strip("'") for w in clean(text).replace("'s ", " ").split()]
    return tuple(w for w in words if w and w not in ARTICLES)


def _contains(outer: tuple[str, ...], inner: tuple[str, ...]) -> bool:
    """Whether ``inner`` appears in ``outer`` as a run of whole words."""
    n = len(inner)
    return any(outer[i:i + n] == inner for i in range(len(outer) - n + 1))

