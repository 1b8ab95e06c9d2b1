"""A narrator that fails the way a broken model or a bug would: the real offline narrator, broken at one
step, until the test mends it (``narrator.step = None``) and the player tries again.

One double for every failure the session must survive, so each test names the failure it means
(``BrokenNarrator(world, "memory")``) instead of subclassing the narrator again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal

from game.errors import NarratorError
from game.graph.upsert import UpsertExecution
from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult
from game.narrator.offline import OfflineNarrator
from game.world import World

Step = Literal["narrate", "finish", "extract", "world-ir", "memory"]
"""Where it breaks: ``narrate`` stops mid-sentence; ``finish`` cannot read the World IR (an error);
``extract`` crashes after buffering writes; ``world-ir`` returns a World IR that never validated
(``ir_error`` set, the IR still there); ``memory`` buffers writes, then reports it never called a tool."""

FAILING_STEPS: tuple[Step, ...] = ("narrate", "finish", "extract")
"""The steps that raise: a turn broken there is not committed at all."""

NO_TOOL_CALL = "the model never called a tool"
IR_NEVER_VALIDATED = "the model's World IR never validated"


class BrokenNarrator(OfflineNarrator):
    """The real offline narrator, broken at ``step`` (None: not broken)."""

    def __init__(self, world: World, step: Step | None, seed: int = 0) -> None:
        super().__init__(world, seed)
        self.step: Step | None = step

    async def narrate(self, request: NarrationRequest) -> AsyncIterator[str]:
        async for chunk in super().narrate(request):
            yield chunk
            if self.step == "narrate":
                raise NarratorError("the model stopped answering mid-sentence.")

    async def finish(self, request: NarrationRequest, narration: str) -> NarrationResult:
        if self.step == "finish":
            raise NarratorError("the World IR could not be read.")
        result = await super().finish(request, narration)
        if self.step == "world-ir":
            result.ir_error = IR_NEVER_VALIDATED  # its IR is still there: the session must not extract it
        return result

    async def extract(self, request: NarrationRequest, result: NarrationResult,
                      execution: UpsertExecution) -> ExtractionReport:
        report = await super().extract(request, result, execution)  # buffered in every case
        if self.step == "extract":
            raise ValueError("extractor crashed after buffering writes")
        if self.step == "memory":
            return ExtractionReport(extracted=False, message=NO_TOOL_CALL)  # the buffered writes abandoned
        return report


class Introducing(OfflineNarrator):
    """The real offline narrator, whose graph update at turn ``at`` also runs ``call`` (a newcomer named
    the way a model's extractor would name one: the identity tests' way to meet "Keeper Marsh")."""

    def __init__(self, world: World, at: int, call: dict[str, Any], seed: int = 0) -> None:
        super().__init__(world, seed)
        self.at, self.call = at, call

    async def extract(self, request: NarrationRequest, result: NarrationResult,
                      execution: UpsertExecution) -> ExtractionReport:
        report = await super().extract(request, result, execution)
        if request.turn == self.at:
            outcome = await execution.run(self.call)
            assert outcome.error is None, outcome.error
        return report
