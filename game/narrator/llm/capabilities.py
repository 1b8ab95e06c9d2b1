"""What an endpoint accepts, learned as the game goes, and the single probe ``kith doctor`` runs.

Servers refuse parts of the protocol in different ways: older vLLM refuses ``tool_choice: "required"``,
LM Studio refuses ``json_object``, some servers refuse ``stream_options``, some models refuse ``tools``.
A refusal (HTTP 400) that names a feature turns that feature off for the session and the request is
sent again without it, once; the player is told which fallback is in use. Servers that *silently* ignore
a feature are handled where the reply is read (text where a tool call was required, prose where JSON was
asked for).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import httpx2

from game.config import LLMSettings
from game.narrator.llm.base_model import BASE_MODEL, props_without_template, writes_markers
from game.narrator.llm.guard import SafeStream, until_end
from game.narrator.llm.json_reply import JSONReplyError, echoes_schema, parse_json_reply, text_tool_calls
from game.narrator.llm.stream import ChunkShapeError, message_tool_calls, read_chunk
from game.narrator.llm.tools import narration_tools
from game.narrator.llm.transport import ChatCall, LLMError, Transport, first_message

STRUCTURED_ORDER = ("json_schema", "json_object", "none")
_HINTS: dict[str, tuple[str, ...]] = {
    "stream_options": ("stream_options", "include_usage"),
    "tool_choice": ("tool_choice", "tool choice", "required"),
    "tools": ("tool", "function"),
    "json_schema": ("json_schema", "response_format", "schema", "structured"),
    "json_object": ("json_object", "response_format", "json mode"),
}

TOOLS_REFUSED = re.compile(
    r"(?i)tools? param\w* requires|--jinja|does not support tools|tools? (?:are|is) not supported"
    r"|tool[ _-]?(?:calling|calls|use)? (?:is )?not (?:supported|enabled)|auto\W{0,3}tool choice requires")
"""How servers say they cannot take ``tools`` at all, whatever the status: llama-server without
``--jinja`` answers HTTP 500 "tools param requires --jinja flag", Ollama 400 "... does not support tools",
vLLM without a tool parser 400 '"auto" tool choice requires --enable-auto-tool-choice'."""

FALLBACK_WORDS = {
    "stream_options": "the server does not report token usage while streaming; Kith estimates it",
    "tools": "the server refuses tools: the narrator tells turns without character lookups, and the "
             "graph update reads each turn's World IR without the extractor",
    "tool_choice": 'the server refuses tool_choice "required": the extractor asks for tool calls instead',
    "json_schema": "the server refuses JSON schemas: the World IR step uses JSON mode",
    "json_object": "the server refuses JSON mode: the World IR step asks for JSON in plain text and repairs it",
}


@dataclass
class Capabilities:
    """The features the session still uses, and the fallbacks taken so far (to tell the player once)."""

    stream_usage: bool = True
    tools: bool = True
    tool_choice_required: bool = True
    structured: str = "json_schema"
    fallbacks: list[str] = field(default_factory=list)

    @classmethod
    def from_settings(cls, settings: LLMSettings) -> Capabilities:
        structured = "json_schema" if settings.structured_output == "auto" else settings.structured_output
        return cls(structured=structured, tools=settings.tools)

    def refused(self, error: LLMError, candidates: Sequence[str]) -> str | None:
        """Turn off the feature a 400 refused (among ``candidates`` still on); None when it was not one.

        A refusal of tools is recognised by its words whatever the status (llama-server sends a 500)."""
        live = [c for c in candidates if self._on(c)]
        if not live:
            return None
        if "tools" in live and error.kind in ("bad-request", "server") and TOOLS_REFUSED.search(
                f"{error.detail} {error.message}"):
            self._off("tools")
            self.fallbacks.append(FALLBACK_WORDS["tools"])
            return "tools"
        if error.kind != "bad-request":
            return None
        text = f"{error.detail} {error.message}".lower()
        chosen = next((c for c in live if any(h in text for h in _HINTS[c])), None)
        if chosen is None:
            # A 400 about something else (a temperature out of range, a prompt too long) is the player's
            # to see: dropping a working feature for the whole session would hide it and fix nothing.
            return None
        self._off(chosen)
        self.fallbacks.append(FALLBACK_WORDS[chosen])
        return chosen

    def _on(self, feature: str) -> bool:
        if feature == "stream_options":
            return self.stream_usage
        if feature == "tools":
            return self.tools
        if feature == "tool_choice":
            return self.tool_choice_required
        return self.structured == feature

    def _off(self, feature: str) -> None:
        if feature == "stream_options":
            self.stream_usage = False
        elif feature == "tools":
            self.tools = False
        elif feature == "tool_choice":
            self.tool_choice_required = False
        else:
            self.structured = STRUCTURED_ORDER[STRUCTURED_ORDER.index(feature) + 1]

    def take_fallbacks(self) -> list[str]:
        taken, self.fallbacks = self.fallbacks, []
        return taken


def response_format(structured: str, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if structured == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
    if structured == "json_object":
        return {"type": "json_object"}
    return None


# ------------------------------------------------------------------------------------------ the probe


@dataclass
class Check:
    """One line of the doctor's report."""

    name: str
    ok: bool
    words: str


