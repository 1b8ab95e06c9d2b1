"""Name resolution: which character, item, feature, place or topic a player's phrase means.

Only lookups live here; whether the thing is in reach (here, carried, held by someone present) is the
action's check. Every comparison goes through ``key_words`` so "the Old Key!" and "old key" agree.
"""

from __future__ import annotations

import re

from game.world import CharacterDef, World
from game.world.schema import Feature, Item
from game.world.words import ARTICLES, clean, key_words, strip_articles


def character_named(world: World, phrase: str) -> CharacterDef | None:
    """The character a phrase names: a name or alias, with or without articles, or one unique word of one."""
    phrase = phrase.strip()
    for form in (phrase, strip_articles(phrase), f"the {strip_articles(phrase)}"):
        found = world.character(form)
        if found is not None:
            return found
    words = strip_articles(phrase).split()
    if len(words) == 1 and len(words[0]) >= 3:
        matches = [c for c in world.characters
                   if words[0] in {w.casefold() for n in c.names for w in n.split()}]
        if len(matches) == 1:
            return matches[0]
    return None


def item_named(world: World, phrase: str, among: list[str]) -> Item | None:
    """The item of ``among`` a phrase names: its id or a name, else the first whose name holds every word."""
    wanted = key_words(phrase)
    if not wanted:
        return None
    items = [world.items[i] for i in among if i in world.items]
    for item in items:
        if wanted == item.id or wanted in {key_words(n) for n in item.names}:
            return item
    words = set(wanted.split())
    partial = [i for i in items if any(words <= set(key_words(n).split()) for n in i.names)]
    return partial[0] if partial else None


def feature_named(world: World, place_id: str, phrase: str) -> Feature | None:
    """A feature of the place (the well, the nets) a phrase names: exactly first, then by its words."""
    wanted = key_words(phrase)
    features = world.places[place_id].features
    for feature in features:
        if wanted in {key_words(n) for n in feature.names}:
            return feature
    words = set(wanted.split())
    for feature in features:
        if any(words <= set(key_words(n).split()) for n in feature.names):
            return feature
    return None


def names_place(world: World, place_id: str, phrase: str) -> bool:
    """Whether a phrase names the place itself (its id or its name)."""
    place = world.places[place_id]
    wanted = key_words(phrase)
    return bool(wanted) and wanted in {place.id, key_words(place.name)}


def exit_named(world: World, place_id: str, phrase: str) -> str | None:
    """The direction of the exit whose destination a phrase names ("go to the quay")."""
    target = key_words(phrase)
    for direction, destination in world.places[place_id].exits.items():
        name = key_words(world.places[destination].name)
        if target in {destination, name} or (target and set(target.split()) <= set(name.split())):
            return direction
    return None


def exit_through(world: World, place_id: str, phrase: str) -> str | None:
    """The way on that a thing the place's description names leads ("enter crack": "a crack in the wall's
    footing leads down into the dark"): the first exit direction after it in the same clause."""
    words = [w for w in key_words(phrase).split() if len(w) >= 3]
    if not words:
        return None
    exits = world.places[place_id].exits
    for clause in re.split(r"[.;,:!?]| and ", world.places[place_id].description.casefold()):
        said = clean(clause).split()
        hits = [i for i, w in enumerate(said) if w.removesuffix("s") in {x.removesuffix("s") for x in words}]
        if not hits:
            continue
        after = [DIRECTION_WORDS.get(w) for w in said[hits[0] + 1:]]
        found = next((d for d in after if d in exits), None)
        if found is not None:
            return found
    return None


DIRECTION_WORDS = {"north": "north", "south": "south", "east": "east", "west": "west", "up": "up", "down": "down",
                   "northeast": "northeast", "northwest": "northwest", "southeast": "southeast",
                   "southwest": "southwest", "in": "in", "out": "out"}
"""The words of a description that name a way on (the parser's abbreviations are not prose)."""


def place_named(world: World, phrase: str) -> str | None:
    """The place anywhere in the world a phrase names ("the tavern", "the chapel"): its id, else its name."""
    target = key_words(phrase)
    if not target:
        return None
    for place_id, place in world.places.items():
        if target in {place_id, key_words(place.name)}:
            return place_id
    words = set(target.split())
    matches = [p for p, place in world.places.items() if words <= set(key_words(place.name).split())]
    return matches[0] if len(matches) == 1 else None


def route(world: World, start: str, goal: str) -> list[tuple[str, str]]:
    """The shortest way from ``start`` to ``goal`` as (direction, place) steps; empty when there is none."""
    paths: dict[str, list[tuple[str, str]]] = {start: []}
    frontier = [start]
    while frontier and goal not in paths:
        place = frontier.pop(0)
        for direction, destination in world.places[place].exits.items():
            if destination not in paths and destination in world.places:
                paths[destination] = [*paths[place], (direction, destination)]
                frontier.append(destination)
    return paths.get(goal, [])


