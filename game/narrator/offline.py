"""The offline narrator: a small parser-based story engine over a world in ``content/``.

No model, no network: the turn is worked out from the world's places, characters, topics, reactions
and beats, deterministically for a given seed and input. The whole turn is computed once and cached
by the request, so ``narrate`` (the prose, streamed by sentence) and ``finish`` (World IR and scene)
always agree; the extractor then runs the World IR through the same upsert path an LLM's would take.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import AsyncIterator

from game.graph.upsert import UpsertExecution
from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult, SceneState
from game.narrator.ir_extract import apply_world_ir
from game.narrator.offline_state import Play
from game.narrator.offline_text import choose, stream_chunks, tidy
from game.narrator.offline_turn import TurnOutcome, TurnRunner, describe_place
from game.world import World

CACHE_SIZE = 8

TurnKey = tuple[int, str, int, str, int]


class OfflineNarrator:
    """Tells turns from content alone. ``seed`` varies the choice among a text's variants."""

    def __init__(self, world: World, seed: int = 0) -> None:
        self.world = world
        self.seed = seed
        self._turns: OrderedDict[TurnKey, TurnOutcome] = OrderedDict()

    @property
    def label(self) -> str:
        return "offline narrator"

    def opening(self, scene: SceneState) -> str:
        """The world's opening, then where you stand: second person, present tense."""
        rng = random.Random(f"{self.seed}:opening")
        paragraphs = [tidy(self.world.text(choose(self.world.section.opening, rng)))]
        play = Play.from_scene(scene, self.world)
        if play.location in self.world.places:
            paragraphs.extend(describe_place(self.world, play, full=True))
        return "\n\n".join(p for p in paragraphs if p)

    async def narrate(self, request: NarrationRequest) -> AsyncIterator[str]:
        outcome = await self._turn(request)
        for chunk in stream_chunks(outcome.text):
            yield chunk

    async def finish(self, request: NarrationRequest, narration: str) -> NarrationResult:
        outcome = await self._turn(request)
        return NarrationResult(world_ir=outcome.world_ir, scene=outcome.scene)

    async def extract(
        self, request: NarrationRequest, result: NarrationResult, execution: UpsertExecution
    ) -> ExtractionReport:
        return await apply_world_ir(result.world_ir, execution)

    async def aclose(self) -> None:
        self._turns.clear()

    async def _turn(self, request: NarrationRequest) -> TurnOutcome:
        """The turn for ``request``, computed on first use and remembered for ``finish``."""
        key: TurnKey = (request.turn, request.player_input, request.seed, request.scene.model_dump_json(),
                        id(request.graph))
        cached = self._turns.get(key)
        if cached is not None:
            self._turns.move_to_end(key)
            return cached
        outcome = await TurnRunner(self.world, request, self.seed).run()
        self._turns[key] = outcome
        while len(self._turns) > CACHE_SIZE:
            self._turns.popitem(last=False)
        return outcome