@dataclass
class ServerProps:
    """What llama-server says about itself at ``GET /props``; other servers have no such page."""

    context_size: int | None = None
    tools: bool | None = None
    """Whether the loaded chat template can take tools (``chat_template_caps``); None when not said."""
    no_template: bool = False
    """The model has no chat template of its own (``base_model.props_without_template``)."""


def parse_props(data: Any) -> ServerProps | None:
    """Read llama.cpp's ``/props`` body (any version's shape); None when it is not one."""
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    n_ctx = (settings.get("n_ctx") if isinstance(settings, dict) else None) or data.get("n_ctx")
    caps = data.get("chat_template_caps")
    tools: bool | None = None
    if isinstance(caps, dict):
        said = [caps[k] for k in ("supports_tools", "supports_tool_calls") if isinstance(caps.get(k), bool)]
        tools = all(said) if said else None
    context = n_ctx if isinstance(n_ctx, int) and not isinstance(n_ctx, bool) and n_ctx > 0 else None
    no_template = props_without_template(data)
    if context is None and tools is None and not no_template:
        return None
    return ServerProps(context, tools, no_template)


async def read_props(base_url: str | None, timeout: float = 5.0) -> ServerProps | None:
    """Fetch llama-server's ``/props`` (beside ``/v1``); None for any other server or any failure."""
    if not base_url:
        return None
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        async with httpx2.AsyncClient(timeout=timeout) as client:
            response = await client.get(f"{root}/props")
        if response.status_code != 200:
            return None
        return parse_props(response.json())
    except (httpx2.HTTPError, ValueError):
        return None


@dataclass
class ProbeReport:
    endpoint: str
    model: str | None
    checks: list[Check] = field(default_factory=list)
    props: ServerProps | None = None
    recommended: list[str] = field(default_factory=list)
    tools_refused: bool = False
    tools_lost: bool = False
    base_model: bool = False
    """A base model with no chat template (``base_model``): nothing the game asks of it can work."""
    """The tools probe never got an answer: nothing is recommended about tools until the server answers."""
    """The server refused a request for sending tools (not a model that ignored them)."""
    """Lines for ``[llm]`` in kith.toml the doctor recommends (``tools = false``, ``context_size = 4096``)."""

    def add(self, name: str, ok: bool, words: str) -> None:
        self.checks.append(Check(name, ok, words))

    def passed(self, name: str) -> bool:
        return any(c.name == name and c.ok for c in self.checks)

    def failed(self, name: str) -> bool:
        return any(c.name == name and not c.ok for c in self.checks)

    def recommend(self, line: str) -> None:
        if line not in self.recommended:
            self.recommended.append(line)

    @property
    def narration_works(self) -> bool:
        return self.passed("reachable") and self.passed("streaming") and not self.base_model


_PING = {"type": "function", "function": {
    "name": "ping", "description": "Answer a ping.",
    "parameters": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}}}
_PROBE_SCHEMA = {"type": "object", "properties": {"colour": {"type": "string"}, "count": {"type": "integer"}},
                 "required": ["colour", "count"], "additionalProperties": False}
PROBE_TOKENS = 64
"""``max_tokens`` of every probe: the game bounds every reply, and a model that never stops must not keep
the doctor waiting until the timeout (the probes' answers are a few words)."""
_LOST = ("connection", "refused")


async def _complete(transport: Transport, params: dict[str, Any]) -> dict[str, Any]:
    """One probe request; a lost connection is tried once more before the doctor judges anything by it
    (a keep-alive connection the server dropped says nothing about the feature asked about)."""
    try:
        return await transport.complete(ChatCall("probe", params))
    except LLMError as error:
        if error.kind not in _LOST:
            raise
    return await transport.complete(ChatCall("probe", params))


