"""The offline narrator: the narrator interface over the story engine in ``game/story/``.

No model, no network: the turn is worked out from the world's places, characters, topics, reactions
and beats, deterministically for a given seed and input. The whole turn is computed once per request
(``narrate`` and ``finish`` are handed the same ``NarrationRequest``), so the prose streamed by sentence
and the World IR and scene ``finish`` returns always agree; the extractor then runs the World IR through
the same upsert path an LLM's would take.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

from game.features.identity.provider import asked_line
from game.graph.upsert import UpsertExecution
from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult
from game.narrator.ir_extract import apply_world_ir
from game.story.actions.places import describe_place
from game.story.prose import pick, stream_chunks
from game.story.state import Play
from game.story.turn import TurnOutcome, play_turn
from game.world import World
from game.world.ir import WorldIR
from game.world.scene import SceneState


class OfflineNarrator:
    """Tells turns from content alone. ``seed`` varies the choice among a text's variants."""

    authors_endings = True
    """The relations its World IR ends are the world's own story beats (``end = [...]``), as their author
    wrote them: not a reading of text, so not held to ``game.graph.endings``."""

    def __init__(self, world: World, seed: int = 0) -> None:
        self.world = world
        self.seed = seed
        self._last: tuple[NarrationRequest, TurnOutcome] | None = None

    @property
    def label(self) -> str:
        return "offline narrator"

    def opening(self, scene: SceneState) -> str:
        """The world's opening, then where you stand: second person, present tense."""
        rng = random.Random(f"{self.seed}:opening")
        paragraphs = [pick(self.world, self.world.section.opening, rng)]
        play = Play.from_scene(scene, self.world)
        if play.location in self.world.places:
            # Before any turn only unconditional details can hold (no rules have run, no flag is set).
            place = self.world.places[play.location]
            details = [pick(self.world, d.text, rng) for d in place.details if d.when.is_empty()]
            paragraphs.extend(describe_place(self.world, play, full=True, details=details))
        return "\n\n".join(p for p in paragraphs if p)

    async def narrate(self, request: NarrationRequest) -> AsyncIterator[str]:
        if request.mode == "continue":
            return  # the story engine tells a turn whole: there is never more to write on
        outcome = await self._turn(request)
        for chunk in stream_chunks(outcome.text):
            yield chunk
        asking = asked_line(request.context)
        if asking is not None and outcome.text:
            # A question of identity the game is unsure of (game/features/identity/provider.py), after the turn.
            yield f"\n\n{asking.text}"

    async def finish(self, request: NarrationRequest, narration: str) -> NarrationResult:
        if request.mode == "story":
            # Story mode: the player's words join the story as written; the story engine neither acts on
            # them nor reads facts from prose it did not tell, so the scene stays as it was.
            return NarrationResult(world_ir=WorldIR(), scene=request.scene.model_copy(deep=True))
        outcome = await self._turn(request)
        # Copies: the caller owns the result and may change it; the remembered turn must stay as told.
        return NarrationResult(world_ir=outcome.world_ir.model_copy(deep=True),
                               scene=outcome.scene.model_copy(deep=True))

    async def extract(
        self, request: NarrationRequest, result: NarrationResult, execution: UpsertExecution
    ) -> ExtractionReport:
        return await apply_world_ir(result.world_ir, execution)

    async def aclose(self) -> None:
        self._last = None

    async def _turn(self, request: NarrationRequest) -> TurnOutcome:
        """The turn for ``request``, computed on first use and remembered for ``finish``.

        Only the last request is remembered, by identity: holding it keeps its graph and scene alive, so
        no other request can be mistaken for it, and a new request is always told from its own graph.
        """
        if self._last is not None and self._last[0] is request:
            return self._last[1]
        outcome = await play_turn(self.world, request.scene, request.graph, request.turn, request.player_input,
                             seed=f"{self.seed}:{request.seed}", mind=request.context,
                             attitudes=request.attitudes, memories=request.memories,
                             features=request.features)
        self._last = (request, outcome)
        return outcome
