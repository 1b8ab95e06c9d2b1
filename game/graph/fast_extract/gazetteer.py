"""Names to nodes: the save's names and aliases, plus nodes added since (an import's new people).

Matching is ``game.graph.names``' (the same as retrieval's): a name in a spaced script stands as a word,
a CJK name may stand anywhere, and a shorter name inside a longer one at the same place gives way. A
name several nodes answer to is a mention of *someone*, never of either: it blocks shorter matches
inside it but yields no relation (identity is never guessed: see ``resolve_name``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

from game.graph.fast_extract.couples import expanded
from game.graph.mentions import spans_named
from game.graph.models import Node
from game.graph.names import NameTrie, normalize_name
from game.graph.ports import GraphReader
from game.text import straighten_quotes

CASED_NAMES = frozenset({"father", "mother", "papa", "mama", "mamma", "grandma", "grandpa", "granny",
                         "grandmother", "grandfather", "pack", "tribe", "clan"})
"""Names that are also common nouns ("Father" in "We've got Father and Mother"): a node so named is meant
only where the word is written as a name, with a capital, never in "her father" ("the Pack", not "a pack")."""


@dataclass(frozen=True)
class Entity:
    """A node as the extractor sees it: enough to name it and to check a pronoun against it."""

    id: str
    name: str
    type: str
    pronouns: str = ""

    @classmethod
    def of(cls, node: Node) -> Entity:
        raw = node.attributes.get("pronouns") or node.attributes.get("gender") or ""
        return cls(node.id, node.name, node.type, str(raw).casefold())


@dataclass(frozen=True)
class Mention:
    """A span of a sentence's normalized text naming a known node (``entity`` None when ambiguous)."""

    start: int
    end: int
    entity: Entity | None


class NameIndex:
    """A synchronous snapshot of the names one text can mention: normalized name -> entities."""

    def __init__(self, names: dict[str, list[Entity]] | None = None) -> None:
        self.names: dict[str, list[Entity]] = {}
        self.longest = 0
        self._trie = NameTrie()
        for key, entities in (names or {}).items():
            for entity in entities:
                self.put(key, entity)

    def put(self, key: str, entity: Entity) -> None:
        held = self.names.setdefault(key, [])
        if all(e.id != entity.id for e in held):
            held.append(entity)
        self.longest = max(self.longest, len(key))
        self._trie.add(key)

    def mentions(self, sentence: str) -> list[Mention]:
        """Non-overlapping mentions in ``normalize_name(sentence)``, left to right, longest first."""
        if self.longest <= 0:
            return []
        spans = self._trie.find(sentence)
        if any(text in CASED_NAMES for _, _, text in spans):
            written = " ".join(straighten_quotes(sentence).split())  # as normalized, less the case-folding
            spans = [(s, e, text) for s, e, text in spans
                     if text not in CASED_NAMES or len(written) != len(normalize_name(sentence)) or written[s].isupper()]
        found = [(start, end, self.names[text]) for start, end, text in spans]
        # Longest first, then leftmost: "Old Tom" hides "Tom", and two names never share a character.
        found.sort(key=lambda m: (-(m[1] - m[0]), m[0]))
        # The spans taken are disjoint, so the one starting last before ``end`` is the only one that can
        # overlap: a bisect each, not a look at every span taken (a paragraph naming thousands was quadratic).
        taken_starts: list[int] = []
        taken_ends: list[int] = []
        kept: list[Mention] = []
        for start, end, entities in found:
            before = bisect_left(taken_starts, end)
            if before and taken_ends[before - 1] > start:
                continue
            taken_starts.insert(before, start)
            taken_ends.insert(before, end)
            kept.append(Mention(start, end, entities[0] if len(entities) == 1 else None))
        kept.sort(key=lambda m: m.start)
        return kept


class Gazetteer:
    """The save's names (read through a ``GraphReader``) and the nodes added to it since."""

    def __init__(self, reader: GraphReader | None = None, nodes: Iterable[Node] = ()) -> None:
        self.reader = reader
        self.added = NameIndex()
        for node in nodes:
            self.add(node)

    def add(self, node: Node) -> None:
        """A node the reader does not hold yet (or holds under fewer names): it is matched from now on."""
        entity = Entity.of(node)
        for name in node.names:
            self.added.put(normalize_name(name), entity)

    async def index_for(self, text: str) -> NameIndex:
        """The names ``text`` can mention: one lookup of its candidate spans, however large the save."""
        index = NameIndex(self.added.names)
        if self.reader is None:
            return index
        # the text as the readers read it: "Mr. and Mrs. Bonacieux" names Mr. Bonacieux too (``couples``)
        _, named = await spans_named(self.reader, expanded(text))
        for key, nodes in named.items():
            for node in nodes:
                # A node both read and added answers to the names of either copy, as one entity.
                index.put(key, Entity.of(node))
        return index