def topic_matches(world: World, phrase: str, keys: list[str], exact: bool = False) -> bool:
    """Whether a phrase is about one of ``keys``: the same words, or (unless ``exact``) a run of them."""
    rank = topic_rank(world, phrase, keys)
    return rank is not None and (rank[0] >= 3 or not exact)


TopicRank = tuple[int, int, int]
"""How closely a phrase names a topic, higher first: (4, ...) the same words as typed, possessives and all
("my sister" is not "your sister"); (3, ...) the same words; (2, n, end) one of its keys, n words long,
inside the phrase and ending at word ``end`` (the last word of "flood bell" is what it is: a bell); (1, ...)
the phrase inside one of its keys ("bell" of "the flood bell")."""


def topic_rank(world: World, phrase: str, keys: list[str]) -> TopicRank | None:
    """How closely ``phrase`` names a topic about ``keys`` (``TopicRank``), or None when it does not."""
    typed, wanted = _topic_words(phrase, keep_possessives=True), _topic_words(phrase)
    if not wanted:
        return None
    best: TopicRank | None = None
    for key in _expand_keys(world, keys):
        words = _topic_words(key)
        if not words:
            continue
        if _topic_words(key, keep_possessives=True) == typed:
            rank: TopicRank | None = (4, len(words), 0)
        elif words == wanted:
            rank = (3, len(words), 0)
        elif (end := _ends_at(wanted, words)) is not None:
            rank = (2, len(words), end)
        elif _ends_at(words, wanted) is not None:
            rank = (1, -len(words), 0)
        else:
            rank = None
        if rank is not None and (best is None or rank > best):
            best = rank
    return best


def _expand_keys(world: World, keys: list[str]) -> list[str]:
    """A topic about a character or an item also answers to their other names."""
    expanded = list(keys)
    for key in keys:
        character = world.character(key)
        if character is not None:
            expanded.extend(character.names)
        item = world.items.get(key)
        if item is not None:
            expanded.extend(item.names)
    return expanded


POSSESSIVES = frozenset({"my", "your", "his", "her", "their", "its", "our"})


def _topic_words(text: str, keep_possessives: bool = False) -> tuple[str, ...]:
    """A subject's words: "mud-finds" is mud and finds; articles go, and possessives unless kept."""
    words = [w.strip("'") for w in re.split(r"[\s/-]+", clean(text).replace("'s ", " "))]
    dropped = ARTICLES - POSSESSIVES if keep_possessives else ARTICLES
    return tuple(w for w in words if w and w not in dropped)


def _ends_at(outer: tuple[str, ...], inner: tuple[str, ...]) -> int | None:
    """Where the last run of ``inner`` in ``outer`` ends (its word count so far), None if it is not there."""
    n = len(inner)
    ends = [i + n for i in range(len(outer) - n + 1) if outer[i:i + n] == inner]
    return ends[-1] if ends else None


def names_nothing_known(world: World, phrase: str) -> bool:
    """Whether a subject names nothing the story knows: no person, thing, place or topic of anyone.

    Such a question gets "doesn't know about that" rather than someone's guarded non-answer, which
    would suggest there is something to hide. A question ("what happened?") is not a subject.
    """
    words = [w for w in _topic_words(phrase) if len(w) >= 3]
    if not words or words[0] in QUESTION_WORDS:
        return False
    known = world.subject_words
    return not any(w in known or w.removesuffix("s") in known or f"{w}s" in known for w in words)


QUESTION_WORDS = frozenset({"who", "whom", "whose", "what", "where", "why", "how", "when", "which", "whether",
                            "did", "does", "was", "were", "are", "can", "could", "will", "would"})


def scenery_named(room_text: str, phrase: str) -> bool:
    """Whether every word of ``phrase`` stands in the room's own text ("bollard", "the whelks").

    A place's description names more than its features cover; a noun the player read there deserves an
    answer in the world's voice, never "there's no bollard here". Singular and plural both count.
    """
    wanted = [w.removesuffix("'s") for w in key_words(phrase).split() if len(w) >= 3]
    if not wanted:
        return False
    seen = set(re.findall(r"[a-z][a-z'-]*", clean(room_text)))
    seen |= {part for word in seen for part in word.split("-")}  # "mud-finds" names the finds too
    seen |= {w.removesuffix("'s") for w in seen}  # "the church's clock" names the church
    seen |= {w.removesuffix("s") for w in seen} | {w.removesuffix("es") for w in seen}
    return all(w in seen or w.removesuffix("s") in seen for w in wanted)
