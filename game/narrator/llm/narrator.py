"""The LLM narrator: any OpenAI-compatible endpoint tells the turn and keeps the relationship graph.

A turn makes three kinds of request (seed 000): **narrate**, streamed, with ``list_characters`` and
``get_character`` lookups between which text keeps streaming (a bounded number of rounds); **World IR**,
the turn's typed facts as JSON validated by ``WorldIR`` (``json_schema`` where the server supports it,
else JSON mode, else a plain reply repaired and validated; bounded retries); and **extract**, where a
model records the World IR through ``upsert_npc_graph`` / ``runtime_done`` with ``tool_choice:
"required"`` (``extract``). Nothing is written here: the engine commits the turn, and discards the
extractor's writes when it reports ``extracted=False``.

A failure while narrating raises ``NarratorError`` (the engine then writes nothing of the turn). A
failure after the narration (World IR or extraction) never raises: the narration can still be
committed, marked as not extracted, for re-extraction later.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from game.config import LLMSettings
from game.errors import NarratorError, describe_validation_error
from game.graph.models import Edge, Node
from game.graph.names import normalize_name
from game.graph.retrieve import find_mentions
from game.graph.upsert import UpsertExecution
from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult, PastTurn, SceneState
from game.narrator.ir_extract import apply_world_ir
from game.narrator.llm.capabilities import Capabilities, response_format
from game.narrator.llm.extract import ToolExtractor, existing_near
from game.narrator.llm.json_reply import (
    JSONReplyError,
    echoes_schema,
    looks_like_text_tool_call_start,
    parse_json_reply,
    text_tool_calls,
)
from game.narrator.llm.prompts import (
    Prompt,
    extract_v1,
    history_pair,
    narrate_system_v1,
    narrate_v1,
    world_ir_v1,
)
from game.narrator.llm.record import RecordingTransport, ReplayTransport
from game.narrator.llm.stream import HOLD_CHARS, ThinkFilter, ToolCall, ToolCallAssembler, strip_reasoning
from game.narrator.llm.tokens import estimate_tokens, fit_newest, message_tokens, tools_tokens
from game.narrator.llm.tools import (
    GET_CHARACTER,
    LIST_CHARACTERS,
    NARRATION_TOOLS,
    CharacterBook,
    extraction_tools,
    model_schema,
    narration_tools,
    tool_result,
)
from game.narrator.llm.transport import (
    ChatCall,
    LLMError,
    OpenAITransport,
    Transport,
    first_message,
    short_host,
)
from game.narrator.world_ir import GRAPH_KINDS, WorldIR
from game.world import World

MAX_NARRATION_CHARS = 8000
IR_FIELDS = ("charactersPresent", "entities", "relations", "endedRelations", "nextCast", "location")
MAX_LOOKUPS_PER_ROUND = 4
LOOKUP_RESERVE = 800
EXTRACT_REPLY_RESERVE = 1200
"""Tokens kept free for the extractor's tool calls (and a corrected call) when its prompt is fitted."""
"""Tokens kept free for character lookups when the history window is fitted."""
_REASONING_MODEL = re.compile(r"(?i)(?<![a-z0-9])r1(?![0-9])|qwq|reason|think")
"""Model names whose chat templates often open the think block in the prompt (DeepSeek-R1 and its
distills, QwQ): their first reply is held back too, before any reply has shown the habit."""
_KIND_SYNONYMS = {
    "person": "character", "npc": "character", "individual": "character", "people": "character",
    "organization": "faction", "organisation": "faction", "guild": "group", "location": "place",
    "object": "item", "thing": "item", "ability": "skill", "idea": "concept", "event": "concept",
}


@dataclass
class TurnUsage:
    """Requests and tokens by step for one turn; ``estimated`` counts steps the server gave no usage for."""

    counts: dict[str, int] = field(default_factory=dict)
    model_seconds: float = 0.0

    def add(self, step: str, prompt: int, completion: int, estimated: bool) -> None:
        for key, value in ((f"{step}.calls", 1), (f"{step}.prompt_tokens", prompt),
                           (f"{step}.completion_tokens", completion), ("estimated", int(estimated))):
            self.counts[key] = self.counts.get(key, 0) + value


