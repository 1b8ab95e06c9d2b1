"""A game in memory over the offline narrator, for tests that play a world through.

It is a thin user of the engine's own turn pipeline (``game.engine.turn``): the same input handling,
retrieval, narration, World IR, extraction and apply as ``GameSession``, with a storage step that keeps
the turns in a list instead of a save file, so a whole playthrough of a world runs in well under a second.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from game.engine.events import MetaOutput, NarrationDone, TurnFailed
from game.engine.play_state import PlayState
from game.engine.turn import TurnPipeline
from game.engine.turn_commit import FinishedTurn
from game.errors import ContentError
from game.graph.index import GraphIndex
from game.graph.models import Edge
from game.graph.names import normalize_name
from game.graph.upsert import UpsertExecution
from game.narrator.base import NarrationResult
from game.narrator.offline import OfflineNarrator
from game.world import World, awareness
from game.world.scene import SceneState


@dataclass
class PlayedTurn:
    number: int
    player_input: str
    narration: str
    result: NarrationResult
    calls: int
    rejected: int


class MemoryStore:
    """The pipeline's storage step for a game in memory: every turn and every edge version kept."""

    folds_people = False

    def __init__(self) -> None:
        self.turns: list[PlayedTurn] = []
        self.all_edges: dict[str, Edge] = {}

    async def commit(self, turn: FinishedTurn) -> None:
        record, report = turn.record, turn.report
        self.all_edges.update(turn.writes.edges)
        self.turns.append(PlayedTurn(record.number, record.input, record.narration, turn.result,
                                     report.calls, report.rejected))


class Playthrough:
    """A game in memory: ``await Playthrough.start(world)``, then ``await play("look")``."""

    def __init__(self, world: World, pipeline: TurnPipeline, store: MemoryStore) -> None:
        self.world = world
        self.pipeline = pipeline
        self.store = store
        self.told: list[str] = []
        """What each line played told (narration or the game's reply), in order."""

    @classmethod
    async def start(cls, world: World, seed: int = 0) -> Playthrough:
        graph = GraphIndex()
        execution = UpsertExecution(graph, world.vocabulary, 0, rng=random.Random(f"{seed}:0"))
        for call in world.initial_graph_calls():
            outcome = await execution.run(call)
            if outcome.error:
                raise ContentError(f"world {world.id}: its initial graph was refused: {outcome.error}")
        graph.apply(execution.writes)
        store = MemoryStore()
        store.all_edges.update(execution.writes.edges)
        scene = world.initial_scene()
        scene = scene.model_copy(update={"known": await awareness.at_start(world, graph, scene.cast)})
        state = PlayState(graph, scene)
        pipeline = TurnPipeline(state, OfflineNarrator(world, seed), world.vocabulary, store, seed=seed,
                                ending_titles=world.ending_titles)
        return cls(world, pipeline, store)

    @property
    def narrator(self) -> OfflineNarrator:
        narrator = self.pipeline.narrator
        assert isinstance(narrator, OfflineNarrator)
        return narrator

    @property
    def graph(self) -> GraphIndex:
        return self.pipeline.state.graph

    @property
    def scene(self) -> SceneState:
        return self.pipeline.state.scene

    @scene.setter
    def scene(self, scene: SceneState) -> None:
        """Put the game somewhere (a test's shortcut); ``verbose`` follows the scene given."""
        self.pipeline.state.scene = scene
        self.pipeline.state.verbose = scene.verbose

    @property
    def turn(self) -> int:
        return self.pipeline.state.turn

    @turn.setter
    def turn(self, turn: int) -> None:
        """Jump the game's turn count (a test's shortcut, e.g. to play a save from before the clock)."""
        self.pipeline.state.turn = turn

    @property
    def turns(self) -> list[PlayedTurn]:
        return self.store.turns

    @property
    def all_edges(self) -> dict[str, Edge]:
        return self.store.all_edges

    @property
    def opening(self) -> str:
        return self.narrator.opening(self.scene)

    async def play(self, text: str) -> str:
        """One line of input through the turn pipeline; returns the narration (or the game's reply)."""
        if self.scene.ending:
            raise ContentError(f"the story already ended ({self.scene.ending}); no more turns")
        told: list[str] = []
        async for event in self.pipeline.play(text):
            if isinstance(event, TurnFailed):
                raise ContentError(event.message)
            if isinstance(event, NarrationDone | MetaOutput):
                told.append(event.text)
        self.told.append("\n\n".join(told))
        return self.told[-1]

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
