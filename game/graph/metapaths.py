"""Meta-path patterns: two relations in a row that make a two-hop fact worth telling (seed 003).

Retrieval ranks what it found newest first, so in a long game a fact two steps away from the person
asked about ("Mira's brother fears the Watch") loses its place to whatever happened last turn. A pattern
names the shape of a path that carries meaning, ``KIN_OF, FEARS`` (what my family fears), ``MEMBER_OF,
LEADS`` (who leads my guild), ``OWES, SERVES`` (who works for my creditor), and a two-hop fact reached
along such a path keeps a place among the 20 (``rank``).

A step matches its relation in either direction, as the walk itself goes both ways: ``MEMBER_OF,
LEADS`` is "Mira is a member of the Guild, and Tomas leads it". Patterns have exactly two steps, because
the walk goes two hops. Matching is a dictionary look-up per relation pair, so the cost follows what the
walk found, never the size of the graph. Plain NamedTuples, no pydantic and no dataclasses: ``kith graph
retrieve`` runs on the quick path (``game.cli.graph_quick``), where importing either costs more than the
retrieval (issue 15).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple

from game.errors import KithError

if TYPE_CHECKING:
    from game.graph.models import Edge

PatternSource = Literal["default", "world", "discovered"]

PATTERN_STEPS = 2
"""Every pattern has two steps: retrieval walks two hops."""

MAX_PLACES_SHARE = 0.5
"""At most this share of the kept places goes to facts on a pattern's path, so the newest facts always
keep the rest."""

_RELATION = re.compile(r"^[A-Z][A-Z0-9_]*$")


class MetaPath(NamedTuple):
    """A weighted sequence of two relations; ``source`` says where it came from (shown by ``graph patterns``)."""

    relations: tuple[str, str]
    weight: float
    source: PatternSource = "default"

    @property
    def label(self) -> str:
        return ", ".join(self.relations)

    def to_json_dict(self) -> dict[str, object]:
        return {"relations": list(self.relations), "weight": self.weight, "source": self.source}


DEFAULT_PATTERNS: tuple[MetaPath, ...] = (
    MetaPath(("KIN_OF", "FEARS"), 0.9),  # what my family fears
    MetaPath(("MEMBER_OF", "LEADS"), 0.9),  # who leads the group I belong to
    MetaPath(("OWES", "SERVES"), 0.8),  # who works for the one I owe
    MetaPath(("KIN_OF", "OWES"), 0.8),  # family debts
    MetaPath(("SERVES", "ENEMY_OF"), 0.75),  # my master's enemies
)


def make_pattern(relations: Sequence[str], weight: float, source: PatternSource,
                 normalize: Callable[[str], str] | None = None) -> MetaPath:
    """One pattern from what a person wrote, checked; ``normalize`` maps a synonym to its canonical name.

    Raises ``KithError`` with a message that says what to change.
    """
    if len(relations) != PATTERN_STEPS:
        raise KithError(f"a meta-path has exactly {PATTERN_STEPS} relations (got {len(relations)}: "
                        f"{', '.join(map(str, relations)) or 'none'})", title="Meta-path")
    names: list[str] = []
    for relation in relations:
        if not isinstance(relation, str) or not _RELATION.fullmatch(relation):
            raise KithError(f"a meta-path relation must be written in UPPER_SNAKE_CASE, like KIN_OF "
                            f"(got {relation!r})", title="Meta-path")
        names.append(normalize(relation) if normalize else relation)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 < weight <= 1.0:
        raise KithError(f"a meta-path weight is a number above 0 and at most 1 (got {weight!r})", title="Meta-path")
    return MetaPath((names[0], names[1]), round(float(weight), 3), source)


def combine(*groups: Iterable[MetaPath]) -> tuple[MetaPath, ...]:
    """Patterns from several sources, one per relation pair: a later group overrides an earlier one's
    weight (a world may lower a default's). Order matters in a pair: ``FEARS, KIN_OF`` (the kin of whom
    I fear) is another path than ``KIN_OF, FEARS``."""
    chosen: dict[tuple[str, str], MetaPath] = {}
    for group in groups:
        for pattern in group:
            chosen.pop(pattern.relations, None)  # the later one takes the earlier one's place
            chosen[pattern.relations] = pattern
    return tuple(chosen.values())


class PatternIndex:
    """Patterns by their first step, as the walk meets them: a step's relation, then what may follow it."""

    def __init__(self, patterns: Iterable[MetaPath]) -> None:
        weights: dict[tuple[str, str], float] = {}
        for pattern in patterns:
            weights[pattern.relations] = max(weights.get(pattern.relations, 0.0), pattern.weight)
        self.follows: dict[str, list[tuple[str, float]]] = {}
        """A first step's relation -> each second step's relation that completes a pattern, and its weight."""
        for (first, second), weight in weights.items():
            self.follows.setdefault(first, []).append((second, weight))
        self.firsts: frozenset[str] = frozenset(self.follows)


