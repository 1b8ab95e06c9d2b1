"""An upsert execution's buffered writes, with the lookups and the undo log that keep each call cheap.

Every call of an execution reads what earlier calls buffered: a node by name, the open versions of a
relation. Scanning or copying the whole buffer per call made a long execution quadratic (16k calls of
``kith graph upsert`` took 77 s), so the buffer keeps an index by normalized name and by
``(source, target, relation)``, and a rejected call is taken back from a log of what it changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.names import normalize_name
from game.graph.ports import GraphWrites


@dataclass(frozen=True)
class _Undo:
    """How to take back one buffered write of the current call."""

    kind: Literal["node", "edge", "knowing"]
    key: str  # a knowing's is ``"<edge_id>|<knower>"`` (IDs are slugs: ``|`` never occurs in them)
    previous: Node | Edge | Knowing | None
    was_created: bool


class WriteBuffer:
    """``writes`` (what will be committed) plus lookups into it, kept in step write by write."""

    def __init__(self) -> None:
        self.replace(GraphWrites())

    @property
    def writes(self) -> GraphWrites:
        return self._writes

    def replace(self, writes: GraphWrites) -> None:
        """Start over from ``writes`` (a copy its owner kept, e.g. before an extraction that failed)."""
        self._writes = writes
        self._names: dict[str, set[str]] = {}
        self._edges: dict[tuple[str, str, str], set[str]] = {}
        self._undo: list[_Undo] = []
        for node in writes.nodes.values():
            self._index_node(node, add=True)
        for edge in writes.edges.values():
            self._edges.setdefault((edge.source, edge.target, edge.relation), set()).add(edge.id)

    # ------------------------------------------------------------------------------------- lookups

    def nodes_named(self, key: str) -> list[Node]:
        """Buffered nodes one of whose names normalizes to ``key``."""
        return [self._writes.nodes[node_id] for node_id in self._names.get(key, ())]

    def edges_between(self, source: str, target: str, relation: str) -> list[Edge]:
        """Buffered versions of exactly ``(source, target, relation)``, open or closed."""
        ids = self._edges.get((source, target, relation), ())
        # An ID may outlive a rolled-back write in this index; the writes themselves are the truth.
        return [self._writes.edges[edge_id] for edge_id in ids if edge_id in self._writes.edges]

    # ------------------------------------------------------------------------------------- writes

    def begin_call(self) -> None:
        """Forget the previous call's undo log: what it wrote is accepted."""
        self._undo = []

    def put_node(self, node: Node, *, created: bool = False) -> None:
        writes = self._writes
        previous = writes.nodes.get(node.id)
        self._undo.append(_Undo("node", node.id, previous, node.id in writes.created_nodes))
        self._index_node(previous, add=False)
        writes.nodes[node.id] = node
        self._index_node(node, add=True)
        if created:
            writes.created_nodes.add(node.id)

    def put_edge(self, edge: Edge, *, created: bool = False) -> None:
        writes = self._writes
        self._undo.append(_Undo("edge", edge.id, writes.edges.get(edge.id), edge.id in writes.created_edges))
        writes.edges[edge.id] = edge
        self._edges.setdefault((edge.source, edge.target, edge.relation), set()).add(edge.id)
        if created:
            writes.created_edges.add(edge.id)

    def put_knowing(self, knowing: Knowing) -> None:
        """Buffer a knower row, replacing any buffered row of the same ``(edge_id, knower)``."""
        knowings = self._writes.knowings
        self._undo.append(_Undo("knowing", "|".join(knowing.key), knowings.get(knowing.key), False))
        knowings[knowing.key] = knowing

    def knowing(self, edge_id: str, knower: str) -> Knowing | None:
        """The buffered row of a knower of a version, if any."""
        return self._writes.knowings.get((edge_id, knower))

    def roll_back(self) -> None:
        """Take back the current call's writes, newest first: the buffer is as it was before the call."""
        writes = self._writes
        for undo in reversed(self._undo):
            if undo.kind == "knowing":
                edge_id, _, knower = undo.key.partition("|")
                if isinstance(undo.previous, Knowing):
                    writes.knowings[(edge_id, knower)] = undo.previous
                else:
                    del writes.knowings[(edge_id, knower)]
            elif undo.kind == "node":
                self._index_node(writes.nodes.get(undo.key), add=False)
                if isinstance(undo.previous, Node):
                    writes.nodes[undo.key] = undo.previous
                    self._index_node(undo.previous, add=True)
                else:
                    del writes.nodes[undo.key]
                if not undo.was_created:
                    writes.created_nodes.discard(undo.key)
            else:
                if isinstance(undo.previous, Edge):
                    writes.edges[undo.key] = undo.previous
                else:
                    del writes.edges[undo.key]
                if not undo.was_created:
                    writes.created_edges.discard(undo.key)
        self._undo = []

    def _index_node(self, node: Node | None, *, add: bool) -> None:
        if node is None:
            return
        for name in node.names:
            ids = self._names.setdefault(normalize_name(name), set())
            if add:
                ids.add(node.id)
            else:
                ids.discard(node.id)
