"""Reading a sentence as ``kith import-story`` reads a story: its people found in the text first, then its
relations by the fast path over them (the construction tests' one way in)."""

from __future__ import annotations

from game.graph.fast_extract.extractor import FastExtractor
from game.graph.fast_extract.prose import cast_index, read_story

EITHER_WAY = frozenset({"KIN_OF", "ALLY_OF", "ENGAGED_TO", "ENEMY_OF"})
"""Relations a labelled passage may state in either direction."""


def relations_read(text: str) -> set[tuple[str, str, str]]:
    """Every (source, relation, target) the reader finds in ``text``."""
    reading = read_story(text)
    found = FastExtractor().extract(text, cast_index(reading.people))
    return {(t.source, t.relation, t.target) for t in found.triples}


def people_of(text: str) -> set[str]:
    """The names of the people (and groups) the reader finds in ``text``, each by its fullest name."""
    return {person.name for person in read_story(text).people}


def related(text: str, a: str, relation: str, b: str) -> bool:
    """Whether ``text`` reads ``a relation b`` (either way round for a symmetric one)."""
    found = relations_read(text)
    return (a, relation, b) in found or (relation in EITHER_WAY and (b, relation, a) in found)
