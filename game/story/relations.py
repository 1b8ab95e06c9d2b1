"""Open relations as the graph holds them, plus the changes this turn has made and not yet committed.

Relationship conditions read the graph through the request's ``GraphReader``, overlaid with this turn's
pending changes, so a beat sees a trust the player won a moment earlier in the same turn.
"""

from __future__ import annotations

from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.ports import GraphReader
from game.world import World

RelationKey = tuple[str, str, str]


class RelationView:
    """Open relations as the graph holds them, plus this turn's changes not yet committed."""

    def __init__(self, world: World, reader: GraphReader) -> None:
        self.world = world
        self.reader = reader
        self.pending: dict[RelationKey, float | None] = {}
        self._nodes: dict[str, Node | None] = {}

    def record(self, source: str, target: str, relation: str, strength: float | None) -> None:
        """Note this turn's change to a relation; ``None`` closes it. Keys are ``NormalizedRelation.key``
        over normalized names, the upsert's matching, so pending changes need no node looked up."""
        vocabulary = self.world.vocabulary
        normalized = vocabulary.normalize(relation)
        written = normalize_name(source), normalize_name(target)
        self.pending[normalized.key(*written)] = strength
        first, second = normalized.orient(*written)
        if strength is not None:
            # Opening a relation closes those it excludes (distrust ends trust) between the same ends in
            # stored order, as the upsert will.
            for excluded in vocabulary.excluded_by(normalized.name):
                self.pending[vocabulary.normalize(excluded).key(first, second)] = None

    async def strength(self, source: str, target: str, relation: str) -> float | None:
        """The strength of the open version of ``source -relation-> target``, or None when none is open."""
        normalized = self.world.vocabulary.normalize(relation)
        key = normalized.key(normalize_name(source), normalize_name(target))
        if key in self.pending:
            return self.pending[key]
        s_node, t_node = await self._node(key[0]), await self._node(key[1])
        if s_node is None or t_node is None:
            return None
        edges = [edge for s, t in normalized.directions(s_node.id, t_node.id)
                 for edge in await self.reader.open_edges_between(s, t, normalized.name)]
        if not edges:
            return None
        return max(edges, key=lambda e: (e.valid_at, e.id)).strength

    async def node(self, name: str) -> Node | None:
        """The graph node content means by ``name`` (the player's node for the player's name)."""
        return await self._node(normalize_name(name))

    async def _node(self, key: str) -> Node | None:
        if key not in self._nodes:
            found = (await self.reader.nodes_named([key])).get(key, [])
            exact = [n for n in found if normalize_name(n.name) == key]
            if key == normalize_name(self.world.player_name):
                exact = [n for n in exact if n.attributes.get("player")] or exact
            candidates = exact or found
            self._nodes[key] = candidates[0] if candidates else None
        return self._nodes[key]
