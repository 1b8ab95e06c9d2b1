"""A story read whole, before its turns: its people, and the names it says are one person.

``kith import-story`` reads a story nobody here wrote. Its cast is found in the text (``people``), each
with the shorter names the story uses for them; who speaks to whom is followed through the whole text
(``quotes``), so that "I am the King" or "You will find me under the name of the Count Von Kramm" said
by someone already known is an equation of two names: a question of identity for the player, or, when
the speaker was named outright in a said-tag, one person with the evidence kept. Relations are read
turn by turn afterwards, by the fast path every turn takes (``extractor``). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.graph.fast_extract.couples import expanded
from game.graph.fast_extract.gazetteer import Entity, NameIndex
from game.graph.fast_extract.kin_apart import kin_apart
from game.graph.fast_extract.people import Person, people
from game.graph.fast_extract.quotes import Talk, is_voice, read_dialogue
from game.graph.fast_extract.single_marks import single_quotes_doubled
from game.graph.names import normalize_name, slugify
from game.text import strip_control


@dataclass(frozen=True)
class Same:
    """Two people of the story the text says are one: ``name`` may be ``other``, because of ``evidence``."""

    name: str
    other: str
    evidence: str
    sure: bool


@dataclass
class StoryReading:
    """What reading a whole story found: its people (fullest names first) and its statements of identity."""

    people: list[Person] = field(default_factory=list)
    same: list[Same] = field(default_factory=list)
    apart: set[frozenset[str]] = field(default_factory=set)
    """Pairs of names the text says are kin to each other ("Linton Heathcliff was Heathcliff's son"): two
    people, never a question of identity (``kin_apart``)."""


def cast_index(found: list[Person], known: NameIndex | None = None) -> NameIndex:
    """The story's people (and ``known``'s names) as one name index, each person under all their names."""
    index = NameIndex(known.names if known is not None else None)
    for person in found:
        entity = Entity(f"story-{slugify(person.name) or 'person'}", person.name, person.type)
        for name in (person.name, *(alias for alias, _ in person.aliases)):
            index.put(normalize_name(name), entity)
    return index


def read_story(text: str, known: NameIndex | None = None) -> StoryReading:
    """The people of ``text`` beyond ``known``'s names, and the identities its dialogue states."""
    # untrusted text: no escape sequence becomes a name; "Mr. and Mrs. Bennet" is two people (``couples``)
    text = expanded(single_quotes_doubled(strip_control(text)))
    known_names = frozenset(known.names) if known is not None else frozenset()
    apart = kin_apart(text)  # read once: the grouping of names and the identity questions both keep it
    found = people(text, known=known_names, apart=apart)
    index = cast_index(found, known)
    talk = Talk()
    read_dialogue(text, index, talk)
    same: list[Same] = []
    seen: set[frozenset[str]] = set()
    for equation in talk.equations:
        a, b = equation.a, equation.b
        if is_voice(a) or is_voice(b) or a.id == b.id or a.type != b.type:
            continue
        pair = frozenset((a.id, b.id))
        if pair in seen:
            continue
        seen.add(pair)
        same.append(Same(b.name, a.name, equation.evidence, equation.sure))
    return StoryReading(found, same, apart)


def hub_first(same: list[Same]) -> list[Same]:
    """The statements with the name most of them share as the one asked about ("Count Von Kramm — is that
    the King?", "Wilhelm ... — is that the King?"): one person, one candidate, however many names."""
    counts: dict[str, int] = {}
    for item in same:
        counts[item.name] = counts.get(item.name, 0) + 1
        counts[item.other] = counts.get(item.other, 0) + 1
    ordered: list[Same] = []
    for item in same:
        if counts[item.name] > counts[item.other]:
            item = Same(item.other, item.name, item.evidence, item.sure)
        ordered.append(item)
    return ordered


def entity_of(index: NameIndex, name: str) -> Entity | None:
    held = index.names.get(normalize_name(name), [])
    return held[0] if len(held) == 1 else None
