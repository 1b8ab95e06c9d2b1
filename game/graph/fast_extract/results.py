"""What the fast path returns: triples, closes, co-occurrences and unknown names, in the CLI's JSON shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.graph.models import MAX_CLOSES_PER_CALL, MAX_EDGES_PER_CALL

MAX_FACT_CHARS = 400
MIN_FACT_CHARS = 8


@dataclass(frozen=True)
class Triple:
    """One relation a sentence plainly states, by the canonical names of its two ends."""

    source: str
    target: str
    relation: str
    strength: float
    confidence: float
    sentence: str

    def to_json_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "relation": self.relation,
                "strength": self.strength, "confidence": self.confidence, "sentence": self.sentence}

    @property
    def fact(self) -> str:
        """The sentence as an edge's fact; a very short (often CJK) sentence gets the triple spelled out
        after it, because a fact must be at least 8 characters."""
        fact = self.sentence if len(self.sentence) >= MIN_FACT_CHARS else (
            f"{self.sentence} ({self.source} {self.relation} {self.target})")
        return fact[:MAX_FACT_CHARS]


@dataclass(frozen=True)
class Close:
    """A relation a sentence says has ended ("Mira no longer trusts Tomas"): closed, never inverted."""

    source: str
    target: str
    relation: str
    confidence: float
    sentence: str

    def to_json_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "relation": self.relation,
                "confidence": self.confidence, "sentence": self.sentence}


@dataclass(frozen=True)
class Cooccurrence:
    """Two known names in one sentence, counted over the text; evidence of nothing by itself."""

    a: str
    b: str
    count: int

    def to_json_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "count": self.count}


@dataclass
class Extraction:
    """Everything the fast path read from one text."""

    triples: list[Triple] = field(default_factory=list)
    closes: list[Close] = field(default_factory=list)
    cooccurrences: list[Cooccurrence] = field(default_factory=list)
    unknown_names: list[str] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        """The ``kith graph extract --json`` shape (``closes`` follows the contract's three keys)."""
        return {
            "triples": [t.to_json_dict() for t in self.triples],
            "cooccurrences": [c.to_json_dict() for c in self.cooccurrences],
            "unknownNames": list(self.unknown_names),
            "closes": [c.to_json_dict() for c in self.closes],
        }

    def upsert_calls(self) -> list[dict[str, Any]]:
        """The triples and closes as upsert calls (camelCase, within the per-call limits), for the same
        path a model's extractor and ``kith graph upsert`` take: one execution, committed once."""
        edges = [{"sourceName": t.source, "targetName": t.target, "relation": t.relation,
                  "strength": t.strength, "fact": t.fact} for t in self.triples]
        closes = [{"sourceName": c.source, "targetName": c.target, "relation": c.relation} for c in self.closes]
        calls: list[dict[str, Any]] = [{"edges": edges[i:i + MAX_EDGES_PER_CALL]}
                                       for i in range(0, len(edges), MAX_EDGES_PER_CALL)]
        calls.extend({"closeEdges": closes[i:i + MAX_CLOSES_PER_CALL]}
                     for i in range(0, len(closes), MAX_CLOSES_PER_CALL))
        return calls