def _lost_words(error: LLMError) -> str | None:
    return f"the connection failed twice, so this was not judged ({error.message})" if error.kind in _LOST else None


def _note_length(report: ProbeReport, completion: dict[str, Any] | None, finish: str | None = None) -> None:
    """A reply cut at ``max_tokens`` is reported once: the model may not stop by itself."""
    if finish is None and completion is not None:
        choices = completion.get("choices")
        first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        finish = first.get("finish_reason")
    if finish == "length" and not report.failed("length"):
        report.add("length", False, f"a short reply was cut at max_tokens ({PROBE_TOKENS}): the model may not "
                   "stop by itself (a base model, or a chat template the server does not apply); Kith bounds "
                   "every reply (narration_tokens, world_ir_tokens, extract_tokens), but stories will end mid-"
                   "sentence")


async def probe(transport: Transport, endpoint: str, model: str | None,
                props: ServerProps | None = None, context_size: int | None = None) -> ProbeReport:
    """Ask the endpoint once about each feature the game relies on, in the game's own request shapes
    (bounded replies, ``stream_options``, tools); never raises for a missing feature.

    ``props`` is what llama-server said about itself, ``context_size`` the setting in use: together they
    decide the settings recommended."""
    report = ProbeReport(endpoint, model, props=props)
    if model is None:
        try:
            offered = await transport.models()
        except LLMError as error:
            report.add("reachable", False, error.message)
            return report
        if not offered:
            report.add("reachable", False, "the server lists no models; set one with --model or KITH_MODEL")
            return report
        model = report.model = offered[0]
    hello = [{"role": "user", "content": "Reply with the single word: ready"}]
    started = time.monotonic()
    try:
        completion = await _complete(transport, {"model": model, "messages": hello, "temperature": 0,
                                                 "max_tokens": PROBE_TOKENS})
    except LLMError as error:
        report.add("reachable", False, error.message)
        return report
    report.add("reachable", True, f"the model {model!r} answered in {time.monotonic() - started:.1f} s")
    _note_length(report, completion)
    report.base_model = (props is not None and props.no_template) or writes_markers(
        str(first_message(completion).get("content") or ""))
    if props is not None and props.context_size is not None:
        report.add("context", True, f"the server reports a context size {props.context_size} tokens per request")
    await _probe_stream(transport, model, report)
    if report.base_model:
        # Tools and JSON are beside the point for a model that cannot hold a conversation (and each of
        # its replies runs to the length limit): the doctor says what to use instead, and stops.
        report.add("chat template", False, BASE_MODEL)
        return report
    await _probe_tools(transport, model, report)
    await _probe_required(transport, model, report)
    await _probe_structured(transport, model, report)
    _recommend(report, context_size)
    return report


def _recommend(report: ProbeReport, context_size: int | None) -> None:
    props = report.props
    if report.tools_refused or (props is not None and props.tools is False):
        report.recommend("tools = false")
    elif report.failed("tools") and not report.tools_lost:
        # The server takes tools but the model does not call them: lookups cost nothing, the graph update needs World IR.
        report.recommend('extraction = "world-ir"')
    if props is not None and props.context_size is not None and props.context_size != context_size:
        # The settings accept 1024 and more: a smaller server context needs the server started larger.
        report.recommend(f"context_size = {max(props.context_size, 1024)}")


