"""Acts that exist to be answered for: stealing from someone, and saying sorry for a harm done.

``steal the ledger from Crane`` (``take ... from``, ``rob``, ``pickpocket``): the thing a person here holds
passes to the player before everyone's eyes. A world hooks it with a reaction to ``act = "steal"`` (with
``item``, for one thing): the reaction's reply and effects are the theft's whole answer (``give`` the
thing to let it go; leave it out and it stays with its holder). A theft is a harmful deed either way.

``apologise to Hob`` (``say sorry to``, ``tell Hob sorry``, ``sorry``): a kind deed answering the player's
latest harmful deed that the person knows of, done to them or to one of their own people; it softens
their attitude once per harm, and word of it travels as any deed does ("Tibby says you apologised to her
for threatening her"). A world hooks it with a reaction to ``act = "apologize"``. With nothing to answer
for, there is nothing to apologise for, and no time passes.
"""

from __future__ import annotations

from typing import Any

from game.features.deeds.model import Deed, DeedBook
from game.features.deeds.rules import doing
from game.story.actions.base import Action
from game.story.actions.people import Address, Offer, addressee
from game.story.actions.things import Take
from game.story.context import OBJECT_PRONOUNS, Refusal, Turn
from game.story.parser import Intent
from game.story.prose import capital, fill
from game.story.resolve import character_named, item_named
from game.story.responses import DEFAULT_REFUSALS, react
from game.story.tiers import add_tier_line, record_act
from game.world import CharacterDef
from game.world.words import strip_articles


class Steal(Action[Offer]):
    """Taking what someone here holds: a harmful deed, seen by everyone here."""

    async def check(self, turn: Turn, intent: Intent) -> Offer | Refusal:
        play, world = turn.play, turn.world
        if not intent.target:
            # "steal the ledger": from whoever here holds it.
            item = item_named(world, intent.obj, turn.visible_items())
            holder = play.story.held.get(item.id) if item is not None else None
            if item is None or holder is None:
                wanted = strip_articles(intent.obj)
                return Refusal(f"Nobody here has any {wanted} you could take." if wanted else "Steal what, from whom?")
            intent = Intent("steal", obj=intent.obj, target=holder)
        character = turn.present_character(intent.target)
        if isinstance(character, Refusal):
            return character
        theirs = [world.items[i] for i, who in play.story.held.items() if who == character.name and i in world.items]
        if intent.obj:
            item = item_named(world, intent.obj, [i.id for i in theirs])
            if item is None:
                return Refusal(f"{character.short_name} has no {strip_articles(intent.obj)} you could take.")
        elif theirs:
            item = theirs[0]
        else:
            return Refusal(f"{character.short_name} has nothing on {OBJECT_PRONOUNS[character.pronoun]} worth taking.")
        if not item.portable:
            return Refusal(f"{capital(item.name)} stays where it is.")
        return Offer("steal", item, character)

    async def carry_out(self, turn: Turn, plan: Offer) -> None:
        turn.log.item(plan.item.id)
        turn.touch(plan.character.name)

    async def report(self, turn: Turn, plan: Offer) -> None:
        if await react(turn, plan.character, "steal", item=plan.item, quiet=True):
            return  # the world's answer is the theft's whole answer: its effects give the thing, or do not
        turn.play.give_player(plan.item.id)
        refusal = plan.character.refusals.get("steal")
        text = turn.pick(refusal) if refusal else DEFAULT_REFUSALS["steal"]
        turn.log.say(turn.world.text(fill(text, {"name": plan.character.short_name, "thing": plan.item.name})))
        record_act(turn, plan.character, "steal", answered=True, thing=plan.item.name)
        add_tier_line(turn, plan.character, "steal")


