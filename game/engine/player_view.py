"""What the player's views (map, focus list, node details, ``/graph``, ``kith graph map``) may show.

The player knows the people in the scene's ``known`` (met or heard of) and the relation versions whose
knowers include them or everyone. A character's description is the world's ``public`` text plus the
revelations learned, never the authored summary. A save from before awareness was kept, or a graph with
no player, shows everything, as it did before.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from game.graph.index import GraphIndex
from game.graph.knowing_terms import PUBLIC
from game.graph.map.known import KnownView, known_by_one, known_graph
from game.graph.models import Edge, Node
from game.world.awareness import Known
from game.world.model import World
from game.world.scene import SceneState


def learned_by(graph: GraphIndex, knowers: set[str]) -> dict[str, int]:
    """Every version any of ``knowers`` (or everyone) knows -> the first turn one of them learned it."""
    edges: set[str] = set()
    for knower in knowers:
        edges |= graph.known_by(knower)
    learned: dict[str, int] = {}
    for edge_id in edges:
        rows = graph.knowers_of(edge_id)
        turns = [row.since_turn for who, row in rows.items() if who in knowers or who == PUBLIC]
        if turns:
            learned[edge_id] = min(turns)
    return learned


def known_ids(scene: SceneState | None, graph: GraphIndex) -> Known | None:
    """The people the player has met or heard of (node id -> awareness), or None when they may see everyone.

    The one rule for who the player knows of: the map and ``/graph`` show these, and every inspector
    command resolves a typed name among them (``game.engine.known_names``).
    """
    if scene is None or scene.known is None or not graph.player_ids:
        return None
    return scene.known


def player_view(world: World | None, scene: SceneState | None, graph: GraphIndex) -> KnownView | None:
    """The player's knowledge, or None when the player may see everything."""
    known = known_ids(scene, graph)
    if known is None:
        return None
    summaries: dict[str, str] = {}
    if world is not None:
        for node_id, aware in known.items():
            character = world.character(aware.name)
            if character is not None and not world.is_player(aware.name):
                summaries[node_id] = world.text(character.seen_as(aware.revealed))
    nodes = {node_id: aware.since_turn for node_id, aware in known.items()}
    return KnownView(nodes, learned_by(graph, set(graph.player_ids)), summaries)


def npc_view(graph: GraphIndex, node_id: str, edges: Iterable[Edge]) -> KnownView:
    """What one person knows: the relation versions they know, and so the people in them."""
    return known_by_one(node_id, learned_by(graph, {node_id}), edges)


def layout_graph(graph: GraphIndex) -> tuple[list[Node], list[Edge]]:
    """What the map lays out, whole, when it places people it has no position for (the pane after a turn or
    on opening a save that keeps no layout, ``kith graph map`` on such a save): every node, the unknown too,
    and the open relations."""
    return sorted(graph.nodes.values(), key=lambda n: (n.first_seen_turn, n.id)), list(graph.open_edges.values())


class MapSource(Protocol):
    """What the map is drawn from: an open game (``GameSession`` is one)."""

    @property
    def world(self) -> World: ...
    @property
    def scene(self) -> SceneState: ...
    @property
    def graph(self) -> GraphIndex: ...
    async def all_nodes(self) -> list[Node]: ...
    async def all_edges(self) -> list[Edge]: ...
    async def stage_at(self, turn: int | None) -> list[str]: ...


@dataclass(frozen=True)
class PlayerMap:
    """The graph a map is laid out from, and what of it the player may see (``shown_*``)."""

    nodes: list[Node]
    """Every node, the unknown too: laid out whole, a person keeps the place they will have once known."""
    edges: list[Edge]
    shown_nodes: list[Node]
    shown_edges: list[Edge]
    stage: tuple[str, ...]
    """Who is on stage now (node ids)."""


async def player_map(game: MapSource, *, history: bool, at_turn: int | None = None) -> PlayerMap:
    """The map of ``game``: every version of every edge from the save with ``history`` (ended relations,
    the past, a name's history), else the open ones the session's graph index holds, which cost no reads. Its
    stage is who was on stage after ``at_turn`` (now, when None), so the past is centred on its own scene."""
    if history:
        nodes, edges = await game.all_nodes(), await game.all_edges()
    else:
        nodes, edges = layout_graph(game.graph)
    shown_nodes, shown_edges = known_graph(nodes, edges, player_view(game.world, game.scene, game.graph))
    return PlayerMap(nodes, edges, shown_nodes, shown_edges, tuple(await game.stage_at(at_turn)))
