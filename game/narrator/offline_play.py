"""An in-memory game loop over the offline narrator, for content authors' checks and tests.

It runs the same steps as ``GameSession`` (seed the graph at turn 0, then per turn: retrieve, narrate,
finish, extract into an ``UpsertExecution``, apply the writes) but keeps everything in a ``GraphIndex``
and writes no save file, so a whole playthrough of a world runs in well under a second.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from game.errors import ContentError
from game.graph.memory import GraphIndex
from game.graph.models import Edge
from game.graph.names import normalize_name
from game.graph.retrieve import retrieve
from game.graph.upsert import UpsertExecution
from game.narrator.base import NarrationRequest, NarrationResult
from game.narrator.offline import OfflineNarrator
from game.world import World
from game.world.scene import SceneState


@dataclass
class PlayedTurn:
    number: int
    player_input: str
    narration: str
    result: NarrationResult
    calls: int
    rejected: int


@dataclass
class Playthrough:
    """A game in memory: ``await Playthrough.start(world)``, then ``await play("look")``."""

    world: World
    narrator: OfflineNarrator
    graph: GraphIndex
    scene: SceneState
    seed: int = 0
    turn: int = 0
    turns: list[PlayedTurn] = field(default_factory=list)
    all_edges: dict[str, Edge] = field(default_factory=dict)

    @classmethod
    async def start(cls, world: World, seed: int = 0) -> Playthrough:
        graph = GraphIndex()
        execution = UpsertExecution(graph, world.vocabulary, 0, rng=random.Random(f"{seed}:0"))
        for call in world.initial_graph_calls():
            outcome = await execution.run(call)
            if outcome.error:
                raise ContentError(f"world {world.id}: its initial graph was refused: {outcome.error}")
        graph.apply(execution.writes)
        game = cls(world, OfflineNarrator(world, seed), graph, world.initial_scene(), seed)
        game.all_edges.update(execution.writes.edges)
        return game

    @property
    def opening(self) -> str:
        return self.narrator.opening(self.scene)

    async def play(self, text: str) -> str:
        """One player turn, committed to the in-memory graph; returns the narration."""
        if self.scene.ending:
            raise ContentError(f"the story already ended ({self.scene.ending}); no more turns")
        number = self.turn + 1
        retrieval = await retrieve(self.graph, text, self.scene.cast)
        request = NarrationRequest(turn=number, player_input=text, npc_context=retrieval.npc_context,
                                   scene=self.scene, graph=self.graph, seed=self.seed + number)
        narration = "".join([chunk async for chunk in self.narrator.narrate(request)])
        result = await self.narrator.finish(request, narration)
        execution = UpsertExecution(self.graph, self.world.vocabulary, number,
                                    rng=random.Random(f"{self.seed}:{number}"))
        report = await self.narrator.extract(request, result, execution)
        self.graph.apply(execution.writes)
        self.all_edges.update(execution.writes.edges)
        self.scene = result.scene
        self.turn = number
        self.turns.append(PlayedTurn(number, text, narration, result, report.calls, report.rejected))
        return narration

    # ------------------------------------------------------------------------------------ graph queries

    def node_id(self, name: str) -> str | None:
        key = normalize_name(self.world.canonical(name) or name)
        for node in self.graph.nodes.values():
            if normalize_name(node.name) == key:
                return node.id
        return None

    def open_relation(self, source: str, target: str, relation: str) -> Edge | None:
        """The open version of ``source -relation-> target`` (either way round for a symmetric one)."""
        normalized = self.world.vocabulary.normalize(relation)
        s, t = self.node_id(source), self.node_id(target)
        if normalized.flipped:
            s, t = t, s
        pairs = {(s, t), (t, s)} if normalized.symmetric else {(s, t)}
        for edge in self.graph.open_edges.values():
            if (edge.source, edge.target) in pairs and edge.relation == normalized.name:
                return edge
        return None

    def relation_keys(self, since_turn: int = 1) -> set[tuple[str, str, str]]:
        """Distinct ``(source, target, relation)`` triples with a version opened at or after ``since_turn``."""
        return {(e.source, e.target, e.relation) for e in self.all_edges.values() if e.valid_at >= since_turn}

    def superseded(self) -> list[Edge]:
        """Closed versions followed by a newer version of the same relation."""
        newer = {(e.source, e.target, e.relation): e.valid_at for e in self.all_edges.values()}
        for edge in self.all_edges.values():
            key = (edge.source, edge.target, edge.relation)
            newer[key] = max(newer[key], edge.valid_at)
        return [e for e in self.all_edges.values()
                if e.invalid_at is not None and newer[(e.source, e.target, e.relation)] > e.valid_at]

    def closed(self) -> list[Edge]:
        """Relations whose last version was closed with no successor."""
        latest: dict[tuple[str, str, str], Edge] = {}
        for edge in self.all_edges.values():
            key = (edge.source, edge.target, edge.relation)
            if key not in latest or edge.valid_at > latest[key].valid_at:
                latest[key] = edge
        return [e for e in latest.values() if e.invalid_at is not None]
