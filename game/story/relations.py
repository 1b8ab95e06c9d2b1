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

    def key(self, source: str, target: str, relation: str) -> tuple[RelationKey, bool]:
        """The stored form of a relation (canonical name and direction), and whether it is symmetric."""
        normalized = self.world.vocabulary.normalize(relation)
        if normalized.flipped:
            source, target = target, source
        if normalized.symmetric and normalize_name(target) < normalize_name(source):
            source, target = target, source
        return (normalize_name(source), normalize_name(target), normalized.name), normalized.symmetric

    def record(self, source: str, target: str, relation: str, strength: float | None) -> None:
        key = self.key(source, target, relation)[0]
        self.pending[key] = strength
        if strength is not None:
            # Opening a relation closes those it excludes (distrust ends trust), as the upsert will.
            stored_source, stored_target = (target, source) if self.world.vocabulary.normalize(relation).flipped \
                else (source, target)
            for excluded in self.world.vocabulary.excluded_by(key[2]):
                for s, t in ((stored_source, stored_target), (stored_target, stored_source)):
                    other, symmetric = self.key(s, t, excluded)
                    if symmetric or (s, t) == (stored_source, stored_target):
                        self.pending[other] = None

    async def strength(self, source: str, target: str, relation: str) -> float | None:
        """The strength of the open version of ``source -relation-> target``, or None when none is open."""
        (s_key, t_key, name), symmetric = self.key(source, target, relation)
        if (s_key, t_key, name) in self.pending:
            return self.pending[(s_key, t_key, name)]
        s_node, t_node = await self._node(s_key), await self._node(t_key)
        if s_node is None or t_node is None:
            return None
        edges = list(await self.reader.open_edges_between(s_node.id, t_node.id, name))
        if symmetric:
            edges += await self.reader.open_edges_between(t_node.id, s_node.id, name)
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
