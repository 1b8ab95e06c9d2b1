"""Upsert calls cut to the tool's per-call limits, so a large batch never trips the limits it must obey.

It lives with the graph because the limits (``MAX_NODES_PER_CALL`` and the rest) are the graph's: the
world's turn-0 seeding and the World IR extractor both build their calls through it.
"""

from __future__ import annotations

from typing import Any

from game.graph.models import MAX_CLOSES_PER_CALL, MAX_EDGES_PER_CALL, MAX_NODES_PER_CALL


def chunk_calls(
    nodes: list[dict[str, Any]], edges: list[dict[str, Any]], closes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Upsert calls within the tool's per-call limits: all nodes first, so later edges find them, then
    edges, then closes."""
    calls: list[dict[str, Any]] = []
    for key, items, size in (("nodes", nodes, MAX_NODES_PER_CALL), ("edges", edges, MAX_EDGES_PER_CALL),
                             ("closeEdges", closes, MAX_CLOSES_PER_CALL)):
        calls.extend({key: items[start:start + size]} for start in range(0, len(items), size))
    return calls
