"""Pronouns: "it" is the last thing the player named or examined, "him" and "her" the last such person.

The parser leaves pronouns as words; before an action runs they are replaced by the names they stand
for, and after it the turn's things and people become the new referents. People are followed by their
own pronoun (``CharacterDef.pronoun``), so after "talk to Lise" a "him" still means the last man named,
never Lise.
"""

from __future__ import annotations

from dataclasses import replace

from game.story.context import Turn
from game.story.parser import Intent
from game.world.words import key_words

THING_WORDS = frozenset({"it", "that", "this"})
PERSON_WORDS: dict[str, str] = {"him": "he", "he": "he", "her": "she", "she": "she", "them": "they", "they": "they"}
KEPT_PEOPLE = 6


def resolve(turn: Turn, intent: Intent) -> Intent:
    """``intent`` with pronouns in its object and target replaced by what they stand for (when known)."""
    obj, target = intent.obj, intent.target
    head, _, rest = obj.partition(" ")
    if intent.verb in {"give", "show"} and not target and rest and head in PERSON_WORDS:
        person = _person(turn, head)  # "give him the coins"
        if person is not None:
            obj, target = rest, person
    if obj:
        obj = _person(turn, obj) or _thing(turn, obj) or obj
    if target:
        target = _person(turn, target) or target
    return replace(intent, obj=obj, target=target) if (obj, target) != (intent.obj, intent.target) else intent


def remember(turn: Turn) -> None:
    """The turn's people and things become what "him", "her", "them" and "it" mean next."""
    story = turn.play.story
    # Each goes to the front in turn, so someone named in a question is newer than the one asked.
    for name in [*turn.acted_on, *turn.mentioned_people]:
        if turn.world.is_player(name):
            continue
        story.people = [name, *(n for n in story.people if n != name)][:KEPT_PEOPLE]
    if turn.mentioned_thing is not None:
        story.it = turn.mentioned_thing
    elif turn.log.items:
        story.it = turn.log.items[-1]


def _person(turn: Turn, phrase: str) -> str | None:
    wanted = PERSON_WORDS.get(key_words(phrase))
    if wanted is None:
        return None
    story, world = turn.play.story, turn.world
    recent = [*story.people, *([story.partner] if story.partner else [])]
    # Someone here is meant before someone elsewhere: after "ask hob about pell", "him" is Hob.
    present = set(turn.play.present(world))
    candidates = [n for n in recent if n in present] + [n for n in recent if n not in present]
    for name in candidates:
        character = world.character(name)
        if character is not None and character.pronoun in (wanted, None):
            return character.name
    # Nobody named yet: the one person here it can mean, if only one.
    here = [c for c in (world.character(n) for n in turn.play.present(world)) if c and c.pronoun == wanted]
    if len(here) == 1:
        return here[0].name
    return None  # "take them" may mean things: ``_thing`` is asked next


def _thing(turn: Turn, phrase: str) -> str | None:
    word = key_words(phrase)
    if word in THING_WORDS or word == "them":
        return turn.play.story.it
    return None
