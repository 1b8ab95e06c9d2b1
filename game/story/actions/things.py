"""Actions about things: examining (a feature, an item, a person, yourself), the inventory, taking, dropping."""

from __future__ import annotations

from dataclasses import dataclass

from game.story.actions.base import Action
from game.story.actions.places import describe, describe_place, poses_now
from game.story.context import OBJECT_PRONOUNS, SELF_WORDS, Refusal, Turn
from game.story.parser import Intent
from game.story.prose import agreement, capital, is_plural, join_words, mid_sentence, tidy
from game.story.resolve import (
    character_named,
    exit_named,
    feature_named,
    item_named,
    names_place,
    scenery_named,
)
from game.world.schema import Effects, Item
from game.world.words import key_words, strip_articles

HERE_WORDS = frozenset({"here", "around", "room", "place", "surroundings"})


@dataclass(frozen=True)
class Sight:
    """What examining shows: a text to say, or the whole place; and what the look touches."""

    text: str = ""
    whole_place: bool = False
    effects: Effects | None = None
    item: str | None = None
    person: str | None = None
    feature: str | None = None


class Examine(Action[Sight]):
    async def check(self, turn: Turn, intent: Intent) -> Sight | Refusal:
        world, play = turn.world, turn.play
        phrase = intent.obj
        wanted = key_words(phrase)
        if wanted in SELF_WORDS or (phrase and world.is_player(phrase)):  # "x wren" is "x me"
            return Sight(f"You are {world.player.name}. {world.text(world.player.summary)}")
        if wanted in HERE_WORDS or names_place(world, play.location, phrase):
            return Sight(whole_place=True)
        feature = feature_named(world, play.location, phrase)
        if feature is not None:
            text = " ".join([turn.pick(feature.text), *await turn.details(feature.details)])
            return Sight(text, effects=feature.effects, feature=feature.names[0])
        item = item_named(world, phrase, turn.visible_items())
        if item is not None:
            return Sight(world.text(item.description), item=item.id)
        character = character_named(world, phrase)
        if character is not None and not play.knows(character.name):
            return turn.stranger()
        if character is not None and character.name in play.present(world):
            # What the player knows of them, never the authored summary (it may hold their secret).
            shown = character.description or (character.summary if play.known is None
                                              else character.seen_as(play.revealed(character.name)))
            return Sight(world.text(shown), person=character.name)
        if character is not None:
            return Refusal(turn.reply("not_here", name=character.short_name))
        direction = exit_named(world, play.location, phrase)
        if direction is not None:
            place = world.places[play.location].exits[direction]
            return Sight(f"That is {mid_sentence(world.places[place].name)}, {direction} from here. "
                         f"You'd see more of it if you went {direction}.")
        if scenery_named(await room_text(turn), phrase):
            return Sight(turn.reply("scenery", thing=wanted), feature=wanted)
        return Refusal(turn.reply("no_such", thing=wanted or phrase))

    async def carry_out(self, turn: Turn, plan: Sight) -> None:
        if plan.effects is not None:
            turn.rules.apply(plan.effects, plan.text)
        if plan.item is not None:
            turn.log.item(plan.item)
        if plan.person is not None:
            turn.touch(plan.person)
        if plan.feature is not None:
            turn.mentioned_thing = plan.feature

    async def report(self, turn: Turn, plan: Sight) -> None:
        if plan.whole_place:
            await describe(turn, full=True)
        else:
            turn.log.say(plan.text)

    def takes_time(self, plan: Sight) -> bool:
        """A look costs time only when it finds something out (a feature with effects)."""
        return plan.effects is not None and not plan.effects.is_empty()


class Inventory(Action[list[str]]):
    async def check(self, turn: Turn, intent: Intent) -> list[str]:
        return [turn.world.items[i].name for i in turn.play.inventory if i in turn.world.items]

    async def report(self, turn: Turn, plan: list[str]) -> None:
        if not plan:
            turn.log.say("You are carrying nothing but the clothes you stand in.")
        else:
            turn.log.say(f"You are carrying {join_words(plan)}.")

    def takes_time(self, plan: list[str]) -> bool:
        return False


