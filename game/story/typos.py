"""Typos: a word one edit away from a verb or a name the player can use here is read as that word.

Only a line that failed as typed is corrected, and only to a reading whose check passes, so a correct
line is never second-guessed. The candidates are the verbs, the directions, the world's own verbs, and
the names of what the player can see or already knows: people present or met, things in view,
features and the ways on. A correction can therefore never name someone the player has not met.
"""

from __future__ import annotations

from game.story.context import Turn
from game.story.parser import DIRECTION_WORDS, VERB_WORDS
from game.world.words import clean

MIN_LENGTH = 3


def one_edit_apart(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or swap of two neighbours turns ``a`` into ``b``."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return len(diffs) == 2 and diffs[1] == diffs[0] + 1 and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1:]


def vocabulary(turn: Turn) -> set[str]:
    """Every word a correction may land on, for the player's place and knowledge this turn."""
    world, play = turn.world, turn.play
    phrases: list[str] = [*VERB_WORDS, *DIRECTION_WORDS]
    for command in world.commands:
        phrases.extend(command.say)
    for name in {*play.present(world), *play.met}:
        character = world.character(name)
        if character is not None:
            phrases.extend(character.names)
    for item_id in turn.visible_items():
        phrases.extend(world.items[item_id].names)
    place = world.places[play.location]
    for feature in place.features:
        phrases.extend(feature.names)
    for destination in place.exits.values():
        phrases.append(world.places[destination].name)
    return {word for phrase in phrases for word in clean(phrase).split()}


def corrected(turn: Turn, line: str) -> str | None:
    """``line`` with each unknown word replaced by the one known word a single edit from it, if any."""
    known = vocabulary(turn)
    words = clean(line).split()
    changed = False
    for index, word in enumerate(words):
        if word in known or len(word) < MIN_LENGTH:
            continue
        close = [k for k in known if len(k) >= MIN_LENGTH and one_edit_apart(word, k)]
        if len(close) == 1:
            words[index] = close[0]
            changed = True
    return " ".join(words) if changed else None
