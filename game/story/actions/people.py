"""Actions about people: talking, asking and telling, saying aloud, giving and showing, bribing, following,
and the acts a character may react to (help, threaten, accuse, lie, warn).

Checks find the person (they must be here, and one person, not a group); carrying out makes them the
player's partner in conversation; the report is the character's response (``responses``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from game.story.actions.base import Action
from game.story.actions.places import Arrival, arrive
from game.story.context import Refusal, Turn
from game.story.memory_lines import talk_again
from game.story.parser import Intent
from game.story.prose import fill, mid_sentence
from game.story.resolve import character_named, item_named
from game.story.responses import DEFAULT_REFUSALS, TopicVerb, answer_topic, no_topic, pick_topic, react
from game.story.tiers import COLD_TIERS, add_tier_line, tier_line
from game.story.word import pass_on, pass_on_item
from game.world import CharacterDef
from game.world.schema import Act, Item
from game.world.words import strip_articles


@dataclass(frozen=True)
class Address:
    """Someone spoken to or acted on, and what about (a topic, when the player named one)."""

    character: CharacterDef
    topic: str = ""


async def addressee(turn: Turn, intent: Intent) -> Address | Refusal:
    """The check most people actions start with: the person meant, here, and one person."""
    character = turn.present_character(intent.target)
    if isinstance(character, Refusal):
        return character
    mentioned = character_named(turn.world, intent.topic) if intent.topic else None
    if mentioned is not None and mentioned.name in {*turn.play.met, *turn.play.present(turn.world)}:
        turn.mentioned_people.append(mentioned.name)  # "ask lise about hob": now "him" may be Hob
    return Address(character, intent.topic)


class Talk(Action[CharacterDef]):
    async def check(self, turn: Turn, intent: Intent) -> CharacterDef | Refusal:
        return turn.present_character(intent.target)

    async def carry_out(self, turn: Turn, plan: CharacterDef) -> None:
        turn.play.meet(plan.name)
        turn.play.story.partner = plan.name

    async def report(self, turn: Turn, plan: CharacterDef) -> None:
        if await react(turn, plan, "talk", quiet=True):
            return
        line = tier_line(turn, plan)
        if line is not None and turn.rules.tier(plan.name) in COLD_TIERS:
            turn.log.say(line)  # someone cold to you does not greet you: the tier's line is all you get
            return
        if await turn.memory.has_met(plan.name):
            await talk_again(turn, plan)  # the greeting was their first meeting's, and it happened once
            if line is not None and turn.log.paragraphs:
                turn.log.paragraphs[-1] += f" {line}"
            turn.greeting = (plan.name, len(turn.log.paragraphs) - 1)
            return
        if plan.greeting:
            turn.say_text(plan.greeting)
        else:
            turn.log.say(fill(DEFAULT_REFUSALS["talk"], {"name": plan.short_name}))
        if line is not None:
            turn.log.paragraphs[-1] += f" {line}"
        turn.greeting = (plan.name, len(turn.log.paragraphs) - 1)


class Converse(Action[Address]):
    """``ask Mira about the ledger``, ``tell Tomas about the raid``: a topic of theirs, or nothing to say."""

    def __init__(self, verb: TopicVerb) -> None:
        self.verb: TopicVerb = verb

    async def check(self, turn: Turn, intent: Intent) -> Address | Refusal:
        return await addressee(turn, intent)

    async def carry_out(self, turn: Turn, plan: Address) -> None:
        turn.play.meet(plan.character.name)
        turn.play.story.partner = plan.character.name

    async def report(self, turn: Turn, plan: Address) -> None:
        if self.verb == "tell":
            # What the player knows about the person named is passed on, whatever the listener answers.
            await pass_on(turn, plan.character, plan.topic)
        chosen = await pick_topic(turn, plan.character, self.verb, plan.topic)
        if chosen is None:
            await no_topic(turn, plan.character, self.verb, plan.topic)
            return
        answer_topic(turn, plan.character, *chosen)


SPOKEN_GREETING = re.compile(
    r"^(?:hello|hi|hey|hullo|greetings|good (?:morning|afternoon|evening|day))(?: there)?(?: \S+)?$")
"""A greeting said aloud ('"Hello', '"hi Hob'; in Say mode every line is speech): it is met as
``talk to`` is, not heard out as if it were news."""


THANKS = re.compile(r"^(?:thank you|thanks|thank ye|cheers)\b")

SPOKEN_QUESTION = re.compile(
    r"^(?:who|what|where|when|why|how|which|did|do|does|were|was|is|are|can|could|will|would|have|has|had)\b",
    re.IGNORECASE)
"""Words said aloud that ask something ('"Where were you that night, captain?'): a question no topic
answers gets the person's own answer to what they cannot or will not say, not a nod as if it were news."""