class Take(Action[list[Item]]):
    """``take the key``, ``take all``: what lies here (or is carried by no one) and can be carried."""

    async def check(self, turn: Turn, intent: Intent) -> list[Item] | Refusal:
        play, world = turn.play, turn.world
        if strip_articles(intent.obj) in {"all", "everything"}:
            portable = [world.items[i] for i in play.items_here() if world.items[i].portable]
            return portable or Refusal("There is nothing here you can carry off.")
        item = item_named(world, intent.obj, turn.visible_items())
        if item is None:
            return await _not_to_take(turn, intent.obj)
        if play.carries(item.id):
            return Refusal(f"You already have {item.name}.")
        if item.id in play.story.held:
            return Refusal(f"{turn.short(play.story.held[item.id])} has {item.name}, and isn't letting go of it.")
        if not item.portable:
            return Refusal(world.text(item.fixed_text) if item.fixed_text else f"{capital(item.name)} stays where it is.")
        return [item]

    async def carry_out(self, turn: Turn, plan: list[Item]) -> None:
        for item in plan:
            turn.play.give_player(item.id)
            turn.log.item(item.id)
            turn.rules.apply(item.on_take, _took(turn, item))

    async def report(self, turn: Turn, plan: list[Item]) -> None:
        for item in plan:
            turn.log.say(_took(turn, item))


async def room_text(turn: Turn) -> str:
    """Everything the player may have read here: what scenery they may name and deserve an answer for.

    The room as ``look`` tells it, its features' texts, what the people here show and say (``person_text``)
    and the visible items' descriptions: "her boots by the door", Tibby's "eel-hook".
    """
    world, play = turn.world, turn.play
    texts = [await place_text(turn)]
    texts += [t for name in play.present(world) for t in (person_text(turn, name), _placing(turn, name))]
    texts += [world.items[i].description for i in turn.visible_items() if i in world.items]
    return " ".join(texts)


async def place_text(turn: Turn) -> str:
    """What the place says of itself: its description as ``look`` tells it (without its name and ways on),
    and its features' texts."""
    world, play = turn.world, turn.play
    place = world.places[play.location]
    texts = describe_place(world, play, True, await turn.details(place.details), await poses_now(turn))[1:-1]
    texts += [variant for feature in place.features for variant in feature.text]
    return " ".join(texts)


def person_text(turn: Turn, name: str) -> str:
    """What someone shows and says of themselves to anyone: their looks, and their topics that need no
    trust. What it names is theirs (Tibby's eel-hook); where they stand (``_placing``) is the room's."""
    character = turn.world.character(name)
    if character is None:
        return ""
    texts = [character.description] if character.description else []
    texts += [*(character.greeting or []), *(character.again or [])]
    texts += [v for topic in character.topics if topic.when.is_empty() and not topic.lie for v in topic.reply]
    return " ".join(texts)


def _placing(turn: Turn, name: str) -> str:
    """The line that places someone in the room ("leans on a bollard"): the bollard stays the quay's."""
    character = turn.world.character(name)
    return " ".join(t for t in ((character.here, character.away) if character else ()) if t)


async def _not_to_take(turn: Turn, phrase: str) -> Refusal:
    """Why ``take`` cannot have it: a person, a fixture of the place, or nothing here by that name."""
    world, play = turn.world, turn.play
    wanted = key_words(phrase)
    character = character_named(world, phrase)
    if character is not None and character.name in play.present(world):
        them = OBJECT_PRONOUNS[character.pronoun]
        return Refusal(f"{character.short_name} is nobody's to carry off. You could talk to {them} instead.")
    feature = feature_named(world, play.location, phrase)
    if feature is not None or scenery_named(await room_text(turn), phrase):
        them = "them" if is_plural(wanted) else "it"
        owner = next((n for n in play.present(world) if scenery_named(person_text(turn, n), phrase)), None)
        if owner is not None:  # Tibby's eel-hook is hers, not the place's
            return Refusal(f"The {wanted} {agreement(wanted)['is']} {turn.short(owner)}'s, not yours to carry off.")
        place = mid_sentence(world.places[play.location].name)
        return Refusal(f"The {wanted} {agreement(wanted)['is']} part of {place}; you can't carry {them} off.")
    return Refusal(turn.reply("no_such", thing=strip_articles(phrase)))


def _took(turn: Turn, item: Item) -> str:
    return tidy(turn.world.text(item.take_text)) if item.take_text else f"You take {item.name}."


class Drop(Action[Item]):
    async def check(self, turn: Turn, intent: Intent) -> Item | Refusal:
        item = item_named(turn.world, intent.obj, turn.play.inventory)
        return item or Refusal(f"You aren't carrying any {strip_articles(intent.obj)}.")

    async def carry_out(self, turn: Turn, plan: Item) -> None:
        turn.play.inventory.remove(plan.id)
        turn.play.story.item_places[plan.id] = turn.play.location
        turn.log.item(plan.id)

    async def report(self, turn: Turn, plan: Item) -> None:
        turn.log.say(f"You put down {plan.name}.")
