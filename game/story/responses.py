"""How characters answer: the first reaction of theirs that fits an act, or the topic a phrase is about.

A response is a small action of its own, run inside the player's: chosen against the scene (check),
its once-only use spent, any item taken and its effects applied (carry out), then said (report). It is
chosen only after the player's action has carried out, so a reaction can depend on having just met.
"""

from __future__ import annotations

import re
from typing import Literal

from game.story.context import Turn
from game.story.prose import choose, fill, join_words
from game.story.resolve import character_named, names_nothing_known, topic_matches, topic_rank
from game.story.tiers import add_cold_line, add_tier_line, record_act
from game.story.withholding import say_withheld, withholds
from game.text import straighten_quotes
from game.world import CharacterDef
from game.world.schema import ITEM_ACTS, TOPIC_ACTS, Act, Item, Reaction, ShowLine, Topic

DEFAULT_REFUSALS: dict[Act, str] = {
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
    "steal": "You take {thing} from {name}, who sees you do it.",
    "apologize": "{name} hears your apology out, and some of the stiffness goes out of the silence.",
}
TopicVerb = Literal["ask", "tell"]
"""Which topics (``verb = "ask"``, ``"tell"`` or ``"both"``) can answer."""


async def react(turn: Turn, character: CharacterDef, act: Act, item: Item | None = None, about: str = "",
                quiet: bool = False) -> bool:
    """Run the first reaction of ``character`` to ``act`` that fits; say their refusal when none does.

    ``quiet`` says nothing when none fits (the caller has another answer). True when one ran.
    """
    play = turn.play
    for index, reaction in enumerate(character.reactions):
        if not _reaction_fits(turn, reaction, act, item, about, index, character):
            continue
        if reaction.first_meeting and await turn.memory.has_met(character.name):
            continue  # they remember meeting the player: a first meeting happens once
        if not await turn.rules.holds(reaction.when):
            continue
        if withholds(turn, character, reaction.effects, reaction.open, topic=False):
            say_withheld(turn, character, reaction.effects)
            record_act(turn, character, act, answered=False, thing=item.name if item else about)
            return True
        text = turn.pick(reaction.reply)
        if reaction.once:
            play.spend(f"reaction:{character.name}:{index}")
        takes = reaction.takes if reaction.takes is not None else act in {"give", "bribe"}
        if takes and item is not None and play.carries(item.id):
            play.inventory.remove(item.id)
            play.story.held[item.id] = character.name
        turn.log.say(text)
        turn.rules.apply(reaction.effects, text, teller=character.name)
        record_act(turn, character, act, answered=True, thing=item.name if item else about)
        turn.memory.note_revealed(character.name, reaction.effects.reveal)
        turn.memory.answered.add(character.name)
        return True
    if quiet:
        return False
    record_act(turn, character, act, answered=False, thing=item.name if item else about)
    shown = _world_show(turn, character, item) if act == "show" and item is not None else None
    if shown is not None:
        turn.log.say(turn.world.text(fill(turn.pick(shown.text), {"name": character.short_name, "thing": item.name
                                                                  if item else "it"})))
        add_tier_line(turn, character)  # the world's answer stands in for their refusal, and reads the same
        return False
    refusal = character.refusals.get(act)
    text = choose(refusal, turn.rng) if refusal else DEFAULT_REFUSALS[act]
    turn.log.say(turn.world.text(fill(text, {"name": character.short_name, "thing": item.name if item else "it"})))
    add_tier_line(turn, character, act)
    return False


def _world_show(turn: Turn, character: CharacterDef, item: Item) -> ShowLine | None:
    """The world's first answer to showing ``item`` that fits this person (by name or label) and item."""
    labels = {x.casefold() for x in [*character.names, *character.labels]}
    for line in turn.world.section.shows:
        if line.items and item.id not in line.items:
            continue
        if line.to and not labels & {x.casefold() for x in line.to}:
            continue
        return line
    return None


def _reaction_fits(turn: Turn, reaction: Reaction, act: Act, item: Item | None, about: str, index: int,
                   character: CharacterDef) -> bool:
    if act not in reaction.act:
        return False
    if act in ITEM_ACTS and reaction.item is not None and (item is None or reaction.item != item.id):
        return False
    if act in TOPIC_ACTS and reaction.about and about and not topic_matches(turn.world, about, reaction.about):
        return False
    return not (reaction.once and turn.play.spent(f"reaction:{character.name}:{index}"))


async def pick_topic(turn: Turn, character: CharacterDef, verb: TopicVerb, phrase: str) -> tuple[int, Topic] | None:
    """The topic of ``character`` that ``phrase`` names most closely and whose conditions hold.

    The whole phrase first, then the most specific key inside it (``TopicRank``); among equals, the
    order the content gives (a trusted answer before the guarded one).
    """
    ranked = []
    for index, topic in enumerate(character.topics):
        if topic.verb not in (verb, "both") or turn.play.spent(f"topic:{character.name}:{index}"):
            continue
        rank = topic_rank(turn.world, phrase, topic.about)
        if rank is not None:
            ranked.append((rank, index, topic))
    ranked.sort(key=lambda entry: entry[0], reverse=True)  # stable: equals keep the content's order
    for _rank, index, topic in ranked:
        if not await turn.rules.holds(topic.when):
            continue
        if topic.lie and await _no_longer_lies(turn, character, topic):
            continue
        return index, topic
    return None


