"""The graph index: a session's nodes, open edges and the adjacency derived from them, and who knows what.

Kept in step with each commit (``apply``), so a turn never reads the same part of the graph from disk
twice. It is filled one of two ways:

- **eager** (no ``source``): everything is given to the constructor. Tests, the playthrough without a save,
  a world's turn 0 and bulk imports (which touch most of the graph anyway) use this.
- **lazy** (a ``GraphSource``: the save, read synchronously): nodes at once (every name lookup needs
  them, and there are few); a node's open relations the first time anything asks about that node; a
  version's knowers, and a knower's versions, the first time they are asked for; every open version
  only when something goes through them all (the map). Opening a save of 100k versions then reads a
  few thousand rows instead of 300k, and a turn reads only the neighbourhood it walks.

Writes go on top of what was loaded: before ``apply`` touches a node's relations, a version's knowers
or a knower's versions, that part is loaded first. So the index answers the same whether the writes are
already committed (a session applies after its commit: loading then reads them, and applying them again
changes nothing) or not yet (a bulk load applies line by line and commits at the end).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Protocol

from game.graph.knowing_terms import DEFAULT_FLOOR, PUBLIC
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.names import NameTrie, normalize_name
from game.graph.ports import GraphWrites

Key = tuple[str, str, str]


class GraphSource(Protocol):
    """Where a lazily filled ``GraphIndex`` reads what it has not loaded yet (committed rows only)."""

    def open_edges_touching(self, node_ids: Sequence[str]) -> list[Edge]:
        """Every open version with one of ``node_ids`` at either end."""
        ...

    def all_open_edges(self) -> list[Edge]:
        """Every open version, in the order they were written."""
        ...

    def edge(self, edge_id: str) -> Edge | None:
        """The version with this ID, open or closed, or None."""
        ...

    def knowers_of(self, edge_ids: Sequence[str]) -> dict[str, dict[str, Knowing]]:
        """The knower rows of each version, by knower (versions nobody knows are left out)."""
        ...

    def known_rows(self, knower: str) -> list[Knowing]:
        """Every knower row of every version ``knower`` has a row for (theirs and everyone else's)."""
        ...

    def all_knowings(self) -> list[Knowing]:
        """Every knower row."""
        ...


class OpenEdges(Mapping[str, Edge]):
    """The open versions by ID, as a read-only mapping.

    Looking one up by ID loads only that version; going through them all (iteration, ``values()``,
    ``len``) loads every open version once. Callers that read a few edges by ID (gossip, awareness)
    so never pay for the whole graph.
    """

    def __init__(self, index: GraphIndex) -> None:
        self._index = index

    def __getitem__(self, edge_id: str) -> Edge:
        edge = self._index.open_edge(edge_id)
        if edge is None:
            raise KeyError(edge_id)
        return edge

    def get(self, edge_id: str, default: Edge | None = None) -> Edge | None:  # type: ignore[override]
        edge = self._index.open_edge(edge_id)
        return default if edge is None else edge

    def __contains__(self, edge_id: object) -> bool:
        return isinstance(edge_id, str) and self._index.open_edge(edge_id) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.every_open_edge())

    def __len__(self) -> int:
        return len(self._index.every_open_edge())

    def keys(self) -> KeysView[str]:
        return self._index.every_open_edge().keys()

    def values(self) -> ValuesView[Edge]:
        return self._index.every_open_edge().values()

    def items(self) -> ItemsView[str, Edge]:
        return self._index.every_open_edge().items()

    def __repr__(self) -> str:
        return f"OpenEdges({len(self._index._open)} loaded)"


