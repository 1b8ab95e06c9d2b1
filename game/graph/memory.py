"""A session's graph in memory: nodes, open edges and the adjacency derived from them.

Loaded once when a save opens and kept in step with each commit (``apply``), so a turn's retrieval and
upsert never go back to disk. The adjacency is derived from the open edges and never stored apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from game.graph.knowing_terms import DEFAULT_FLOOR, PUBLIC
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.names import normalize_name
from game.graph.ports import GraphWrites


class GraphIndex:
    """Implements ``GraphReader`` over dictionaries."""

    def __init__(self, nodes: Iterable[Node] = (), open_edges: Iterable[Edge] = (),
                 edge_ids: Iterable[str] = (), retired_node_ids: Iterable[str] = (),
                 knowings: Iterable[Knowing] = ()) -> None:
        """``retired_node_ids``: IDs of nodes merged away, which the merge log still names. ``knowings``:
        the knower rows of every version (closed ones too: time travel asks who knew what then)."""
        self.nodes: dict[str, Node] = {}
        self._retired: set[str] = set(retired_node_ids)
        self.open_edges: dict[str, Edge] = {}
        self._names: dict[str, set[str]] = defaultdict(set)
        self._adjacency: dict[str, set[str]] = defaultdict(set)
        # Open versions by (source, target, relation): upsert asks this for every edge it writes, and a
        # scan of the source's adjacency would cost a hub's whole degree each time.
        self._by_key: dict[tuple[str, str, str], set[str]] = defaultdict(set)
        self._edge_ids: set[str] = set(edge_ids)
        self._longest = 0
        # Knowers both ways: who knows a version (scoped retrieval filters by it) and what a knower knows
        # (``kith graph knows``, gossip's candidates) without scanning every row.
        self._knowers: dict[str, dict[str, Knowing]] = defaultdict(dict)
        self._known: dict[str, set[str]] = defaultdict(set)
        self.player_ids: set[str] = set()  # nodes marked ``player: true``: the player witnesses every turn
        for node in nodes:
            self._put_node(node)
        # What ``_put_edge`` and ``_put_knowing`` do, inlined: a save of 100k versions opens with some
        # 300k of these rows, none of them replacing another, and the calls were a third of the build.
        adjacency, by_key, edge_ids = self._adjacency, self._by_key, self._edge_ids
        for edge in open_edges:
            edge_ids.add(edge.id)
            if edge.invalid_at is None:
                self.open_edges[edge.id] = edge
                adjacency[edge.source].add(edge.id)
                adjacency[edge.target].add(edge.id)
                by_key[(edge.source, edge.target, edge.relation)].add(edge.id)
        knowers, known = self._knowers, self._known
        for knowing in knowings:
            knowers[knowing.edge_id][knowing.knower] = knowing
            known[knowing.knower].add(knowing.edge_id)

    # ------------------------------------------------------------------------------------ updates

    def apply(self, writes: GraphWrites) -> None:
        """Bring the index in step with writes that have just been committed."""
        for node in writes.nodes.values():
            self._put_node(node)
        for edge in writes.edges.values():
            self._put_edge(edge)
        for knowing in writes.knowings.values():
            self._put_knowing(knowing)

    def _put_knowing(self, knowing: Knowing) -> None:
        self._knowers[knowing.edge_id][knowing.knower] = knowing
        self._known[knowing.knower].add(knowing.edge_id)

    def _put_node(self, node: Node) -> None:
        old = self.nodes.get(node.id)
        if old is not None:
            for name in old.names:
                self._names[normalize_name(name)].discard(node.id)
        self.nodes[node.id] = node
        if node.attributes.get("player") is True:
            self.player_ids.add(node.id)
        else:
            self.player_ids.discard(node.id)
        for name in node.names:
            key = normalize_name(name)
            self._names[key].add(node.id)
            self._longest = max(self._longest, len(key))

    def _put_edge(self, edge: Edge) -> None:
        self._edge_ids.add(edge.id)
        old = self.open_edges.pop(edge.id, None)
        if old is not None:
            self._adjacency[old.source].discard(edge.id)
            self._adjacency[old.target].discard(edge.id)
            self._by_key[(old.source, old.target, old.relation)].discard(edge.id)
        if edge.is_open:
            self.open_edges[edge.id] = edge
            self._adjacency[edge.source].add(edge.id)
            self._adjacency[edge.target].add(edge.id)
            self._by_key[(edge.source, edge.target, edge.relation)].add(edge.id)

    # ------------------------------------------------------------------------------------ GraphReader

    async def nodes_named(self, normalized_names: Iterable[str]) -> dict[str, list[Node]]:
        found: dict[str, list[Node]] = {}
        for key in normalized_names:
            nodes = self.nodes_with_name(key)
            if nodes:
                found[key] = nodes
        return found

    async def get_nodes(self, node_ids: Iterable[str]) -> dict[str, Node]:
        return {i: self.nodes[i] for i in node_ids if i in self.nodes}

    async def node_id_taken(self, node_id: str) -> bool:
        return node_id in self.nodes or node_id in self._retired

    async def edge_id_taken(self, edge_id: str) -> bool:
        return self.has_edge_id(edge_id)

    async def open_edges_of(self, node_id: str) -> list[Edge]:
        return [self.open_edges[i] for i in self._adjacency.get(node_id, ())]

    async def open_edges_between(self, source: str, target: str, relation: str) -> list[Edge]:
        return self.open_between(source, target, relation)

    async def open_degree(self, node_ids: Iterable[str]) -> dict[str, int]:
        return {i: len(self._adjacency.get(i, ())) for i in node_ids}

    async def longest_name(self) -> int:
        return self._longest

    def adjacent(self, node_id: str) -> set[str]:
        """IDs of the open versions touching ``node_id`` (gossip follows ties without awaiting)."""
        return set(self._adjacency.get(node_id, ()))

    async def knowings_of(self, edge_ids: Iterable[str]) -> dict[str, dict[str, Knowing]]:
        return {i: dict(self._knowers[i]) for i in edge_ids if self._knowers.get(i)}

    # ------------------------------------------------------------------------------------ without awaiting
    # The same reads for code that runs many thousands of them in a row (``game.graph.bulk``).

    def nodes_with_name(self, normalized_name: str) -> list[Node]:
        """The nodes with a name or alias of that normalized form, by ID."""
        ids = self._names.get(normalized_name)
        if not ids:
            return []
        return sorted((self.nodes[i] for i in ids if i in self.nodes), key=lambda n: n.id)

    def has_edge_id(self, edge_id: str) -> bool:
        return edge_id in self._edge_ids

    def open_between(self, source: str, target: str, relation: str) -> list[Edge]:
        return [self.open_edges[i] for i in self._by_key.get((source, target, relation), ())]

    # ------------------------------------------------------------------------------------ knowledge

    def knowers_of(self, edge_id: str) -> dict[str, Knowing]:
        """Who knows a version, by knower (``PUBLIC`` among them when everyone does)."""
        return dict(self._knowers.get(edge_id, {}))

    def known_by(self, knower: str) -> set[str]:
        """Every version ``knower`` knows, at any confidence; public versions count for everyone."""
        return set(self._known.get(knower, ())) | set(self._known.get(PUBLIC, ()))

    def knows(self, knower: str, edge_id: str, floor: float = DEFAULT_FLOOR) -> bool:
        """Whether ``knower`` knows a version at ``floor`` or above (a public version: everyone does)."""
        rows = self._knowers.get(edge_id)
        if not rows:
            return False
        for who in (knower, PUBLIC):
            row = rows.get(who)
            if row is not None and row.confidence >= floor:
                return True
        return False

    def all_knowings(self) -> list[Knowing]:
        """Every knower row, for dumps and checks."""
        return [row for rows in self._knowers.values() for row in rows.values()]
