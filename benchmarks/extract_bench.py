"""Fast-path extraction for ``make bench``: precision and recall over the labelled narration passages.

The passages (``tests/data/fast_extract/passages.json``) were written for this: every default relation,
negation and "no longer", pronouns, possessives, CJK names, and distractors that state nothing. A
predicted triple is right when its source, target, relation and kind (stated or closed) match an expected
one; a symmetric relation matches in either direction. Target (issue 13): precision >= 0.9 at recall
>= 0.6. A wrong relation costs more than a missed one, which is why precision leads.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.graph.fast_extract.extractor import FastExtractor
from game.graph.fast_extract.gazetteer import Gazetteer
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.names import slugify
from game.graph.vocabulary import Vocabulary

PASSAGES = Path(__file__).resolve().parent.parent / "tests" / "data" / "fast_extract" / "passages.json"
PRECISION_TARGET = 0.9
RECALL_TARGET = 0.6

Key = tuple[str, str, str, bool]


@dataclass
class Score:
    """Counts over the labelled set, and the passages where the extractor was wrong or missed."""

    passages: int = 0
    expected: int = 0
    predicted: int = 0
    correct: int = 0
    wrong: list[tuple[str, Key]] = field(default_factory=list)
    missed: list[tuple[str, Key]] = field(default_factory=list)
    by_relation: Counter[str] = field(default_factory=Counter)

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.expected if self.expected else 1.0


def load_passages(path: Path = PASSAGES) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def cast_index(cast: list[dict[str, Any]]) -> GraphIndex:
    """The passages' cast as a save's graph would hold it (in memory: the bench measures extraction)."""
    nodes = [Node(id=f"npc-{slugify(c['name']) or index}", name=c["name"], aliases=c.get("aliases", []),
                  type=c.get("type", "individual"), summary="A character of the labelled passages.",
                  first_seen_turn=0, last_seen_turn=0, attributes=c.get("attributes", {}))
             for index, c in enumerate(cast)]
    return GraphIndex(nodes)


def _key(source: str, target: str, relation: str, close: bool, vocabulary: Vocabulary) -> Key:
    if vocabulary.is_symmetric(relation):
        source, target = sorted((source, target))
    return (source, target, relation, close)


async def score_async(data: dict[str, Any] | None = None) -> Score:
    data = data or load_passages()
    vocabulary = Vocabulary.default()
    gazetteer = Gazetteer(cast_index(data["cast"]))
    extractor = FastExtractor(vocabulary)
    score = Score()
    for passage in data["passages"]:
        score.passages += 1
        found = extractor.extract(passage["text"], await gazetteer.index_for(passage["text"]))
        predicted = {_key(t.source, t.target, t.relation, False, vocabulary) for t in found.triples}
        predicted |= {_key(c.source, c.target, c.relation, True, vocabulary) for c in found.closes}
        expected = {_key(e["source"], e["target"], e["relation"], bool(e.get("close")), vocabulary)
                    for e in passage["expected"]}
        score.expected += len(expected)
        score.predicted += len(predicted)
        score.correct += len(predicted & expected)
        score.wrong.extend((passage["id"], key) for key in sorted(predicted - expected))
        score.missed.extend((passage["id"], key) for key in sorted(expected - predicted))
        score.by_relation.update(key[2] for key in expected)
    return score


def score_passages(data: dict[str, Any] | None = None) -> Score:
    """Precision and recall of the fast path over the labelled passages."""
    return asyncio.run(score_async(data))


def run(quick: bool = False) -> list[str]:
    """The figures (``quick`` changes nothing: the set takes well under a second)."""
    started = time.perf_counter()
    score = score_passages()
    elapsed = time.perf_counter() - started
    verdict = "meets" if score.precision >= PRECISION_TARGET and score.recall >= RECALL_TARGET else "MISSES"
    lines = [
        f"fast-path extraction over {score.passages} labelled passages: precision {score.precision:.3f}, "
        f"recall {score.recall:.3f} ({score.correct} right of {score.predicted} predicted, "
        f"{score.expected} expected; {verdict} the target of {PRECISION_TARGET} at {RECALL_TARGET})",
        f"relations covered: {len(score.by_relation)}; time {elapsed * 1000:.0f} ms",
    ]
    lines.extend(f"wrong  {pid}: {key[0]} -{key[2]}{' (close)' if key[3] else ''}-> {key[1]}"
                 for pid, key in score.wrong)
    if not quick:
        lines.extend(f"missed {pid}: {key[0]} -{key[2]}{' (close)' if key[3] else ''}-> {key[1]}"
                     for pid, key in score.missed)
    return lines
