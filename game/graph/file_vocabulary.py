"""A vocabulary that answers from memory for one bulk load (``kith graph import``).

A 100k-version import asked ``normalize`` 750k times (each a regex and a new object) and ``excluded_by``
100k times (each a scan of every relation); the answers never change while one file is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.graph.vocabulary import NormalizedRelation, Vocabulary


@dataclass
class FileVocabulary(Vocabulary):
    """A vocabulary that remembers its answers for the length of one import.

    Only for a vocabulary nobody changes while it is used: ``add`` after a question would leave the
    remembered answers stale. An import builds one per file and never adds to it.
    """

    _normalized: dict[str, NormalizedRelation] = field(default_factory=dict, repr=False)
    _excluded: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, vocabulary: Vocabulary) -> FileVocabulary:
        """The same relations as ``vocabulary``, answering from memory after the first time."""
        copy = cls()
        copy.relations = dict(vocabulary.relations)
        copy._lookup = dict(vocabulary._lookup)
        return copy

    def normalize(self, relation: str) -> NormalizedRelation:
        found = self._normalized.get(relation)
        if found is None:
            found = self._normalized[relation] = super().normalize(relation)
        return found

    def excluded_by(self, relation: str) -> list[str]:
        found = self._excluded.get(relation)
        if found is None:
            found = self._excluded[relation] = super().excluded_by(relation)
        return list(found)
