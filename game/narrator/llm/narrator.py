"""The LLM narrator: any OpenAI-compatible endpoint tells the turn and keeps the relationship graph.

This module coordinates; each step lives in its own module. A turn makes three kinds of request (seed
000): **narrate** (``narrate``), streamed, with ``list_characters`` / ``get_character`` lookups between
which text keeps streaming; **World IR** (``ir``), the turn's typed facts as JSON validated by
``WorldIR``, repaired within bounds; and **extract** (``extract``), where a model records the World IR
through ``upsert_npc_graph`` / ``runtime_done`` with ``tool_choice: "required"``. Requests go through
``calls`` (fallbacks, usage, masking) to a ``transport`` (live, recorded or replayed). Nothing is written
here: the engine commits the turn, and discards the extractor's writes when it reports
``extracted=False``.

What the model says enters Kith through ``guard.SafeStream``: terminal escapes stripped and the API key
masked on the assembled text, so neither reaches the screen, the save or the transcript. Two deadlines
bound a turn however a server trickles its bytes: one for the whole narration (every round), one for
the graph update (World IR and extraction together).

A failure while narrating raises ``NarratorError`` (the engine then writes nothing of the turn). A
failure after the narration (World IR or extraction) never raises: the narration can still be
committed, marked as not extracted, for re-extraction later.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, Awaitable, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any, TypeVar

from game.config import LLMSettings
from game.errors import NarratorError
from game.graph.models import Edge, Node
from game.graph.names import normalize_name
from game.graph.upsert import UpsertExecution
from game.mind.context_budget import estimate_tokens
from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult
from game.narrator.ir_extract import apply_world_ir, limit_closes, plausible_only
from game.narrator.llm.base_model import AGAIN, BASE_MODEL, ECHOED, ECHOED_AGAIN
from game.narrator.llm.budget import reply_deadline as default_reply_deadline
from game.narrator.llm.calls import Requests
from game.narrator.llm.capabilities import Capabilities
from game.narrator.llm.endpoint import display_url, short_host
from game.narrator.llm.extract import MIN_REPLY_TOKENS as EXTRACT_MIN_REPLY
from game.narrator.llm.extract import ToolExtractor, existing_near
from game.narrator.llm.guard import SafeStream
from game.narrator.llm.ir import IRAnswer, ask_world_ir, records_anything, supported_only
from game.narrator.llm.memory_summary import ModelSummarizer
from game.narrator.llm.narrate import CannotNarrate, Narration, no_narration
from game.narrator.llm.prompts import Prompt, extract_v1
from game.narrator.llm.record import RecordingTransport, ReplayTransport
from game.narrator.llm.stream import strip_reasoning
from game.narrator.llm.tokens import message_tokens, request_tokens, tools_tokens
from game.narrator.llm.tools import extraction_tools
from game.narrator.llm.transport import LLMError, OpenAITransport, Transport
from game.narrator.llm.usage import UsageLedger
from game.world import World
from game.world.ir import WorldIR
from game.world.scene import SceneState

EXTRACT_REPLY_RESERVE = 1200
"""Tokens kept free for the extractor's tool calls (and a corrected call) when its prompt is fitted."""
NO_ROOM_FOR_EXTRACTOR = ("the extractor's prompt and tools do not fit the model's context "
                         "(context_size under [llm]); the turn's World IR was recorded as it is")

T = TypeVar("T")