class GraphIndex:
    """Implements ``GraphReader`` over dictionaries, filled eagerly or lazily (see the module's notes)."""

    def __init__(self, nodes: Iterable[Node] = (), open_edges: Iterable[Edge] = (),
                 edge_ids: Iterable[str] = (), retired_node_ids: Iterable[str] = (),
                 knowings: Iterable[Knowing] = (), *, source: GraphSource | None = None) -> None:
        """``retired_node_ids``: IDs of nodes merged away, which the merge log still names. ``knowings``:
        the knower rows of every version (closed ones too: time travel asks who knew what then).

        With a ``source`` only ``nodes`` and ``retired_node_ids`` are taken; the rest is read from the
        source as it is asked for (``open_edges``, ``edge_ids`` and ``knowings`` must then be empty).
        """
        self._source = source
        self.nodes: dict[str, Node] = {}
        self._retired: set[str] = set(retired_node_ids)
        self._open: dict[str, Edge] = {}
        self._all_open = source is None  # every open version is in ``_open``
        self._loaded: set[str] = set()  # lazy: nodes whose open relations are all in ``_open``
        self._closed: set[str] = set()  # lazy: IDs known not to be an open version (closed, or no version)
        self.open_edges = OpenEdges(self)
        self._names: dict[str, set[str]] = defaultdict(set)
        self._adjacency: dict[str, set[str]] = defaultdict(set)
        # Open versions by (source, target, relation): upsert asks this for every edge it writes, and a
        # scan of the source's adjacency would cost a hub's whole degree each time. Lazily, a key is
        # complete once its source or target is loaded.
        self._by_key: dict[Key, set[str]] = defaultdict(set)
        # Eager: every version ID. Lazy: the IDs written since opening (the source knows the rest).
        self._edge_ids: set[str] = set(edge_ids)
        self._longest = 0
        self._trie: NameTrie | None = None  # built when first asked for, then kept up with new names
        # Knowers both ways: who knows a version (scoped retrieval filters by it) and what a knower knows
        # (``kith graph knows``, gossip's candidates) without scanning every row. Eager: complete, a
        # missing key means no rows. Lazy: an entry present is complete, a missing one is not loaded yet.
        self._knowers: dict[str, dict[str, Knowing]] = {}
        self._known: dict[str, set[str]] = {}
        self._learned: dict[str, set[str]] = {}  # lazy: versions written for a knower not loaded yet
        self.player_ids: set[str] = set()  # nodes marked ``player: true``: the player witnesses every turn
        for node in nodes:
            self._put_node(node)
        # What ``_put_edge`` and ``_put_knowing`` do, inlined: an eager index of a big graph is built from
        # hundreds of thousands of these rows, none of them replacing another.
        adjacency, by_key, ids, open_ = self._adjacency, self._by_key, self._edge_ids, self._open
        for edge in open_edges:
            ids.add(edge.id)
            if edge.invalid_at is None:
                open_[edge.id] = edge
                adjacency[edge.source].add(edge.id)
                adjacency[edge.target].add(edge.id)
                by_key[(edge.source, edge.target, edge.relation)].add(edge.id)
        knowers, known = self._knowers, self._known
        for knowing in knowings:
            rows = knowers.get(knowing.edge_id)
            if rows is None:
                rows = knowers[knowing.edge_id] = {}
            rows[knowing.knower] = knowing
            edges = known.get(knowing.knower)
            if edges is None:
                edges = known[knowing.knower] = set()
            edges.add(knowing.edge_id)

    @property
    def lazy(self) -> bool:
        """Whether parts of the graph are still read from the save as they are asked for."""
        return self._source is not None

    # ------------------------------------------------------------------------------------ loading

    def _ensure_nodes(self, node_ids: Iterable[str]) -> None:
        """Load the open relations of every node among ``node_ids`` not loaded yet (one read for all)."""
        if self._all_open or self._source is None:
            return
        missing = [i for i in dict.fromkeys(node_ids) if i not in self._loaded]
        if not missing:
            return
        wanted = set(missing)
        for stored in self._source.open_edges_touching(missing):
            edge = self._cache(stored)
            if edge is None:
                continue
            for end in (edge.source, edge.target):
                if end in wanted:
                    self._adjacency[end].add(edge.id)
        self._loaded.update(missing)

    def _cache(self, stored: Edge) -> Edge | None:
        """Keep an open version read from the source; what was written here since wins over it."""
        if stored.id in self._closed or stored.invalid_at is not None:
            return None
        held = self._open.get(stored.id)
        if held is None:
            held = self._open[stored.id] = stored
            self._by_key[(stored.source, stored.target, stored.relation)].add(stored.id)
        return held

    def open_edge(self, edge_id: str) -> Edge | None:
        """The open version with this ID, or None (closed, or no such version)."""
        edge = self._open.get(edge_id)
        if edge is not None or self._all_open or self._source is None or edge_id in self._closed:
            return edge
        found = self._source.edge(edge_id)
        edge = self._cache(found) if found is not None else None
        if edge is None:
            self._closed.add(edge_id)
        return edge

    def every_open_edge(self) -> dict[str, Edge]:
        """Every open version by ID, in the order written (loads them all once)."""
        if not self._all_open and self._source is not None:
            ordered: dict[str, Edge] = {}
            for stored in self._source.all_open_edges():
                if stored.id not in self._closed:
                    ordered[stored.id] = self._open.get(stored.id, stored)
            for edge_id, edge in self._open.items():  # written here and not committed yet
                ordered.setdefault(edge_id, edge)
            self._open = ordered
            self._adjacency = defaultdict(set)
            self._by_key = defaultdict(set)
            for edge in ordered.values():
                self._adjacency[edge.source].add(edge.id)
                self._adjacency[edge.target].add(edge.id)
                self._by_key[(edge.source, edge.target, edge.relation)].add(edge.id)
            self._all_open = True
        return self._open

    def _ensure_knowers(self, edge_ids: Iterable[str]) -> None:
        if self._source is None:
            return
        missing = [i for i in dict.fromkeys(edge_ids) if i not in self._knowers]
        if missing:
            loaded = self._source.knowers_of(missing)
            for edge_id in missing:
                self._knowers[edge_id] = loaded.get(edge_id, {})

    def _ensure_known(self, knowers: Iterable[str]) -> None:
        """Load what each knower knows, and with it every row of those versions: whoever asks what someone
        knows asks next who else knows each of those facts (the player's views, ``/why``, awareness)."""
        if self._source is None:
            return
        for knower in knowers:
            if knower in self._known:
                continue
            rows: dict[str, dict[str, Knowing]] = {}
            for row in self._source.known_rows(knower):
                rows.setdefault(row.edge_id, {})[row.knower] = row
            for edge_id, held in rows.items():
                self._knowers.setdefault(edge_id, held)  # a version loaded before keeps what was written since
            self._known[knower] = set(rows) | self._learned.pop(knower, set())

    # ------------------------------------------------------------------------------------ updates

    def apply(self, writes: GraphWrites) -> None:
        """Bring the index in step with writes (committed, or about to be: see the module's notes)."""
        for node in writes.nodes.values():
            self._put_node(node)
        if self._source is not None:
            ends: set[str] = set()
            for edge in writes.edges.values():
                ends.update((edge.source, edge.target))
                if edge.id not in writes.created_edges:
                    old = self.open_edge(edge.id)
                    if old is not None:
                        ends.update((old.source, old.target))
            self._ensure_nodes(ends)
            # A version made by these writes has all its knower rows in them: nothing to read for it.
            for edge_id in writes.created_edges:
                self._knowers.setdefault(edge_id, {})
            self._ensure_knowers(k.edge_id for k in writes.knowings.values())
        for edge in writes.edges.values():
            self._put_edge(edge)
        for knowing in writes.knowings.values():
            self._put_knowing(knowing)

    def _put_knowing(self, knowing: Knowing) -> None:
        rows = self._knowers.get(knowing.edge_id)
        if rows is None:
            rows = self._knowers[knowing.edge_id] = {}
        rows[knowing.knower] = knowing
        edges = self._known.get(knowing.knower)
        if edges is None:
            if self._source is not None:
                # Not loaded yet: kept aside and joined to what is read when it is (a knower's versions
                # only ever grow), so a turn never reads every fact of everyone it teaches something.
                self._learned.setdefault(knowing.knower, set()).add(knowing.edge_id)
                return
            edges = self._known[knowing.knower] = set()
        edges.add(knowing.edge_id)

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
            if self._trie is not None:
                self._trie.add(key)

    def _put_edge(self, edge: Edge) -> None:
        self._edge_ids.add(edge.id)
        old = self._open.pop(edge.id, None)
        if old is not None:
            self._adjacency[old.source].discard(edge.id)
            self._adjacency[old.target].discard(edge.id)
            self._by_key[(old.source, old.target, old.relation)].discard(edge.id)
        if edge.is_open:
            self._closed.discard(edge.id)
            self._open[edge.id] = edge
            self._adjacency[edge.source].add(edge.id)
            self._adjacency[edge.target].add(edge.id)
            self._by_key[(edge.source, edge.target, edge.relation)].add(edge.id)
        elif self._source is not None:
            self._closed.add(edge.id)

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
        return self.id_in_use(node_id)

    def id_in_use(self, node_id: str) -> bool:
        """Whether ``node_id`` names a node, or one merged away (the merge log still names it)."""
        return node_id in self.nodes or node_id in self._retired

    async def edge_id_taken(self, edge_id: str) -> bool:
        return self.has_edge_id(edge_id)

    async def open_edges_of(self, node_id: str) -> list[Edge]:
        self._ensure_nodes((node_id,))
        return [self._open[i] for i in self._adjacency.get(node_id, ())]

    async def open_edges_between(self, source: str, target: str, relation: str) -> list[Edge]:
        return self.open_between(source, target, relation)

    async def open_degree(self, node_ids: Iterable[str]) -> dict[str, int]:
        node_ids = list(node_ids)
        self._ensure_nodes(node_ids)
        return {i: len(self._adjacency.get(i, ())) for i in node_ids}

    async def longest_name(self) -> int:
        return self._longest

    async def name_trie(self) -> NameTrie:
        if self._trie is None:
            self._trie = NameTrie(key for key, ids in self._names.items() if ids)
        return self._trie

    def adjacent(self, node_id: str) -> set[str]:
        """IDs of the open versions touching ``node_id`` (gossip follows ties without awaiting)."""
        self._ensure_nodes((node_id,))
        return set(self._adjacency.get(node_id, ()))

    async def knowings_of(self, edge_ids: Iterable[str]) -> dict[str, dict[str, Knowing]]:
        edge_ids = list(edge_ids)
        self._ensure_knowers(edge_ids)
        return {i: dict(rows) for i in edge_ids if (rows := self._knowers.get(i))}

    # ------------------------------------------------------------------------------------ without awaiting
    # The same reads for code that runs many thousands of them in a row (``game.graph.bulk``).

    def nodes_with_name(self, normalized_name: str) -> list[Node]:
        """The nodes with a name or alias of that normalized form, by ID."""
        ids = self._names.get(normalized_name)
        if not ids:
            return []
        return sorted((self.nodes[i] for i in ids if i in self.nodes), key=lambda n: n.id)

    def has_edge_id(self, edge_id: str) -> bool:
        if edge_id in self._edge_ids or edge_id in self._open:
            return True
        return self._source is not None and self._source.edge(edge_id) is not None

    def open_between(self, source: str, target: str, relation: str) -> list[Edge]:
        if not self._all_open:
            self._ensure_nodes((source,))
        return [self._open[i] for i in self._by_key.get((source, target, relation), ())]

    # ------------------------------------------------------------------------------------ knowledge

    def knowers_of(self, edge_id: str) -> dict[str, Knowing]:
        """Who knows a version, by knower (``PUBLIC`` among them when everyone does)."""
        self._ensure_knowers((edge_id,))
        return dict(self._knowers.get(edge_id, {}))

    def known_by(self, knower: str) -> set[str]:
        """Every version ``knower`` knows, at any confidence; public versions count for everyone."""
        self._ensure_known((knower, PUBLIC))
        return set(self._known.get(knower, ())) | set(self._known.get(PUBLIC, ()))

    def knows(self, knower: str, edge_id: str, floor: float = DEFAULT_FLOOR) -> bool:
        """Whether ``knower`` knows a version at ``floor`` or above (a public version: everyone does)."""
        self._ensure_knowers((edge_id,))
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
        if self._source is None:
            return [row for rows in self._knowers.values() for row in rows.values()]
        found = {(row.edge_id, row.knower): row for row in self._source.all_knowings()}
        for rows in self._knowers.values():  # what was written here wins over what is stored
            for row in rows.values():
                found[(row.edge_id, row.knower)] = row
        return list(found.values())