class Say(Action[Address]):
    """Speaking aloud: whoever you were talking to (or the only one here) answers if it touches a topic,
    and greets you back when it is a greeting."""

    async def check(self, turn: Turn, intent: Intent) -> Address | Refusal:
        if intent.target:  # "hob, the sluice was opened on purpose"
            return await addressee(turn, intent)
        present = turn.play.present(turn.world)
        partner = turn.play.story.partner
        listener = partner if partner in present else (present[0] if len(present) == 1 else None)
        called = _vocative(turn, intent.topic, present)
        if called is not None and (called[2] or listener in (None, called[0].name)):
            # '"Hello, Lise."': said to whoever it calls. A name inside the words ('"Who owes Maud money?'
            # said to Pell) is who they are about, and the one you are talking to answers.
            turn.touch(called[0].name)
            return Address(called[0], called[1])
        if listener is None:
            return Refusal("Your words go out over the water. No one is near enough to answer."
                           if not present else f"You speak up, but nobody takes it as meant for them. {turn.hint()}")
        character = turn.world.character(listener)
        assert character is not None
        return Address(character, intent.topic)

    async def carry_out(self, turn: Turn, plan: Address) -> None:
        turn.touch(plan.character.name)

    async def report(self, turn: Turn, plan: Address) -> None:
        character = plan.character
        verbs: tuple[TopicVerb, ...] = ("tell", "ask")
        for verb in verbs:
            chosen = await pick_topic(turn, character, verb, plan.topic)
            if chosen is not None:
                answer_topic(turn, character, *chosen)
                return
        if THANKS.match(plan.topic):
            turn.log.say(f"{character.short_name} takes your thanks with a short nod.")
            add_tier_line(turn, character)
            return
        if SPOKEN_GREETING.match(plan.topic):
            talk = Talk()
            await talk.carry_out(turn, character)
            await talk.report(turn, character)
            return
        if SPOKEN_QUESTION.match(plan.topic):
            await no_topic(turn, character, "ask", plan.topic)
            return
        they = character.pronoun or character.short_name
        turn.log.say(f"{character.short_name} hears you out, and waits for something {they} can use.")
        add_tier_line(turn, character)  # nothing to say to it is an ordinary reply: it shows their tier


def _vocative(turn: Turn, said: str, present: list[str]) -> tuple[CharacterDef, str, bool] | None:
    """The person here that words said aloud name, the words without the name, and whether the name calls
    them (it opens or closes the words, or commas set it apart: "Lise, what about the bell?", "Hello Lise",
    "Well, Lise, I ...") rather than speaks of them ("Who owes Maud money?")."""
    words = said.casefold()
    bare = re.sub(r"[\s?.!…\"'”’]+$", "", words)
    for name in present:
        character = turn.world.character(name)
        if character is None:
            continue
        for called in sorted(character.names, key=len, reverse=True):
            pattern = rf"(?<![\w'])(?:the )?{re.escape(called.casefold())}(?![\w'])"
            found = re.search(pattern, bare)
            if found is not None:
                before, after = bare[:found.start()].rstrip(), bare[found.end():].lstrip()
                calls = not before or not after or before.endswith(",") or after.startswith(",")
                return character, " ".join(re.sub(pattern, " ", words).split()), calls
    by_title = _called_by_title(turn, said, present)
    return (*by_title, True) if by_title is not None else None


def _called_by_title(turn: Turn, said: str, present: list[str]) -> tuple[CharacterDef, str] | None:
    """The person here a bare title calls: the world names Lise "the sergeant", and she is called
    '"Sergeant, who rang the bell?' to her face. Only a title that opens or closes the words counts as a
    call, so "a sergeant's pay" said to Hob stays Hob's."""
    words = said.casefold()
    for name in present:
        character = turn.world.character(name)
        if character is None:
            continue
        for called in character.names:
            title = called.casefold().removeprefix("the ")
            if title == called.casefold():
                continue
            pattern = rf"^{re.escape(title)}(?![\w'])|(?<![\w']){re.escape(title)}$"
            if re.search(pattern, words):
                return character, " ".join(re.sub(pattern, " ", words).split())
    return None


class ActOn(Action[Address]):
    """An act a character may react to: help, threaten, accuse, lie, warn (and follow, when they stay)."""

    def __init__(self, act: Act) -> None:
        self.act: Act = act

    async def check(self, turn: Turn, intent: Intent) -> Address | Refusal:
        return await addressee(turn, intent)

    async def carry_out(self, turn: Turn, plan: Address) -> None:
        turn.play.story.partner = plan.character.name

    async def report(self, turn: Turn, plan: Address) -> None:
        await react(turn, plan.character, self.act, about=plan.topic)


@dataclass(frozen=True)
class Offer:
    """An item held out to someone: given, shown or paid as a bribe."""

    act: Act
    item: Item
    character: CharacterDef


