"""A relation's versions and knower rows as the save's tables hold them, and the models they stand for.

A bulk load (``game.graph.bulk``) keeps the graph as these rows rather than as models: it derives, closes
and writes far more versions than it ever reads back, and a pydantic model for each was most of its time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from game.graph.knowledge import Knowing
from game.graph.models import Edge
from game.graph.trusted import trusted

EdgeRow = list[Any]
"""A version as the ``edges`` table holds it: id, source, target, relation, strength, fact, valid_at,
invalid_at, evidence (JSON). A list, so closing a version sets ``invalid_at`` where it lies."""
KnowingRow = tuple[str, str, str, str | None, float, int]
"""A knower row as the ``knowings`` table holds it: edge_id, knower, how, source, confidence, since_turn."""
ID, SOURCE, TARGET, RELATION, STRENGTH, FACT, VALID_AT, INVALID_AT, EVIDENCE = range(9)


def edge_row(edge: Edge) -> EdgeRow:
    return [edge.id, edge.source, edge.target, edge.relation, edge.strength, edge.fact, edge.valid_at,
            edge.invalid_at, json.dumps(edge.evidence_turn_ids)]


def row_edge(row: Sequence[Any]) -> Edge:
    return trusted(Edge, {
        "id": row[ID], "source": row[SOURCE], "target": row[TARGET], "relation": row[RELATION],
        "strength": float(row[STRENGTH]), "fact": row[FACT], "valid_at": row[VALID_AT],
        "invalid_at": row[INVALID_AT], "evidence_turn_ids": json.loads(row[EVIDENCE]),
    })


def knowing_row(knowing: Knowing) -> KnowingRow:
    return (knowing.edge_id, knowing.knower, knowing.how, knowing.source, knowing.confidence, knowing.since_turn)


def row_knowing(row: Sequence[Any]) -> Knowing:
    return trusted(Knowing, {"edge_id": row[0], "knower": row[1], "how": row[2], "source": row[3],
                             "confidence": float(row[4]), "since_turn": row[5]})