async def _probe_stream(transport: Transport, model: str, report: ProbeReport) -> None:
    pieces = 0
    text = ""
    finish: str | None = None
    # The narration's own shape: bounded, usage asked for, the lookup tools offered (``tool_choice: "none"``,
    # as on the game's last round, so a real model answers in words). Refusals are met as the game meets them.
    params: dict[str, Any] = {
        "model": model, "messages": [{"role": "user", "content": "Count from one to five in words."}],
        "temperature": 0, "max_tokens": PROBE_TOKENS, "stream": True, "stream_options": {"include_usage": True},
        "tools": narration_tools(), "tool_choice": "none"}
    caps = Capabilities()
    for attempt in range(3):
        watch = SafeStream()
        try:
            # Closed at the model's end-of-turn marker, as the narration is: the server stops there.
            async with aclosing(transport.stream(ChatCall("probe", params))) as chunks:
                async for chunk in chunks:
                    read = read_chunk(chunk)
                    for content in read.content:
                        pieces += 1
                        text += content
                        watch.feed(content)
                    finish = read.finish or finish
                    if watch.ended:
                        finish = finish or "stop"
                        break
        except LLMError as error:
            if error.kind in _LOST and not text and attempt == 0:
                continue
            dropped = None if text else caps.refused(error, ("stream_options", "tools"))
            if dropped is not None and attempt < 2:
                params = {k: v for k, v in params.items()
                          if k not in ((dropped,) if dropped == "stream_options" else ("tools", "tool_choice"))}
                continue
            report.add("streaming", False, f"streaming failed: {error.message}")
            return
        except ChunkShapeError as error:
            report.add("streaming", False, f"the stream cannot be read ({error})")
            return
        break
    if not caps.stream_usage:
        report.add("usage", False, FALLBACK_WORDS["stream_options"])
    _note_length(report, None, finish)
    report.base_model = report.base_model or writes_markers(text)
    text = until_end(text)[0]
    if not text.strip():
        report.add("streaming", False, "the streamed reply was empty")
    elif pieces == 1:
        report.add("streaming", True, "replies arrive whole rather than word by word, but they arrive")
    else:
        report.add("streaming", True, f"text arrives as it is written ({pieces} pieces)")


async def _probe_tools(transport: Transport, model: str, report: ProbeReport) -> None:
    messages = [{"role": "user", "content": "Call the ping tool with the word 'hello'."}]
    try:
        completion = await _complete(transport, {
            "model": model, "messages": messages, "tools": [_PING], "temperature": 0, "max_tokens": PROBE_TOKENS})
    except LLMError as error:
        lost = _lost_words(error)
        if lost is not None:
            report.tools_lost = True
            report.add("tools", False, lost)
            return
        report.tools_refused = True
        report.add("tools", False, f"the server refuses tools ({error.message}); the narrator will work "
                   "without character lookups and graph updates need extraction = \"world-ir\"")
        return
    message = first_message(completion)
    if message_tool_calls(message):
        report.add("tools", True, "the model calls tools (character lookups and graph updates work)")
    elif text_tool_calls(str(message.get("content") or ""), ["ping"]):
        report.add("tools", False, "the model writes tool calls as plain text instead of calling them; "
                   "check the server's tool-call parser or chat template, or set extraction = \"world-ir\"")
    else:
        report.add("tools", False, "the model ignored the tools (the server may drop them); "
                   "set extraction = \"world-ir\" under [llm]")


async def _probe_required(transport: Transport, model: str, report: ProbeReport) -> None:
    messages = [{"role": "user", "content": "Say hello."}]
    try:
        completion = await _complete(transport, {
            "model": model, "messages": messages, "tools": [_PING], "tool_choice": "required", "temperature": 0,
            "max_tokens": PROBE_TOKENS})
    except LLMError as error:
        report.add("tool_choice", False, f'tool_choice "required" is refused ({error.message}); the extractor '
                   "will ask for tool calls instead")
        return
    if message_tool_calls(first_message(completion)):
        report.add("tool_choice", True, 'tool_choice "required" is honoured')
    else:
        report.add("tool_choice", False, 'tool_choice "required" is ignored; the extractor will insist '
                   "within its step limit")


async def _probe_structured(transport: Transport, model: str, report: ProbeReport) -> None:
    messages = [{"role": "user", "content": "Give a colour and a count as JSON with keys colour and count."}]
    for mode in ("json_schema", "json_object"):
        params: dict[str, Any] = {"model": model, "messages": messages, "temperature": 0,
                                  "max_tokens": PROBE_TOKENS, "response_format": response_format(mode, "probe", _PROBE_SCHEMA)}
        try:
            completion = await _complete(transport, params)
        except LLMError as error:
            report.add(mode, False, f"{mode} is refused ({error.message})")
            continue
        text = str(first_message(completion).get("content") or "")
        try:
            value = parse_json_reply(text)
        except JSONReplyError as error:
            report.add(mode, False, f"{mode} is accepted but the reply is {error}")
            continue
        if echoes_schema(value, ["colour", "count"]):
            report.add(mode, False, f"{mode} is accepted but the model echoes the schema instead of filling it")
            continue
        clean = text.strip().startswith("{")
        report.add(mode, True, f"{mode} works" + ("" if clean else " (the reply needed repair: fences or "
                                                   "reasoning around the JSON)"))
        return
    report.add("plain JSON", True, "the World IR step will ask for JSON in plain text and repair it")
