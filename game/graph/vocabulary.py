"""The relation vocabulary: canonical relations, their synonyms, inverses, symmetry, valence, exclusions.

Relations are normalized on write: a declared synonym becomes its canonical relation, an inverse is stored
in the canonical direction (``B LED_BY A`` is stored as ``A LEADS B``), and a symmetric relation ignores
direction. A relation outside the vocabulary is kept as written in UPPER_SNAKE_CASE and counted by
``graph stats``: the out-of-vocabulary share is how a vocabulary learns what it lacks.

Each relation has a *valence*: a positive relation (TRUSTS) is stored with a positive strength, a negative
one (FEARS) with a negative strength, so the map's colours and the story's rules read one sign convention.
Some relations *exclude* each other (TRUSTS and DISTRUSTS): between one pair only the newer stays open.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from pydantic import Field

from game.graph.models import CamelModel, Edge

_End = TypeVar("_End")

Valence = Literal["positive", "negative", "neutral"]
SIGN_TOLERANCE = 0.05
"""How far a strength may sit on the wrong side of zero before its sign contradicts the valence."""


class RelationSpec(CamelModel):
    """One canonical relation as a world or the default vocabulary declares it."""

    name: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$", max_length=48)
    description: str = ""
    synonyms: list[str] = Field(default_factory=list)
    inverse: str | None = None
    symmetric: bool = False
    valence: Valence | None = Field(default=None, description="None: neutral (or, for a world adding to a "
                                    "default relation, the valence it already has).")
    excludes: list[str] = Field(default_factory=list, description="Relations that cannot be open between "
                                "the same pair at the same time (listed on either side).")


DEFAULT_RELATIONS: tuple[RelationSpec, ...] = (
    RelationSpec(name="ALLY_OF", symmetric=True, valence="positive", excludes=["ENEMY_OF"], description="stands with the other in a common cause",
                 synonyms=["ALLIED_WITH", "ALLIES_WITH", "ALLY", "ALLIES", "FRIEND_OF", "FRIENDS_WITH"]),
    RelationSpec(name="RIVAL_OF", symmetric=True, valence="negative", description="competes with the other for the same prize",
                 synonyms=["RIVALS_WITH", "RIVAL", "RIVALS", "COMPETES_WITH"]),
    RelationSpec(name="ENEMY_OF", symmetric=True, valence="negative", excludes=["ALLY_OF"], description="works openly against the other",
                 synonyms=["ENEMIES_WITH", "ENEMY", "ENEMIES", "HOSTILE_TO", "AT_WAR_WITH"]),
    RelationSpec(name="TRUSTS", valence="positive", excludes=["DISTRUSTS"], description="relies on the other's word",
                 synonyms=["TRUST", "RELIES_ON", "CONFIDES_IN", "TRUSTED"]),
    RelationSpec(name="DISTRUSTS", valence="negative", excludes=["TRUSTS"], description="expects the other to lie or fail",
                 synonyms=["DISTRUST", "MISTRUSTS", "SUSPECTS", "DOUBTS"]),
    RelationSpec(name="FEARS", valence="negative", description="is afraid of the other",
                 synonyms=["FEAR", "AFRAID_OF", "SCARED_OF", "DREADS"], inverse="FEARED_BY"),
    RelationSpec(name="LOVES", valence="positive", excludes=["HATES"], description="loves the other",
                 synonyms=["LOVE", "IN_LOVE_WITH", "ADORES", "DEVOTED_TO"]),
    RelationSpec(name="HATES", valence="negative", excludes=["LOVES"], description="hates the other",
                 synonyms=["HATE", "DESPISES", "LOATHES", "RESENTS"]),
    RelationSpec(name="KIN_OF", symmetric=True, description="is family to the other",
                 synonyms=["KIN", "FAMILY_OF", "RELATIVE_OF", "SIBLING_OF", "COUSIN_OF"]),
    RelationSpec(name="MEMBER_OF", description="belongs to a group or faction",
                 synonyms=["BELONGS_TO", "PART_OF", "SWORN_TO"], inverse="HAS_MEMBER"),
    RelationSpec(name="LEADS", description="leads or commands the other",
                 synonyms=["COMMANDS", "HEADS", "RULES", "LEADER_OF"], inverse="LED_BY"),
    RelationSpec(name="SERVES", description="works for or obeys the other",
                 synonyms=["WORKS_FOR", "EMPLOYED_BY", "OBEYS", "SERVANT_OF"], inverse="EMPLOYS"),
    RelationSpec(name="OWES", description="is in the other's debt",
                 synonyms=["IN_DEBT_TO", "INDEBTED_TO", "OWES_MONEY_TO"], inverse="OWED_BY"),
    RelationSpec(name="KNOWS_SECRET_OF", description="holds a secret about the other",
                 synonyms=["KNOWS_SECRET_ABOUT", "HAS_DIRT_ON", "HOLDS_SECRET_OF"], inverse="SECRET_KNOWN_BY"),
    RelationSpec(name="KNOWS", symmetric=True, description="is acquainted with the other",
                 synonyms=["ACQUAINTED_WITH", "ACQUAINTANCE_OF", "MET", "KNOWS_OF"]),
)

_NON_WORD = re.compile(r"[^0-9A-Za-z]+")
CANONICAL_FORM = re.compile(r"^[A-Z][A-Z0-9_]*$")


def to_upper_snake(relation: str) -> str:
    """``"works for"`` -> ``WORKS_FOR``; a relation already in UPPER_SNAKE_CASE is returned unchanged."""
    stripped = relation.strip()
    if CANONICAL_FORM.fullmatch(stripped):
        return stripped
    return _NON_WORD.sub("_", stripped).strip("_").upper()


@dataclass(frozen=True)
class NormalizedRelation:
    """A relation as it is stored: its name, whether the endpoints swap, whether the vocabulary knows it.

    It is also the one place relations are *matched*: ``orient``, ``stored_pairs``, ``key`` and
    ``joins`` take ends as a person wrote them (``Veyra -> Bram: LED_BY``) and answer in the stored
    form (canonical name, an inverse's ends swapped, a symmetric relation in either direction). Upsert,
    script checks and the story rules all go through them, so none can match what another would miss.
    """

    name: str
    flipped: bool
    known: bool
    symmetric: bool

    def orient(self, source: _End, target: _End) -> tuple[_End, _End]:
        """The written ends in stored order: swapped for an inverse (``B LED_BY A`` is ``A LEADS B``)."""
        return (target, source) if self.flipped else (source, target)

    def stored_pairs(self, source: _End, target: _End) -> list[tuple[_End, _End]]:
        """Every ``(source, target)`` a stored version of the written relation may have: the oriented
        pair, and its reverse as well for a symmetric relation."""
        return self.directions(*self.orient(source, target))

    def directions(self, first: _End, second: _End) -> list[tuple[_End, _End]]:
        """For ends already in stored order: that order, plus the reverse for a symmetric relation."""
        return [(first, second), (second, first)] if self.symmetric and first != second else [(first, second)]

    def key(self, source: str, target: str) -> tuple[str, str, str]:
        """One key per relation whichever way it was written: oriented, a symmetric one's ends sorted."""
        first, second = self.orient(source, target)
        if self.symmetric and second < first:
            first, second = second, first
        return first, second, self.name

    def joins(self, edge: Edge, sources: Container[str], targets: Container[str]) -> bool:
        """Whether a stored version is this relation from one of ``sources`` to one of ``targets``
        (ends as written: the inverse and symmetry rules are applied here)."""
        if edge.relation != self.name:
            return False
        return any(edge.source in s and edge.target in t for s, t in self.stored_pairs(sources, targets))


@dataclass
class Vocabulary:
    """Canonical relations with lookups for synonyms and inverses."""

    relations: dict[str, RelationSpec] = field(default_factory=dict)
    _lookup: dict[str, tuple[str, bool]] = field(default_factory=dict, repr=False)

    @classmethod
    def default(cls) -> Vocabulary:
        return cls.build(DEFAULT_RELATIONS)

    @classmethod
    def build(cls, specs: tuple[RelationSpec, ...] | list[RelationSpec]) -> Vocabulary:
        vocabulary = cls()
        for spec in specs:
            vocabulary.add(spec)
        return vocabulary

    def extended(self, specs: list[RelationSpec]) -> Vocabulary:
        """A copy with a world's relations added; a spec for a known relation adds to its synonyms."""
        copy = Vocabulary.build(list(self.relations.values()))
        for spec in specs:
            copy.add(spec)
        return copy

    def add(self, spec: RelationSpec) -> None:
        existing = self.relations.get(spec.name)
        if existing is not None:
            spec = existing.model_copy(update={
                "synonyms": [*existing.synonyms, *spec.synonyms],
                "inverse": spec.inverse or existing.inverse,
                "symmetric": spec.symmetric or existing.symmetric,
                "description": spec.description or existing.description,
                "valence": spec.valence or existing.valence,
                "excludes": list(dict.fromkeys([*existing.excludes, *spec.excludes])),
            })
        self.relations[spec.name] = spec
        self._lookup[spec.name] = (spec.name, False)
        for synonym in spec.synonyms:
            self._lookup.setdefault(to_upper_snake(synonym), (spec.name, False))
        if spec.inverse:
            # A symmetric relation is its own inverse; swapping its ends would change nothing.
            self._lookup.setdefault(to_upper_snake(spec.inverse), (spec.name, not spec.symmetric))

    def normalize(self, relation: str) -> NormalizedRelation:
        written = to_upper_snake(relation)
        found = self._lookup.get(written)
        if found is None:
            return NormalizedRelation(written, flipped=False, known=False, symmetric=False)
        name, flipped = found
        return NormalizedRelation(name, flipped, known=True, symmetric=self.relations[name].symmetric)

    def is_symmetric(self, relation: str) -> bool:
        spec = self.relations.get(relation)
        return bool(spec and spec.symmetric)

    def is_known(self, relation: str) -> bool:
        return relation in self.relations

    def valence(self, relation: str) -> Valence:
        """A canonical relation's valence (``neutral`` for relations outside the vocabulary)."""
        spec = self.relations.get(relation)
        return (spec.valence if spec else None) or "neutral"

    def sign_problem(self, relation: str, strength: float) -> str | None:
        """Why ``strength`` contradicts the relation's valence, or None (a little slack around zero)."""
        valence = self.valence(relation)
        if valence == "positive" and strength < -SIGN_TOLERANCE:
            return (f"{relation} is a positive relation: its strength must be positive (got {strength}); "
                    "for the opposite feeling use its opposite relation")
        if valence == "negative" and strength > SIGN_TOLERANCE:
            return (f"{relation} is a negative relation: its strength must be negative, -1 the strongest "
                    f"(got {strength})")
        return None

    def excluded_by(self, relation: str) -> list[str]:
        """The canonical relations that cannot stay open beside ``relation`` between the same pair.

        Exclusion goes both ways whichever side declared it, so a world may write ``excludes`` once.
        """
        found: list[str] = []
        spec = self.relations.get(relation)
        if spec is not None:
            found += [self.normalize(other).name for other in spec.excludes]
        for other in self.relations.values():
            if other.name != relation and relation in {self.normalize(e).name for e in other.excludes}:
                found.append(other.name)
        return [name for name in dict.fromkeys(found) if name != relation]

    def describe(self) -> str:
        """One line per relation, for prompts and ``help``: ``TRUSTS: relies on ... (also: RELIES_ON)``."""
        lines = []
        for spec in self.relations.values():
            extra = []
            if spec.symmetric:
                extra.append("symmetric")
            if spec.inverse:
                extra.append(f"inverse {spec.inverse}")

            if spec.synonyms:
                extra.append("also " + ", ".join(spec.synonyms[:4]))
            tail = f" ({'; '.join(extra)})" if extra else ""
            lines.append(f"{spec.name}: {spec.description}{tail}")
        return "\n".join(lines)
