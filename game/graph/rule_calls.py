"""An upsert call of the game's own rules run through a turn's extraction (``StepResult.agreement``).

A feature's rule (the attitudes' tier kept in agreement with the graph) states its change as an upsert
call, as any writer of the graph does. Run through the turn's own execution, the call reads the turn's
buffered versions (closing one the turn opened, superseding one it renewed); only what the call adds or
changes joins the turn's writes, which the features' steps have already trimmed. The core runs such a
call after a told turn's step, ``/relationship NAME set`` and a merge of people run theirs the same way:
here, in the graph layer, so each can and none imports another.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from game.graph.ports import GraphWrites
from game.graph.upsert import UpsertExecution


async def apply_rule_call(execution: UpsertExecution, writes: GraphWrites, call: Mapping[str, Any]) -> GraphWrites:
    """``writes`` with ``call`` applied through ``execution``; a refused call changes nothing."""
    if not call:
        return writes
    before_edges = dict(execution.writes.edges)
    before_knowings = dict(execution.writes.knowings)
    # A rule of the game, not a reading of the turn's text: the limits on endings read from text
    # (``game.graph.endings``) neither hold it nor count it.
    endings, execution.endings = execution.endings, None
    try:
        outcome = await execution.run(dict(call))
    finally:
        execution.endings = endings
    if outcome.error is not None:
        return writes
    after = execution.writes
    merged = writes.copy()
    for edge_id, edge in after.edges.items():
        if before_edges.get(edge_id) != edge:
            merged.edges[edge_id] = edge
            if edge_id in after.created_edges:
                merged.created_edges.add(edge_id)
    for key, row in after.knowings.items():
        if before_knowings.get(key) != row:
            merged.knowings[key] = row
    return merged
