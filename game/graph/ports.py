"""What the graph algorithms need from wherever the graph lives.

The save's tables are read one way: ``game.store.graph_sql.GraphTables``, every read through the
tables' indexes, written once. A one-shot command reads through it directly (``SqlGraph``, or the quick
commands' ``GraphView``); a session reads through ``game.graph.index.GraphIndex``, the graph index
kept in step with each commit, filled lazily from those same reads (``SqlGraphSource``) and holding the
writes not committed yet as an overlay. An import (``game.graph.bulk``) keeps its pending rows itself and
shows them to ``UpsertExecution`` through a small adapter. Upsert and retrieval are written once, against
``GraphReader``; the graph layer never imports the store, so the protocol lives here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from game.graph.knowledge import Knowing
    from game.graph.models import Edge, Node
    from game.graph.names import NameTrie


class GraphReader(Protocol):
    """The reads an upsert execution and a retrieval make."""

    async def nodes_named(self, normalized_names: Iterable[str]) -> dict[str, list[Node]]:
        """Nodes whose normalized name or alias equals each given form (absent forms are left out)."""
        ...

    async def get_nodes(self, node_ids: Iterable[str]) -> dict[str, Node]:
        """The nodes that exist among ``node_ids``."""
        ...

    async def node_id_taken(self, node_id: str) -> bool: ...

    async def edge_id_taken(self, edge_id: str) -> bool: ...

    async def open_edges_of(self, node_id: str) -> list[Edge]:
        """Every open version with ``node_id`` at either end."""
        ...

    async def open_edges_between(self, source: str, target: str, relation: str) -> list[Edge]:
        """Open versions of exactly ``(source, target, relation)``, in that direction."""
        ...

    async def open_degree(self, node_ids: Iterable[str]) -> dict[str, int]:
        """How many open versions touch each node."""
        ...

    async def longest_name(self) -> int:
        """The length of the longest normalized name or alias, which bounds mention candidates."""
        ...

    async def knowings_of(self, edge_ids: Iterable[str]) -> dict[str, dict[str, Knowing]]:
        """The knowers of each given version, by knower (versions nobody knows are left out)."""
        ...

    async def name_trie(self) -> NameTrie:
        """Every normalized name and alias (up to ``longest_name`` long), to find them in a long text in one
        pass. It may hold names no node has any more (``nodes_named`` then finds nothing for them). A
        reader that reads a save builds it anew each call: mention finding asks only for long texts."""
        ...


@dataclass
class GraphWrites:
    """An execution's buffered writes: whole rows to store, committed together, once.

    ``nodes`` holds new and changed nodes; ``edges`` new versions and versions whose ``invalid_at`` (or,
    when enrichment confirms the fast path's reading, whose evidence marks) changed. ``created_*`` tells
    inserts from updates. ``knowings`` holds the knower rows to store, keyed by ``(edge_id, knower)``:
    they commit in the same transaction as the versions they are about.
    """

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[str, Edge] = field(default_factory=dict)
    created_nodes: set[str] = field(default_factory=set)
    created_edges: set[str] = field(default_factory=set)
    knowings: dict[tuple[str, str], Knowing] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.nodes or self.edges or self.knowings)

    def copy(self) -> GraphWrites:
        return GraphWrites(dict(self.nodes), dict(self.edges), set(self.created_nodes), set(self.created_edges),
                           dict(self.knowings))