class Give(Action[Offer]):
    """``give the coin to Edda``, ``give Edda the coin``, ``show the letter to Mira``.

    Money given is a bribe unless the character has a reaction to the gift itself.
    """

    def __init__(self, act: Act) -> None:
        self.act: Act = act

    async def check(self, turn: Turn, intent: Intent) -> Offer | Refusal:
        item_phrase, person = intent.obj, intent.target
        if not person:
            split = _split_object_and_person(turn, intent.obj)
            missing = _not_carried(turn, intent.obj) if split is None else None
            if missing is not None:  # "give tibby bread" with no bread: say so, not "give what to whom?"
                return Refusal(f"You aren't carrying any {missing}.")
            if split is None:
                return Refusal(f"{self.act.capitalize()} what to whom? Try \"{self.act} {_example_pair(turn)}\".")
            item_phrase, person = split
        item = item_named(turn.world, item_phrase, turn.play.inventory)
        if item is None:
            return Refusal(f"You aren't carrying any {strip_articles(item_phrase)}.")
        character = turn.present_character(person)
        if isinstance(character, Refusal):
            return character
        return Offer(self.act, item, character)

    async def carry_out(self, turn: Turn, plan: Offer) -> None:
        turn.log.item(plan.item.id)
        turn.play.story.partner = plan.character.name

    async def report(self, turn: Turn, plan: Offer) -> None:
        if plan.act == "give" and plan.item.currency:
            if not await react(turn, plan.character, "give", item=plan.item, quiet=True):
                await react(turn, plan.character, "bribe", item=plan.item)
            return
        await react(turn, plan.character, plan.act, item=plan.item)
        if plan.act == "show":
            await pass_on_item(turn, plan.character, plan.item)


def _split_object_and_person(turn: Turn, phrase: str) -> tuple[str, str] | None:
    """``give mira the coin`` or ``give coin mira``: find where the person and the thing divide."""
    world, inventory = turn.world, turn.play.inventory
    words = phrase.split()
    for cut in range(1, len(words)):
        left, right = " ".join(words[:cut]), " ".join(words[cut:])
        if character_named(world, left) and item_named(world, right, inventory):
            return right, left
        if item_named(world, left, inventory) and character_named(world, right):
            return left, right
    return None


def _not_carried(turn: Turn, phrase: str) -> str | None:
    """The thing named beside a person ("tibby bread", "bread tibby") when the player does not carry it."""
    words = phrase.split()
    for cut in range(1, len(words)):
        left, right = " ".join(words[:cut]), " ".join(words[cut:])
        if character_named(turn.world, left) is not None:
            return strip_articles(right)
        if character_named(turn.world, right) is not None:
            return strip_articles(left)
    return None


def _example_pair(turn: Turn) -> str:
    present = turn.play.present(turn.world)
    inventory = turn.play.inventory
    thing = turn.world.items[inventory[0]].name if inventory else "something"
    person = turn.short(present[0]) if present else "someone"
    return f"{thing} to {person}"


class Bribe(Action[Offer]):
    """``bribe the guard``, ``bribe the guard with the ring``: with no item named, the first money carried."""

    async def check(self, turn: Turn, intent: Intent) -> Offer | Refusal:
        character = turn.present_character(intent.target)
        if isinstance(character, Refusal):
            return character
        inventory = turn.play.inventory
        if intent.obj:
            item = item_named(turn.world, intent.obj, inventory)
            if item is None:
                return Refusal(f"You aren't carrying any {strip_articles(intent.obj)}.")
        else:
            money = [turn.world.items[i] for i in inventory if turn.world.items[i].currency]
            if not money:
                return Refusal(f"You have nothing {character.short_name} would take.")
            item = money[0]
        return Offer("bribe", item, character)

    async def carry_out(self, turn: Turn, plan: Offer) -> None:
        turn.log.item(plan.item.id)
        turn.play.story.partner = plan.character.name

    async def report(self, turn: Turn, plan: Offer) -> None:
        await react(turn, plan.character, "bribe", item=plan.item)


@dataclass(frozen=True)
class Pursuit:
    """Following someone who left the player's place last turn."""

    character: CharacterDef
    arrival: Arrival


class Follow(Action[Pursuit | Address]):
    """After someone who just left; otherwise an act the person here may react to."""

    async def check(self, turn: Turn, intent: Intent) -> Pursuit | Address | Refusal:
        character = character_named(turn.world, intent.target) if intent.target else None
        if character is not None and character.name in turn.followable:
            destination = turn.followable[character.name]
            return Pursuit(character, Arrival(destination, destination not in turn.play.visited))
        return await addressee(turn, intent)

    async def carry_out(self, turn: Turn, plan: Pursuit | Address) -> None:
        if isinstance(plan, Pursuit):
            turn.touch(plan.character.name)
            turn.play.move_player(plan.arrival.destination)
        else:
            turn.play.story.partner = plan.character.name

    async def report(self, turn: Turn, plan: Pursuit | Address) -> None:
        if isinstance(plan, Pursuit):
            place = turn.world.places[plan.arrival.destination]
            turn.log.say(f"You follow {plan.character.short_name} to {mid_sentence(place.name)}.")
            await arrive(turn, plan.arrival)
        else:
            await react(turn, plan.character, "follow", about=plan.topic)
