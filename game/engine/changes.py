"""What a committed turn did to the graph, in lines a player can read."""

from __future__ import annotations

from collections.abc import Mapping

from game.engine.events import GraphChange
from game.graph.models import Edge, Node
from game.graph.ports import GraphWrites


def _name(node_id: str, nodes: Mapping[str, Node]) -> str:
    node = nodes.get(node_id)
    return node.name if node else node_id


def summarize_writes(writes: GraphWrites, nodes: Mapping[str, Node], turn: int) -> tuple[GraphChange, ...]:
    """New people, new relations, changed relations (old -> new strength) and ended ones."""
    changes: list[GraphChange] = []
    for node_id in sorted(writes.created_nodes):
        node = writes.nodes[node_id]
        changes.append(GraphChange("node-created", f"{node.name} ({node.type}) enters the story"))
    closed = {e.id: e for e in writes.edges.values() if e.id not in writes.created_edges and e.invalid_at == turn}
    closed_by_key: dict[tuple[str, str, str], Edge] = {(e.source, e.target, e.relation): e for e in closed.values()}
    successors: set[tuple[str, str, str]] = set()
    for edge_id in sorted(writes.created_edges):
        edge = writes.edges[edge_id]
        if not edge.is_open:
            continue
        key = (edge.source, edge.target, edge.relation)
        pair = f"{_name(edge.source, nodes)} → {_name(edge.target, nodes)} {edge.relation}"
        old = closed_by_key.get(key)
        if old is not None:
            successors.add(key)
            changes.append(GraphChange("edge-superseded", f"{pair}: {old.strength:+.2f} → {edge.strength:+.2f}"))
        else:
            changes.append(GraphChange("edge-opened", f"{pair} ({edge.strength:+.2f})"))
    for key, edge in closed_by_key.items():
        if key not in successors:
            pair = f"{_name(edge.source, nodes)} → {_name(edge.target, nodes)} {edge.relation}"
            changes.append(GraphChange("edge-closed", f"{pair} ended"))
    return tuple(changes)