async def _no_longer_lies(turn: Turn, character: CharacterDef, topic: Topic) -> bool:
    """Whether ``character`` remembers telling the player the truth this lie denies (``denies``), or, for a
    lie that names none, remembers confessing anything of their own: a secret told stays told."""
    if not topic.denies:
        return await turn.memory.confessed(character.name)
    for ref in topic.denies:
        if await turn.memory.has_revealed(character.name, ref):
            return True
    return False


def answer_topic(turn: Turn, character: CharacterDef, index: int, topic: Topic) -> None:
    """Give a chosen topic's answer: spend it if it is once-only, apply its effects, say it (unless the
    speaker's cold tier withholds it: ``game.story.withholding``)."""
    if withholds(turn, character, topic.effects, topic.open, topic=True):
        say_withheld(turn, character, topic.effects)
        return
    text = turn.pick(topic.reply)
    if topic.once:
        turn.play.spend(f"topic:{character.name}:{index}")
    told = f"told:{character.name}:{index}"
    if turn.play.spent(told):
        turn.log.say(told_again(turn, character, text))
    else:
        turn.play.spend(told)
        turn.log.say(text)
    add_cold_line(turn, character, topic.effects)
    turn.rules.apply(topic.effects, text, teller=character.name)
    turn.memory.note_revealed(character.name, topic.effects.reveal)


_QUOTED = re.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d')


def told_again(turn: Turn, character: CharacterDef, text: str) -> str:
    """A topic asked about again: said as a reminder (``told_before``), with the words they said the first
    time and no scene-setting around them, so the player hears it is the same answer and not a second
    telling of an event (a line that speaks as if something happened twice misleads). An answer with no
    words said aloud is given whole after the reminder."""
    spoken = [next(part for part in found.groups() if part) for found in _QUOTED.finditer(text)]
    words = " ".join(_sentence(part) for part in spoken)
    lead = turn.reply("told_before", name=character.short_name)
    ended = lead.endswith((".", "!", "?", ":"))
    if not words:
        return f"{lead if ended else lead + '.'} {text}"
    opening, closing = ("\u201c", "\u201d") if "\u201c" in text else ('"', '"')
    return f"{lead if ended else lead + ':'} {opening}{words}{closing}"


def _sentence(words: str) -> str:
    """Quoted words cut by a said-tag (``"It didn't ring,"``) as a sentence of their own."""
    words = words.strip()
    if words.endswith(","):
        return words[:-1] + "."
    return words if words.endswith((".", "!", "?", "\u2026", "-", "\u2014")) else words + "."


_YOURS = {"my": "your", "me": "you", "i": "you", "myself": "yourself", "mine": "yours"}
"""The player's words about themselves, as the story says them back to them."""


async def no_topic(turn: Turn, character: CharacterDef, verb: TopicVerb, phrase: str = "") -> None:
    """Nothing to say about that: their own words for it, then what they might talk about instead.

    Someone who has confessed answers with their ``admitted`` line, not the old denial (``unknown``). A
    subject that names nothing in the story is simply not known to them; news they have no answer to
    is heard out, since their ``unknown`` line answers a question, not news.
    """
    subject = " ".join(_YOURS.get(w.casefold(), w) for w in re.findall(r"[\w'-]+", straighten_quotes(phrase)))
    named = character_named(turn.world, phrase) if phrase else None
    if named is not None and turn.play.knows(named.name):
        subject = named.short_name  # "tell fenn about pell": about Pell, as the story writes him
    if character.admitted and await turn.memory.confessed(character.name):
        turn.say_text(character.admitted)
    elif subject and names_nothing_known(turn.world, phrase):
        turn.log.say(turn.reply("unknown_subject", name=character.short_name, thing=subject))
    elif verb == "tell" and subject:
        turn.log.say(turn.reply("not_news", name=character.short_name, thing=subject))
    elif character.unknown:
        turn.say_text(character.unknown)
    else:
        turn.log.say(turn.reply("no_topic", name=character.short_name))
    add_tier_line(turn, character)
    open_topics = [t.about[0] for i, t in enumerate(character.topics)
                   if t.when.is_empty() and t.verb in (verb, "both")
                   and not turn.play.spent(f"topic:{character.name}:{i}")
                   and not (t.lie and await _no_longer_lies(turn, character, t))]
    if open_topics:
        topics = join_words(open_topics[:3], "or")
        # A "tell" names what they would listen to: "Hob might talk about the truth" had it backwards.
        turn.log.paragraphs[-1] += (f" You could tell {character.short_name} about {topics}." if verb == "tell"
                                    else f" {character.short_name} might talk about {topics}.")