class TakeFrom(Action[Any]):
    """``take X from Y``: stealing when Y is a person here, else taking (a thing from a shelf, a basket)."""

    def __init__(self) -> None:
        self.take, self.steal = Take(), Steal()

    def _person(self, turn: Turn, intent: Intent) -> bool:
        character = character_named(turn.world, intent.target) if intent.target else None
        return character is not None and character.name in turn.play.present(turn.world)

    async def check(self, turn: Turn, intent: Intent) -> Any:
        if self._person(turn, intent):
            return await self.steal.check(turn, intent)
        return await self.take.check(turn, intent)

    async def carry_out(self, turn: Turn, plan: Any) -> None:
        await (self.steal if isinstance(plan, Offer) else self.take).carry_out(turn, plan)

    async def report(self, turn: Turn, plan: Any) -> None:
        await (self.steal if isinstance(plan, Offer) else self.take).report(turn, plan)

    def takes_time(self, plan: Any) -> bool:
        return True


class Apologize(Action[Address]):
    """Saying sorry to someone here for a harm they know the player did: a kind deed that answers it."""

    async def check(self, turn: Turn, intent: Intent) -> Address | Refusal:
        found = await addressee(turn, intent)
        if isinstance(found, Refusal):
            return found
        character = found.character
        answered = await _harm_to_answer(turn, character)
        authored = any("apologize" in r.act for r in character.reactions)
        if answered is None and not authored:
            them = OBJECT_PRONOUNS[character.pronoun]
            return Refusal(f"{character.short_name} looks at you, puzzled: you have done {them} no wrong that "
                           f"{character.short_name} knows of.")
        if answered == "":
            return Refusal(f"{character.short_name} has had your apology for that already.")
        return Address(character, answered or "")

    async def carry_out(self, turn: Turn, plan: Address) -> None:
        turn.play.meet(plan.character.name)
        turn.play.story.partner = plan.character.name

    async def report(self, turn: Turn, plan: Address) -> None:
        character = plan.character
        if await react(turn, character, "apologize", about=plan.topic, quiet=True):
            return
        if not plan.topic:
            turn.log.say(f"{character.short_name} hears you out, and says nothing to it.")
            return
        own = character.refusals.get("apologize")
        text = turn.pick(own) if own else DEFAULT_REFUSALS["apologize"]
        turn.log.say(turn.world.text(fill(text, {"name": character.short_name})))
        record_act(turn, character, "apologize", answered=True, thing=plan.topic)
        turn.memory.answered.add(character.name)


async def _harm_to_answer(turn: Turn, character: CharacterDef) -> str | None:
    """What an apology to ``character`` is for ("threatening Tibby"): the player's latest harmful deed they
    know of, done to them or one of their own people; "" when the player has apologised for it already;
    None when there is nothing."""
    book = turn.features.get("deeds")
    view = turn.rules.view
    hearer, player = await view.node(character.name), await view.node(turn.world.player_name)
    if not isinstance(book, DeedBook) or hearer is None or player is None:
        return None
    own = {e.other_end(hearer.id) for e in await view.reader.open_edges_of(hearer.id) if e.strength > 0}
    known = [deed for deed, _row in book.known_by(hearer.id)]
    harms = [d for d in known if d.actor == player.id and d.valence == "harmful" and d.target in {hearer.id, *own}]
    if not harms:
        return None
    harm = max(harms, key=lambda d: (d.target == hearer.id, d.turn, d.deed_id))
    names = await view.reader.get_nodes([harm.target])
    target = names.get(harm.target)
    who = OBJECT_PRONOUNS[character.pronoun] if harm.target == hearer.id else turn.short(target.name if target else "someone")
    what = doing(harm.act, who, harm.thing if harm.act == "steal" else "")
    said = _apologised(book, player.id, hearer.id)
    return "" if what in said else what


def _apologised(book: DeedBook, player: str, hearer: str) -> set[str]:
    """What the player has already said sorry to ``hearer`` for (the ``thing`` of each apology deed)."""
    deeds: list[Deed] = [deed for deed, row in book.known_by(hearer) if row.how == "seen"]
    return {d.thing for d in deeds if d.actor == player and d.target == hearer and d.act == "apologize"}
