"""Pattern discovery: which relation pairs, on this save's graph, lead somewhere new (seed 003).

Every ordered pair of relations the save's open relations use is a candidate path ``first, second``.
It is walked from every relation of the first kind, either end as the start, through the middle person
to the far end of each relation of the second kind there. Three filters, in the seed's words:

- **fan-out cap**: a middle person with more than ``max_fanout`` relations of the second kind is not
  walked through (a hub joins everyone to everyone and means nothing); the pair counts how often;
- **minimum yield**: at least ``min_yield`` distinct (start, far end) pairs, so the shape really occurs;
- **novelty**: at most ``max_overlap`` of those pairs may already be joined by a direct relation, so
  the path tells retrieval something a one-hop walk would not.

Survivors are weighed by how new they are (``weight``, below every default so a world's or a shipped
pattern wins a tie) and ranked by new pairs found; at most ``max_patterns`` are kept. The work is one
pass over the open relations and each middle person's capped neighbourhood: cost follows the graph's
size times a bounded fan-out, and the same graph gives the same answer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from game.graph.metapaths import MetaPath

if TYPE_CHECKING:
    from game.graph.models import Edge


@dataclass(frozen=True)
class DiscoverySettings:
    """The filters' thresholds (defaults as the seed's plugin ships them)."""

    max_fanout: int = 50
    min_yield: int = 3
    max_overlap: float = 0.9
    max_patterns: int = 12


@dataclass
class Candidate:
    """One relation pair as walked on the save, and what became of it."""

    relations: tuple[str, str]
    pairs: set[tuple[str, str]] = field(default_factory=set)
    joined: int = 0
    """How many of ``pairs`` a direct relation already joins."""
    fanout_skipped: int = 0
    verdict: str = ""

    @property
    def yield_(self) -> int:
        return len(self.pairs)

    @property
    def novelty(self) -> float:
        return 1.0 - self.joined / len(self.pairs) if self.pairs else 0.0

    def weight(self) -> float:
        """0.5 for a path that finds nothing new beyond the cap of overlap, up to 0.8 for all-new pairs."""
        return round(0.5 + 0.3 * self.novelty, 2)

    def to_json_dict(self) -> dict[str, object]:
        return {"relations": list(self.relations), "weight": self.weight(), "yield": self.yield_,
                "novelty": round(self.novelty, 3), "fanoutSkipped": self.fanout_skipped, "verdict": self.verdict}


@dataclass
class Discovery:
    """Every candidate walked, and the patterns that survived, best first."""

    candidates: list[Candidate]
    kept: list[MetaPath]


def discover(edges: Iterable[Edge], settings: DiscoverySettings | None = None,
             known: Sequence[MetaPath] = ()) -> Discovery:
    """Walk every candidate pair over ``edges`` (open versions, one per relation) and filter them.

    ``known``: patterns already in force (defaults, the world's); a pair among them is reported as
    ``already a pattern`` and not kept again.
    """
    settings = settings or DiscoverySettings()
    by_node: dict[str, dict[str, list[Edge]]] = defaultdict(lambda: defaultdict(list))
    neighbours: dict[str, set[str]] = defaultdict(set)
    edge_list = list(edges)
    for edge in edge_list:
        if edge.source == edge.target:
            continue
        by_node[edge.source][edge.relation].append(edge)
        by_node[edge.target][edge.relation].append(edge)
        neighbours[edge.source].add(edge.target)
        neighbours[edge.target].add(edge.source)
    candidates: dict[tuple[str, str], Candidate] = {}
    for first in edge_list:
        for start, middle in ((first.source, first.target), (first.target, first.source)):
            for relation, seconds in by_node[middle].items():
                candidate = candidates.get((first.relation, relation))
                if candidate is None:
                    candidate = candidates[(first.relation, relation)] = Candidate((first.relation, relation))
                if len(seconds) > settings.max_fanout:
                    candidate.fanout_skipped += 1
                    continue
                for second in seconds:
                    if second.id == first.id:
                        continue
                    far = second.target if second.source == middle else second.source
                    if far != start:
                        candidate.pairs.add((start, far))
    known_pairs = {pattern.relations for pattern in known}
    survivors: list[Candidate] = []
    for candidate in candidates.values():
        candidate.joined = sum(1 for start, far in candidate.pairs if far in neighbours[start])
        if candidate.relations in known_pairs:
            candidate.verdict = "already a pattern"
        elif candidate.yield_ < settings.min_yield:
            candidate.verdict = f"yield {candidate.yield_} below {settings.min_yield}"
        elif 1.0 - candidate.novelty > settings.max_overlap:
            candidate.verdict = f"overlap {1.0 - candidate.novelty:.2f} above {settings.max_overlap}"
        else:
            candidate.verdict = "kept"
            survivors.append(candidate)
    survivors.sort(key=lambda c: (-(c.yield_ - c.joined), -c.novelty, c.relations))
    for dropped in survivors[settings.max_patterns:]:
        dropped.verdict = f"beyond the {settings.max_patterns} best"
    kept = [MetaPath(c.relations, c.weight(), "discovered") for c in survivors[: settings.max_patterns]]
    ordered = sorted(candidates.values(), key=lambda c: (c.verdict != "kept", -c.yield_, c.relations))
    return Discovery(ordered, kept)