class OpenAINarrator:
    """Tells turns with a model behind any OpenAI-compatible endpoint, or replays a recorded session."""

    def __init__(self, llm: LLMSettings, world: World, *, transport: Transport | None = None,
                 record: Path | None = None, replay: Path | None = None,
                 env: Mapping[str, str] | None = None) -> None:
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
            RecordingTransport(base, record, model=llm.narration_model) if record is not None else base)
        self.caps = Capabilities.from_settings(llm)
        self._usage: dict[int, TurnUsage] = {}
        self._notices: dict[int, list[str]] = {}
        self._offered_models: list[str] | None = None
        self._warned_full = False
        self._warned_dropping = False
        self._stray_reasoning: bool | None = None
        """Whether this model's replies close think blocks they never opened (R1-style templates): None
        until a reply shows it, then each reply's start is held back while it may be reasoning."""

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

    # -------------------------------------------------------------------------------------- requests

    def _turn_usage(self, turn: int) -> TurnUsage:
        if turn not in self._usage:
            for old in [t for t in self._usage if t < turn - 2]:
                del self._usage[old]
            self._usage[turn] = TurnUsage()
        return self._usage[turn]

    def usage(self, turn: int) -> dict[str, int]:
        """Requests and tokens by step for a turn (``narrate.calls``, ``extract.prompt_tokens`` ...) and
        ``model_ms``, the time spent waiting on the model (the rest of a turn is the engine's own)."""
        usage = self._turn_usage(turn)
        return {**usage.counts, "model_ms": round(usage.model_seconds * 1000)}

    def pending_notices(self, turn: int) -> list[str]:
        """What the player will be told with this turn's result (context window, fallbacks taken)."""
        return list(self._notices.get(turn, []))

    async def _complete(self, turn: int, step: str, params: dict[str, Any], candidates: tuple[str, ...] = ()
                        ) -> dict[str, Any]:
        """One non-streamed request; a 400 that refuses one of ``candidates`` retries without it."""
        while True:
            started = time.monotonic()
            try:
                completion = await self.transport.complete(ChatCall(step, params))
            except LLMError as error:
                feature = self.caps.refused(error, candidates)
                if feature is None:
                    raise
                params = self._without(params, feature)
                continue
            finally:
                self._turn_usage(turn).model_seconds += time.monotonic() - started
            usage = completion.get("usage") if isinstance(completion.get("usage"), dict) else None
            message = first_message(completion)
            if usage:
                self._turn_usage(turn).add(step, int(usage.get("prompt_tokens") or 0),
                                           int(usage.get("completion_tokens") or 0), False)
            else:
                produced = str(message.get("content") or "") + json.dumps(message.get("tool_calls") or [])
                self._turn_usage(turn).add(step, message_tokens(params["messages"]) + tools_tokens(
                    params.get("tools") or []), estimate_tokens(produced), True)
            return completion

    def _without(self, params: dict[str, Any], feature: str) -> dict[str, Any]:
        params = dict(params)
        if feature == "stream_options":
            params.pop("stream_options", None)
        elif feature == "tools":
            params.pop("tools", None)
            params.pop("tool_choice", None)
        elif feature == "tool_choice":
            params["tool_choice"] = "auto"
        else:
            params.pop("response_format", None)
            fmt = response_format(self.caps.structured, "world_ir", model_schema(WorldIR))
            if fmt is not None:
                params["response_format"] = fmt
            else:
                # Without server-side enforcement the model needs the schema in the prompt.
                params["messages"] = _with_schema(params["messages"])
        return params

    # -------------------------------------------------------------------------------------- step 1

    async def narrate(self, request: NarrationRequest) -> AsyncGenerator[str, None]:
        turn = request.turn
        self._usage.pop(turn, None)
        usage = self._turn_usage(turn)
        model = await self._model("narrate")
        book = CharacterBook(self.world, request.graph)
        tools = narration_tools()
        system = narrate_system_v1(self.world, request.scene, request.npc_context, turn)
        history, notices = self._window(request, tools, system)
        self._notices[turn] = notices
        messages = narrate_v1(self.world, request.scene, request.npc_context, turn, history,
                              request.player_input, system=system).messages
        emitted = ""
        rounds = 0
        while True:
            offer = self.caps.tools and rounds < self.llm.max_tool_rounds
            params: dict[str, Any] = {"model": model, "messages": list(messages),
                                      "temperature": self.llm.temperature}
            if self.caps.tools:
                params["tools"] = tools
                if not offer:
                    params["tool_choice"] = "none"
            if self.caps.stream_usage:
                params["stream_options"] = {"include_usage": True}
            round_ = _Round()
            started = time.monotonic()
            fresh = True
            try:
                async with aclosing(self._stream_round(params, round_)) as pieces:
                    async for piece in pieces:
                        text = _joined(emitted, piece, fresh)
                        fresh = False
                        emitted += text
                        yield text
                        if len(emitted) > MAX_NARRATION_CHARS:
                            round_.cut = True
                            break
            finally:
                usage.model_seconds += time.monotonic() - started
            self._count_round(usage, params, round_)
            if round_.cut:
                self._notices[turn].append("The narration ran very long and was cut short.")
                break
            if round_.finish == "length":
                self._notices[turn].append("The model stopped at its length limit; the narration may end abruptly.")
            calls = round_.tool_calls
            written: list[tuple[str, Any]] = []
            if not calls and round_.held:
                written = text_tool_calls(round_.held, NARRATION_TOOLS)
                if not written:
                    text = _joined(emitted, round_.held, fresh)
                    emitted += text
                    yield text
            if offer and calls:
                messages.append({"role": "assistant", "content": round_.text or None,
                                 "tool_calls": [call.to_message() for call in calls]})
                for index, call in enumerate(calls):
                    answer = (await self._lookup(book, call.name, call.arguments, request.scene.cast)
                              if index < MAX_LOOKUPS_PER_ROUND else {"error": "too many lookups at once"})
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": tool_result(answer)})
                rounds += 1
                continue
            if offer and written:
                # The server cannot carry tool calls, so the lookups go back as a user message.
                answers = [await self._lookup(book, name, args, request.scene.cast)
                           for name, args in written[:MAX_LOOKUPS_PER_ROUND]]
                messages.append({"role": "assistant", "content": round_.held})
                messages.append({"role": "user", "content": "Lookup results (not shown to the player): "
                                 + tool_result(answers) + "\nNow tell the turn, in prose."})
                rounds += 1
                continue
            break
        if not emitted.strip():
            raise NarratorError("The model returned no narration for this turn; try again, or try another model.")

    async def _stream_round(self, params: dict[str, Any], round_: _Round) -> AsyncGenerator[str, None]:
        """Text of one round as it arrives; tool calls, usage and finish reason land in ``round_``.

        A 400 that refuses ``stream_options`` or ``tools`` (it comes before any chunk) turns the feature
        off and sends the round again; ``params`` is updated in place so the caller counts what was sent.
        """
        while True:
            assembler = ToolCallAssembler()
            hold = self._stray_reasoning or (self._stray_reasoning is None
                                             and _REASONING_MODEL.search(str(params.get("model"))) is not None)
            think = ThinkFilter(HOLD_CHARS if hold else 0)
            holding = True
            round_.reset()
            try:
                async with aclosing(self.transport.stream(ChatCall("narrate", params))) as chunks:
                    async for chunk in chunks:
                        if isinstance(chunk.get("usage"), dict):
                            round_.usage = chunk["usage"]
                        for choice in chunk.get("choices") or []:
                            delta = choice.get("delta") or {}
                            assembler.add(delta.get("tool_calls"))
                            if choice.get("finish_reason"):
                                round_.finish = str(choice["finish_reason"])
                            content = delta.get("content")
                            if not isinstance(content, str) or not content:
                                continue
                            round_.raw += content
                            visible = think.feed(content)
                            if not visible:
                                continue
                            round_.text += visible
                            if holding:
                                round_.held += visible
                                # A tool call written as text must not reach the screen: hold the start back.
                                if looks_like_text_tool_call_start(round_.held):
                                    continue
                                holding = False
                                visible, round_.held = round_.held, ""
                            yield visible
                rest = think.flush()
                if think.stray_close:
                    self._stray_reasoning = True
                elif round_.raw.strip() and not think.saw_tag and self._stray_reasoning is None:
                    # A reply with no reasoning tag at all: later replies stream from their first word.
                    self._stray_reasoning = False
                round_.text += rest
                if holding and rest:
                    # The whole reply may have been held back as possible reasoning: same test as above.
                    round_.held += rest
                    if not looks_like_text_tool_call_start(round_.held):
                        holding = False
                        rest, round_.held = round_.held, ""
                if not holding and rest:
                    yield rest
            except LLMError as error:
                feature = self.caps.refused(error, ("stream_options", "tools")) if not round_.raw else None
                if feature is None:
                    raise
                simpler = self._without(params, feature)
                params.clear()
                params.update(simpler)
                continue
            round_.tool_calls = assembler.calls()
            return

    def _count_round(self, usage: TurnUsage, params: dict[str, Any], round_: _Round) -> None:
        if round_.usage:
            usage.add("narrate", int(round_.usage.get("prompt_tokens") or 0),
                      int(round_.usage.get("completion_tokens") or 0), False)
        else:
            produced = round_.raw + "".join(c.arguments for c in round_.tool_calls)
            usage.add("narrate", message_tokens(params["messages"]) + tools_tokens(params.get("tools") or []),
                      estimate_tokens(produced), True)

    async def _lookup(self, book: CharacterBook, name: str, arguments: Any, cast: list[str]) -> Any:
        if name == LIST_CHARACTERS:
            return await book.list_characters(cast)
        if name == GET_CHARACTER:
            args = arguments
            if isinstance(arguments, str):
                try:
                    args = parse_json_reply(arguments) if arguments.strip() else {}
                except JSONReplyError as error:
                    return {"error": f"the arguments are {error}; send {{\"name\": \"...\"}}"}
            wanted = args.get("name") if isinstance(args, dict) else args if isinstance(args, str) else None
            if not isinstance(wanted, str):
                return {"error": 'get_character needs {"name": "<name or alias>"}'}
            return await book.get_character(wanted)
        return {"error": f"unknown tool {name!r}; the tools are {LIST_CHARACTERS} and {GET_CHARACTER}"}

    def _window(self, request: NarrationRequest, tools: list[dict[str, Any]], system: str
                ) -> tuple[list[PastTurn], list[str]]:
        """The newest past turns that fit the context, and what the player should hear about it."""
        fixed = (estimate_tokens(system) + tools_tokens(tools) + estimate_tokens(request.player_input)
                 + self.llm.narration_tokens + LOOKUP_RESERVE)
        budget = self.llm.context_size - fixed
        past = list(request.history)
        window = fit_newest(len(past), lambda i: message_tokens(history_pair(past[i])), budget)
        notices: list[str] = []
        if window.dropped and not self._warned_dropping:
            self._warned_dropping = True
            notices.append(f"The story is now longer than the model's context ({self.llm.context_size} tokens): "
                           f"the narrator no longer sees the {window.dropped} oldest turn(s). The relationship "
                           "memory still holds them.")
        elif window.nearly_full and not window.dropped and not self._warned_full:
            self._warned_full = True
            notices.append(f"The story so far nearly fills the model's context (about {window.used} of "
                           f"{max(budget, 0)} tokens for past turns); soon the oldest turns will drop out of "
                           "the narrator's view (context_size under [llm]).")
        return [past[i] for i in window.kept], notices

    # -------------------------------------------------------------------------------------- step 2

    async def finish(self, request: NarrationRequest, narration: str) -> NarrationResult:
        notices = self._notices.pop(request.turn, []) + self.caps.take_fallbacks()
        try:
            ir, error, salvaged = await self._world_ir(request, narration)
        except NarratorError as failure:
            ir, error, salvaged = None, failure.message, 0
        notices.extend(self.caps.take_fallbacks())
        if salvaged:
            notices.append(f"{salvaged} unreadable fact(s) of this turn were left out of the memory.")
        if ir is not None:
            ir, unsupported = _supported_only(ir, strip_reasoning(narration))
            if unsupported:
                counts = self._turn_usage(request.turn).counts
                counts["world-ir.unsupported"] = counts.get("world-ir.unsupported", 0) + unsupported
                notices.append(f"{unsupported} relationship fact(s) of this turn were left out of the memory: "
                               "the sentence given as evidence is not in the narration.")
        scene = request.scene.model_copy(deep=True)
        if ir is not None:
            scene.cast = list(ir.next_cast)
            if ir.location:
                scene.location = self._place_id(ir.location)
        return NarrationResult(world_ir=ir or WorldIR(), scene=scene, notices=notices, ir_error=error)

    def _place_id(self, location: str) -> str:
        key = normalize_name(location)
        for place in self.world.places.values():
            if key in {normalize_name(place.id), normalize_name(place.name)}:
                return place.id
        return location

    async def _world_ir(self, request: NarrationRequest, narration: str) -> tuple[WorldIR | None, str | None, int]:
        """The turn's World IR, with bounded repair turns; (None, why, 0) when none could be read."""
        model = await self._model("world-ir")
        mentioned = await find_mentions(request.graph, f"{request.player_input}\n{narration}")
        schema = model_schema(WorldIR)
        repairs: list[dict[str, Any]] = []
        attempts = 1 + self.llm.repair_attempts
        problem = "no reply"
        last_value: Any = None
        for attempt in range(attempts):
            # Rebuilt each try: a fallback to plain JSON taken meanwhile needs the schema in the prompt.
            inline = schema if self.caps.structured == "none" else None
            prompt = world_ir_v1(self.world, request.scene, request.turn, request.player_input,
                                 strip_reasoning(narration), mentioned, inline)
            params: dict[str, Any] = {"model": model, "messages": [*prompt.messages, *repairs], "temperature": 0}
            fmt = response_format(self.caps.structured, "world_ir", schema)
            if fmt is not None:
                params["response_format"] = fmt
            completion = await self._complete(request.turn, "world-ir", params, ("json_schema", "json_object"))
            text = _reply_text(completion)
            try:
                value = parse_json_reply(text)
            except JSONReplyError as error:
                problem = f"the reply is {error}"
            else:
                last_value = value
                if echoes_schema(value, IR_FIELDS):
                    problem = ("you sent back the JSON schema itself; fill it in with this turn's facts "
                               "(charactersPresent, entities, relations, endedRelations, nextCast, location)")
                else:
                    try:
                        return WorldIR.model_validate(_tidy_ir(value)), None, 0
                    except ValidationError as error:
                        problem = describe_validation_error(error)
            if attempt + 1 < attempts:
                repairs += [{"role": "assistant", "content": text[:4000]},
                            {"role": "user", "content": f"That reply cannot be used: {problem}. Reply again "
                                                        "with one corrected JSON object and nothing else."}]
        if not echoes_schema(last_value, IR_FIELDS):
            salvaged = _salvage(last_value)
            if salvaged is not None:
                return salvaged
        return None, f"the model's facts for this turn could not be read ({problem}).", 0

    # -------------------------------------------------------------------------------------- step 3

    async def extract(self, request: NarrationRequest, result: NarrationResult,
                      execution: UpsertExecution) -> ExtractionReport:
        turn = request.turn
        if result.ir_error:
            return ExtractionReport(False, message=result.ir_error, usage=self.usage(turn))
        ir = result.world_ir
        if not _records_anything(ir):
            return ExtractionReport(True, message="nothing to record", usage=self.usage(turn))
        if self.llm.extraction == "world-ir" or not self.caps.tools:
            # A server that refused tools outright cannot run the extractor; the validated IR can be kept.
            report = await apply_world_ir(ir, execution)
            report.usage = self.usage(turn)
            return report
        try:
            model = await self._model("extract")
            nodes, edges, names = await existing_near(request.graph, ir)
            prompt = self._fitted_extract_prompt(turn, ir, nodes, edges, names)

            async def complete(step: str, params: dict[str, Any]) -> dict[str, Any]:
                return await self._complete(turn, step, params, ("tool_choice",))

            report = await ToolExtractor(complete, self.caps, model, self.llm.extractor_steps).run(
                prompt, ir, execution)
        except NarratorError as failure:
            message = failure.message
            if isinstance(failure, LLMError) and failure.kind == "bad-request" and "tool" in failure.detail.lower():
                message += ' A model that cannot call tools needs extraction = "world-ir" under [llm].'
            report = ExtractionReport(False, message=message)
        report.usage = self.usage(turn)
        return report


    def _fitted_extract_prompt(self, turn: int, ir: WorldIR, nodes: list[Node], edges: list[Edge],
                               names: dict[str, Node]) -> Prompt:
        """The extractor prompt with as many known characters and relations as the context holds.

        Sixty of each, at about 150 characters a line, is some 6,000 tokens: more than a small local
        model's whole window. The lists are closest-first, so trimming from the end keeps what matters.
        """
        budget = self.llm.context_size - EXTRACT_REPLY_RESERVE - tools_tokens(extraction_tools())
        prompt = extract_v1(self.world, turn, ir, nodes, edges, names)
        while message_tokens(prompt.messages) > budget and (nodes or edges):
            if len(edges) >= len(nodes):
                edges = edges[: len(edges) - max(1, len(edges) // 8)]
            else:
                nodes = nodes[: len(nodes) - max(1, len(nodes) // 8)]
            prompt = extract_v1(self.world, turn, ir, nodes, edges, names)
        return prompt


@dataclass
class _Round:
    """What one streamed narration round produced besides the text shown."""

    text: str = ""
    raw: str = ""
    held: str = ""
    finish: str | None = None
    usage: dict[str, Any] | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    cut: bool = False

    def reset(self) -> None:
        self.text = self.raw = self.held = ""
        self.finish = None
        self.usage = None
        self.tool_calls = []


def _joined(before: str, piece: str, fresh: bool) -> str:
    """A piece as it should follow the text so far: no leading blank at the start, a space between rounds."""
    if not before:
        return piece.lstrip()
    if fresh and piece and not piece[0].isspace() and not before[-1].isspace():
        return " " + piece
    return piece



def _reply_text(completion: dict[str, Any]) -> str:
    """The reply's text; a JSON reply some servers put in a tool call's arguments instead is taken too."""
    message = first_message(completion)
    content = message.get("content")
    if isinstance(content, str) and content.strip():
        return content
    for call in message.get("tool_calls") or []:
        arguments = (call.get("function") or {}).get("arguments") if isinstance(call, dict) else None
        if isinstance(arguments, str) and arguments.strip():
            return arguments
    return ""


def _with_schema(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    schema = json.dumps(model_schema(WorldIR), separators=(",", ":"))
    first = dict(messages[0])
    first["content"] = f"{first['content']} It must match this JSON schema:\n{schema}"
    return [first, *messages[1:]]


def _tidy_ir(value: Any) -> Any:
    """Forgivable slips: ``null`` for a list, a kind named by a common synonym."""
    if not isinstance(value, dict):
        return value
    value = dict(value)
    for key in ("charactersPresent", "entities", "relations", "endedRelations", "nextCast"):
        if value.get(key) is None and key in value:
            value[key] = []
    entities = value.get("entities")
    if isinstance(entities, list):
        tidy = []
        for entity in entities:
            if isinstance(entity, dict) and isinstance(entity.get("kind"), str):
                kind = entity["kind"].strip().lower()
                entity = {**entity, "kind": _KIND_SYNONYMS.get(kind, kind)}
            tidy.append(entity)
        value["entities"] = tidy
    return value


def _salvage(value: Any) -> tuple[WorldIR, None, int] | None:
    """On the last try, keep the items that validate and count the ones left out (never invent any)."""
    if not isinstance(value, dict):
        return None
    value = _tidy_ir(value)
    kept: dict[str, Any] = {}
    dropped = 0
    for key in ("charactersPresent", "nextCast"):
        items = value.get(key)
        if isinstance(items, list):
            kept[key] = [i for i in items if isinstance(i, str) and i.strip()]
            dropped += len(items) - len(kept[key])
    for key in ("entities", "relations", "endedRelations"):
        items = value.get(key)
        if not isinstance(items, list):
            continue
        good = []
        for item in items:
            try:
                WorldIR.model_validate({key: [item]})
            except ValidationError:
                dropped += 1
                continue
            good.append(item)
        kept[key] = good
    if isinstance(value.get("location"), str):
        kept["location"] = value["location"]
    try:
        ir = WorldIR.model_validate(kept)
    except ValidationError:
        return None
    if not (ir.entities or ir.relations or ir.ended_relations):
        # Nothing usable survived: the turn is better marked not extracted than recorded as uneventful.
        return None
    return ir, None, dropped


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def _normal(text: str) -> str:
    return " ".join(text.translate(_QUOTES).casefold().split())


def _supported_only(ir: WorldIR, narration: str) -> tuple[WorldIR, int]:
    """The IR without relations and endings whose evidence the narration does not contain.

    The narration the player saw is the only source of facts: a relation quoting anything else (the
    player's own words dressed up as narration, or a model's invention) would let typed input rewrite
    the memory. An empty evidence supports nothing.
    """
    told = _normal(narration)
    relations = [r for r in ir.relations if (e := _normal(r.evidence)) and e in told]
    ended = [r for r in ir.ended_relations if (e := _normal(r.evidence)) and e in told]
    dropped = len(ir.relations) - len(relations) + len(ir.ended_relations) - len(ended)
    if not dropped:
        return ir, 0
    return ir.model_copy(update={"relations": relations, "ended_relations": ended}), dropped


def _records_anything(ir: WorldIR) -> bool:
    return bool(ir.relations or ir.ended_relations or any(e.kind in GRAPH_KINDS for e in ir.entities))