class PathTracker:
    """What one retrieval's walk saw, step by step: which facts lie on a pattern's path, and how much.

    A raised fact is the second step of a matching path; the first step (the relation that leads to it,
    "Mira is Oren's sister") is raised with it, since the far fact means little without it. A fact
    about a starting point is a one-hop fact and never raised. The walk calls ``reach`` for each step
    that may start a path and ``step`` only from a node some such step reached, so a node no pattern
    concerns costs one dictionary look-up.
    """

    def __init__(self, index: PatternIndex, seeds: Container[str]) -> None:
        self.firsts = index.firsts
        self._follows = index.follows
        self._seeds = seeds
        self.boosts: dict[str, float] = {}
        """Edge ID -> the best weight of a matching path it lies on."""
        self.arrived: dict[str, dict[str, list[tuple[Edge, float]]]] = {}
        """Node ID -> the relation a second step must have -> the first steps it would complete, weighed."""

    def reach(self, other: str, edge: Edge) -> None:
        """The walk reached ``other`` (new this hop) by ``edge``, whose relation starts a pattern."""
        seconds = self.arrived.setdefault(other, {})
        for second, weight in self._follows[edge.relation]:
            seconds.setdefault(second, []).append((edge, weight))

    def step(self, firsts: list[tuple[Edge, float]], edge: Edge) -> None:
        """The walk follows ``edge``, which completes a pattern after each of ``firsts``."""
        if edge.source in self._seeds or edge.target in self._seeds:
            return
        boosts = self.boosts
        for first, weight in firsts:
            if first.id != edge.id:
                if weight > boosts.get(edge.id, 0.0):
                    boosts[edge.id] = weight
                if weight > boosts.get(first.id, 0.0):
                    boosts[first.id] = weight


def rank(edges: Sequence[Edge], limit: int, raised: Sequence[Edge] = (),
         boosts: Mapping[str, float] | None = None) -> list[Edge]:
    """The ``limit`` of ``edges`` to keep, in the contract's order (newest first, then the strongest).

    Without ``raised`` (the edges among ``edges`` that ``boosts`` weighs) this is exactly the plain
    ranking. Otherwise the raised facts (best weight first, then newest) take up to ``MAX_PLACES_SHARE``
    of the places, whatever their age, and the rest go by the plain ranking. The kept list is shown in
    the plain order, so the context reads as it always did.
    """
    ordered = sorted(edges, key=plain_key)
    quota = int(limit * MAX_PLACES_SHARE)
    if not raised or not boosts or quota <= 0:
        return ordered[:limit]
    weights = boosts
    best = sorted(raised, key=lambda e: (-weights[e.id], *plain_key(e)))[:quota]
    promoted = {e.id for e in best}
    rest: list[Edge] = []
    room = limit - len(promoted)
    for edge in ordered:  # stops at the places left: the walk may have found hundreds
        if len(rest) >= room:
            break
        if edge.id not in promoted:
            rest.append(edge)
    return sorted(best + rest, key=plain_key)


def plain_key(edge: Edge) -> tuple[int, float, str]:
    """The contract's ranking: ``validAt`` newest first, then ``|strength|``, then the ID (deterministic)."""
    return (-edge.valid_at, -abs(edge.strength), edge.id)


def active_patterns(enabled: bool, world: Iterable[MetaPath] = (), discovered: Iterable[MetaPath] = ()) -> tuple[MetaPath, ...]:
    """The patterns retrieval uses: none when ``[retrieval] metapaths`` is off; else the defaults and the
    world's (which override a default's weight), and the save's discovered ones (never overriding)."""
    return combine(discovered, DEFAULT_PATTERNS, world) if enabled else ()


def patterns_to_json(patterns: Iterable[MetaPath]) -> str:
    """A world's patterns as the save keeps them (meta ``metapaths``), for commands that load no world."""
    return json.dumps([[*p.relations, p.weight] for p in patterns], separators=(",", ":"))


def patterns_from_json(text: str | None, source: PatternSource = "world") -> tuple[MetaPath, ...]:
    """What ``patterns_to_json`` wrote; anything else (an older save has nothing) is no patterns."""
    if not text:
        return ()
    try:
        rows = json.loads(text)
        return tuple(make_pattern(row[:2], row[2], source) for row in rows)
    except (ValueError, TypeError, IndexError, KithError):
        return ()  # written by Kith itself; a damaged value only costs the world's patterns
