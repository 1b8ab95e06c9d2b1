"""Shared builders for the graph tests.

Graphs are built two ways: through real upsert executions (``Harness``), which is how the game writes,
and directly from rows (``rows``), for shapes upsert refuses to produce on purpose (dangling edges,
several open versions of one relation) and for graphs too large to build call by call.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from game.graph.index import GraphIndex
from game.graph.models import Edge, Node, NodeType
from game.graph.names import slugify
from game.graph.ports import GraphWrites
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary


def node_call(name: str, summary: str | None = "Someone in the story.", **fields: Any) -> dict[str, Any]:
    """A node item of an upsert call, camelCase as a model would write it."""
    item: dict[str, Any] = {"name": name, **fields}
    if summary is not None:
        item["summary"] = summary
    return item


def edge_call(source: str, target: str, relation: str, strength: float | None = None,
              fact: str | None = None) -> dict[str, Any]:
    """An edge item; without a strength, 0.5 of the sign the relation's valence asks for."""
    if strength is None:
        strength = -0.5 if Vocabulary.default().valence(Vocabulary.default().normalize(relation).name) == "negative" else 0.5
    return {
        "sourceName": source, "targetName": target, "relation": relation, "strength": strength,
        "fact": fact or f"{source} and {target} are bound by {relation.lower()}.",
    }


class Harness:
    """A session's in-memory graph plus every version ever written, as the save would keep them."""

    def __init__(self, vocabulary: Vocabulary | None = None) -> None:
        self.index = GraphIndex()
        self.versions: dict[str, Edge] = {}
        self.vocabulary = vocabulary or Vocabulary.default()
        self.rng = random.Random(2024)

    async def execute(self, calls: Sequence[Any], turn: int) -> list[dict[str, Any]]:
        """Run calls as one execution and commit its writes once, like a turn."""
        execution = UpsertExecution(self.index, self.vocabulary, turn, rng=self.rng)
        outcomes = [(await execution.run(call)).to_json_dict() for call in calls]
        self.index.apply(execution.writes)
        self.versions.update(execution.writes.edges)
        return outcomes

    async def upsert(self, call: Any, turn: int = 1) -> dict[str, Any]:
        return (await self.execute([call], turn))[0]

    def node(self, name: str) -> Node:
        matches = [n for n in self.index.nodes.values() if n.name == name]
        assert len(matches) == 1, f"expected one node named {name!r}, found {len(matches)}"
        return matches[0]

    def versions_of(self, source: str, target: str, relation: str) -> list[Edge]:
        """Every version of a relation by its ends' names, oldest first."""
        s, t = self.node(source).id, self.node(target).id
        found = [e for e in self.versions.values() if (e.source, e.target, e.relation) == (s, t, relation)]
        return sorted(found, key=lambda e: (e.valid_at, e.invalid_at is None))

    def open_of(self, source: str, target: str, relation: str) -> list[Edge]:
        return [e for e in self.versions_of(source, target, relation) if e.is_open]


def make_node(name: str, *, node_type: NodeType = "individual", aliases: Iterable[str] = (),
              turn: int = 0, node_id: str | None = None) -> Node:
    return Node(
        id=node_id or f"npc-{slugify(name)}", name=name, aliases=list(aliases), type=node_type,
        summary=f"{name}, a person of the story.", first_seen_turn=turn, last_seen_turn=turn,
    )


_edge_counter = 0


def make_edge(source: Node | str, target: Node | str, relation: str = "KNOWS", strength: float = 0.5, *,
              valid_at: int = 0, invalid_at: int | None = None, fact: str | None = None,
              edge_id: str | None = None) -> Edge:
    global _edge_counter
    _edge_counter += 1
    s = source.id if isinstance(source, Node) else source
    t = target.id if isinstance(target, Node) else target
    return Edge(
        id=edge_id or f"edge-{slugify(relation)}-t{_edge_counter:05d}", source=s, target=t, relation=relation,
        strength=strength, fact=fact or f"{s} {relation.lower()} {t} (turn {valid_at}).",
        valid_at=valid_at, invalid_at=invalid_at, evidence_turn_ids=[f"turn-{valid_at}"],
    )


def rows(nodes: Iterable[Node], edges: Iterable[Edge] = ()) -> GraphWrites:
    """Rows as a commit would write them, for an index (``GraphIndex().apply``) or a save."""
    writes = GraphWrites()
    for node in nodes:
        writes.nodes[node.id] = node
        writes.created_nodes.add(node.id)
    for edge in edges:
        writes.edges[edge.id] = edge
        writes.created_edges.add(edge.id)
    return writes


def index_of(writes: GraphWrites) -> GraphIndex:
    index = GraphIndex()
    index.apply(writes)
    return index