class OpenAINarrator:
    """Tells turns with a model behind any OpenAI-compatible endpoint, or replays a recorded session.

    ``reply_deadline`` (seconds) defaults to a multiple of the ``timeout`` setting, ``memory_deadline`` to
    the ``memory_deadline`` setting.
    """

    def __init__(self, llm: LLMSettings, world: World, *, transport: Transport | None = None,
                 record: Path | None = None, replay: Path | None = None,
                 env: Mapping[str, str] | None = None, reply_deadline: float | None = None,
                 memory_deadline: float | None = None) -> None:
        self.llm = llm
        self.world = world
        self.replaying = replay is not None
        if replay is not None:
            base: Transport = ReplayTransport(replay)
        elif transport is not None:
            base = transport
        else:
            base = OpenAITransport(llm, os.environ if env is None else env)
        self._configured_model = base.model if isinstance(base, ReplayTransport) else None
        self.transport: Transport = (
            RecordingTransport(base, record, model=llm.narration_model, full=llm.record_full) if record is not None else base)
        self.recording = record is not None
        self.caps = Capabilities.from_settings(llm)
        self._ledger = UsageLedger()
        self._requests = Requests(self.transport, self.caps, self._ledger)
        self._narration = Narration(self._requests, llm, world, display_url(llm.base_url))
        self.reply_deadline = reply_deadline or default_reply_deadline(llm)
        self.memory_deadline = memory_deadline or llm.memory_deadline
        self._notices: dict[int, list[str]] = {}
        self._update_started: dict[int, float] = {}
        self._offered_models: list[str] | None = None
        self._said_base_model = False
        """Whether a turn has failed with the base-model sentence (said in full once a session)."""

    # -------------------------------------------------------------------------------------- identity

    @property
    def label(self) -> str:
        offered = self._offered_models[0] if self._offered_models else None
        model = self.llm.narration_model or self._configured_model or offered or "model"
        if self.replaying:
            return f"{model} ({self.transport.label})"
        return f"{model} @ {short_host(self.llm.base_url)}"

    def opening(self, scene: SceneState) -> str:
        variants = self.world.section.opening
        return self.world.text(variants[scene.rng_state % len(variants)])

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def _model(self, step: str) -> str:
        chosen = self.llm.narration_model if step == "narrate" else self.llm.extraction_model
        if chosen:
            return chosen
        if self._configured_model:
            return self._configured_model
        if self._offered_models is None:
            self._offered_models = await self.transport.models()
        if not self._offered_models:
            raise NarratorError("No model is set and the server lists none: set one with --model, KITH_MODEL "
                                "or model under [llm] in kith.toml.")
        return self._offered_models[0]

    @property
    def memory_summarizer(self) -> ModelSummarizer:
        """Writes consolidated memories with the extraction model (``game.features.memories.consolidate``)."""
        return ModelSummarizer(self._requests, lambda: self._model("extract"))

    def usage(self, turn: int) -> dict[str, int]:
        """Requests and tokens by step for a turn (``narrate.calls``, ``extract.prompt_tokens`` ...) and
        ``model_ms``, the time spent waiting on the model (the rest of a turn is the engine's own)."""
        return self._ledger.figures(turn)

    def pending_notices(self, turn: int) -> list[str]:
        """What the player will be told with this turn's result (context window, fallbacks taken)."""
        return list(self._notices.get(turn, []))

    def count_tokens(self, text: str) -> int:
        """``text`` in this server's tokens as far as this session has learned them (``CountsTokens``): the
        turn's context is budgeted in them, so a server with a hungry tokenizer gets fewer lines."""
        return self._requests.calibration.real(estimate_tokens(text))

    # -------------------------------------------------------------------------------------- step 1

    async def narrate(self, request: NarrationRequest) -> AsyncGenerator[str, None]:
        usage = self._ledger.restart(request.turn)
        notices = self._notices[request.turn] = []
        deadline = asyncio.get_running_loop().time() + self.reply_deadline
        try:
            # Asking the server for its model (once a session, when none is set) counts against the
            # narration's deadline too: nothing of a turn may outlast ``budget.worst_case_turn_seconds``.
            async with asyncio.timeout_at(deadline):
                model = await self._model("narrate")
        except TimeoutError:
            raise NarratorError(f"The model server did not say which model it serves within "
                                f"{self.reply_deadline:g} s; set one with --model.") from None
        guard = SafeStream(self._requests.secrets)
        told = False
        told_pieces = self._narration.stream(request, model, usage, notices, deadline, self.reply_deadline)
        async with aclosing(told_pieces) as pieces:
            async for piece in pieces:
                safe = guard.feed(piece)
                if safe:
                    told = told or bool(safe.strip())
                    yield safe
        rest = guard.flush()
        if rest:
            told = told or bool(rest.strip())
            yield rest
        if told and guard.marked and not self._said_base_model:
            # Text, then a marker written as text: against llama-server, gemma3-270m's narration is often
            # the player's own command and <|im_end|>. Not a failed turn, so said here, once.
            self._said_base_model = True
            notices.append(BASE_MODEL)
        if not told and guard.marked:
            # The reply held nothing but chat-template markers: a base model with no chat
            # template. Said in full once; "try again" would only fail again.
            said, self._said_base_model = self._said_base_model, True
            raise CannotNarrate(AGAIN if said else BASE_MODEL)
        if not told and guard.echoed:
            # The reply began by writing the prompt's own blocks back (a base model continuing it): cut
            # there, nothing is left. Said in full once, as the base-model sentence is.
            said, self._said_base_model = self._said_base_model, True
            raise CannotNarrate(ECHOED_AGAIN if said else ECHOED)
        if not told:
            raise no_narration()

    # -------------------------------------------------------------------------------------- step 2

    async def finish(self, request: NarrationRequest, narration: str) -> NarrationResult:
        """The World IR and the scene after it; the graph update's deadline starts here."""
        if request.mode in ("given", "story"):
            # Nothing was narrated for this telling: its account starts here, not on an earlier telling's.
            self._ledger.restart(request.turn)
        self._update_started[request.turn] = asyncio.get_running_loop().time()
        notices = self._notices.pop(request.turn, []) + self.caps.take_fallbacks()
        try:
            ir, error, salvaged = await self._within_memory_deadline(request.turn, self._world_ir(request, narration))
        except NarratorError as failure:
            ir, error, salvaged = None, failure.message, 0
        notices.extend(self.caps.take_fallbacks())
        if salvaged:
            notices.append(f"{salvaged} unreadable fact(s) of this turn were left out of the graph.")
        if ir is not None:
            ir, implausible = await plausible_only(ir, f"{request.player_input}\n{strip_reasoning(narration)}",
                                                   request.graph)
            if implausible:
                counts = self._ledger.turn(request.turn).counts
                counts["world-ir.implausible"] = counts.get("world-ir.implausible", 0) + implausible
            ir, unsupported = supported_only(ir, strip_reasoning(narration))
            if unsupported:
                counts = self._ledger.turn(request.turn).counts
                counts["world-ir.unsupported"] = counts.get("world-ir.unsupported", 0) + unsupported
                notices.append(f"{unsupported} relationship fact(s) of this turn were left out of the graph: "
                               "the sentence given as evidence is not in the narration.")
            ir, refused = limit_closes(ir)
            notices.extend(refused)
        if error is not None:
            # No extraction follows a failed World IR, so nothing else will end this graph update.
            self._update_started.pop(request.turn, None)
        scene = request.scene.model_copy(deep=True)
        if ir is not None:
            scene.cast = list(ir.next_cast)
            if ir.location:
                scene.location = self._place_id(ir.location)
        return NarrationResult(world_ir=ir or WorldIR(), scene=scene, notices=notices, ir_error=error)

    async def _world_ir(self, request: NarrationRequest, narration: str) -> IRAnswer:
        model = await self._model("world-ir")
        return await ask_world_ir(self._requests, self.llm, self.world, request, narration, model)

    def _place_id(self, location: str) -> str:
        key = normalize_name(location)
        for place in self.world.places.values():
            if key in {normalize_name(place.id), normalize_name(place.name)}:
                return place.id
        return location

    async def _within_memory_deadline(self, turn: int, step: Awaitable[T]) -> T:
        """``step``, cancelled when the turn's graph update (World IR and extraction) runs out of time."""
        loop = asyncio.get_running_loop()
        started = self._update_started.setdefault(turn, loop.time())
        try:
            async with asyncio.timeout_at(started + self.memory_deadline):
                return await step
        except TimeoutError:
            raise NarratorError(f"the graph update took longer than {self.memory_deadline:g} s and was "
                                "stopped") from None

    # -------------------------------------------------------------------------------------- step 3

    async def extract(self, request: NarrationRequest, result: NarrationResult,
                      execution: UpsertExecution) -> ExtractionReport:
        turn = request.turn
        try:
            if result.ir_error:
                return ExtractionReport(False, message=result.ir_error, usage=self.usage(turn))
            ir = result.world_ir
            if not records_anything(ir):
                return ExtractionReport(True, message="nothing to record", usage=self.usage(turn))
            try:
                report = await self._within_memory_deadline(turn, self._extract(turn, request, ir, execution))
            except NarratorError as failure:
                message = failure.message
                if isinstance(failure, LLMError) and failure.kind == "bad-request" and "tool" in failure.detail.lower():
                    message += ' A model that cannot call tools needs extraction = "world-ir" under [llm].'
                report = ExtractionReport(False, message=message)
            report.usage = self.usage(turn)
            return report
        finally:
            self._update_started.pop(turn, None)

    async def _extract(self, turn: int, request: NarrationRequest, ir: WorldIR,
                       execution: UpsertExecution) -> ExtractionReport:
        if self.llm.extraction == "world-ir" or not self.caps.tools:
            # A server that refused tools outright cannot run the extractor; the validated IR can be kept.
            return await apply_world_ir(ir, execution)
        model = await self._model("extract")
        nodes, edges, names = await existing_near(request.graph, ir)
        prompt = self._fitted_extract_prompt(turn, ir, nodes, edges, names)
        if self._room(request_tokens({"messages": prompt.messages, "tools": extraction_tools()})) < EXTRACT_MIN_REPLY:
            # Even the bare prompt leaves no room for a reply (a 2,048-token context with the tools'
            # schemas): the validated World IR is what can be recorded, rather than nothing.
            report = await apply_world_ir(ir, execution)
            report.message = "; ".join(m for m in (report.message, NO_ROOM_FOR_EXTRACTOR) if m)
            return report

        async def complete(step: str, params: dict[str, Any]) -> dict[str, Any]:
            return await self._requests.complete(turn, step, params, ("tool_choice",),
                                                 context_size=self.llm.context_size)

        try:
            return await ToolExtractor(complete, self.caps, model, self.llm.extractor_steps,
                                       self.llm.extract_tokens,
                                       lambda params: self._room(request_tokens(params))).run(prompt, ir, execution)
        except LLMError as error:
            if self.caps.refused(error, ("tools",)) is None:
                raise
            # The server refuses tools: the validated World IR is recorded as it is from now on.
            return await apply_world_ir(ir, execution)

    def _room(self, estimated_prompt: int) -> int:
        return self._requests.calibration.room(self.llm.context_size, estimated_prompt)

    def _fitted_extract_prompt(self, turn: int, ir: WorldIR, nodes: list[Node], edges: list[Edge],
                               names: dict[str, Node]) -> Prompt:
        """The extractor prompt with as many known characters and relations as the context holds.

        Sixty of each, at about 150 characters a line, is some 6,000 tokens: more than a small local
        model's whole window. The lists are closest-first, so trimming from the end keeps what matters.
        """
        budget = (self._requests.calibration.budget(self.llm.context_size - EXTRACT_REPLY_RESERVE)
                  - tools_tokens(extraction_tools()))
        prompt = extract_v1(self.world, turn, ir, nodes, edges, names)
        while message_tokens(prompt.messages) > budget and (nodes or edges):
            if len(edges) >= len(nodes):
                edges = edges[: len(edges) - max(1, len(edges) // 8)]
            else:
                nodes = nodes[: len(nodes) - max(1, len(nodes) // 8)]
            prompt = extract_v1(self.world, turn, ir, nodes, edges, names)
        return prompt
