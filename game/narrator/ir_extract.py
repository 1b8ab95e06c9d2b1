"""World IR to upsert calls, deterministically: the offline extractor, and the LLM narrator's fallback.

Characters, groups and factions become nodes; places, items, skills and concepts are dropped here, before
any call is made. Calls are chunked to the tool's limits (8 nodes, 12 edges, 12 closes) and run through
the same ``UpsertExecution`` the LLM extractor's tool calls use.
"""

from __future__ import annotations

from typing import Any

from game.graph.calls import chunk_calls
from game.graph.upsert import UpsertExecution
from game.narrator.base import ExtractionReport
from game.world.ir import GRAPH_KINDS, IRRelation, WorldIR


def _edge(relation: IRRelation) -> dict[str, Any]:
    """An upsert edge for a stated relation, with who learns it when the IR says (the story engine does)."""
    edge: dict[str, Any] = {"sourceName": relation.source, "targetName": relation.target,
                            "relation": relation.relation, "strength": relation.strength, "fact": relation.fact}
    if relation.known_by is not None:
        edge["knownBy"] = relation.known_by
    if relation.public:
        edge["public"] = True
    if relation.told_by:
        edge["toldBy"] = relation.told_by
    return edge


def world_ir_calls(ir: WorldIR, turn: int) -> list[dict[str, Any]]:
    """The upsert calls that record ``ir``: nodes first, so the edges of later calls find them."""
    nodes: list[dict[str, Any]] = []
    for entity in ir.entities:
        node_type = GRAPH_KINDS.get(entity.kind)
        if node_type is None:
            continue
        node: dict[str, Any] = {"name": entity.name, "type": node_type}
        if entity.aliases:
            node["aliases"] = entity.aliases
        if entity.labels:
            node["labels"] = entity.labels
        node["summary"] = entity.summary if entity.summary and len(entity.summary) >= 4 else (
            f"{entity.name}, first met at turn {turn}."
        )
        nodes.append(node)
    edges = [_edge(r) for r in ir.relations]
    closes = [
        {"sourceName": c.source, "targetName": c.target, "relation": c.relation}
        for c in ir.ended_relations
    ]
    return chunk_calls(nodes, edges, closes)


async def apply_world_ir(ir: WorldIR, execution: UpsertExecution) -> ExtractionReport:
    """Run the calls for ``ir``; a rejected call is reported, the others still apply."""
    calls = world_ir_calls(ir, execution.turn)
    errors = []
    for call in calls:
        outcome = await execution.run(call)
        if outcome.error:
            errors.append(outcome.error)
    return ExtractionReport(
        extracted=True, calls=len(calls), rejected=len(errors), message="; ".join(errors),
    )
