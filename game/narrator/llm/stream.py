"""Reading replies: tool calls assembled from streamed fragments, reasoning blocks kept from the player.

Streamed tool calls arrive in pieces: the first fragment of a call carries its ``index``, ``id`` and
name, later ones only the index and a slice of the arguments. Some local servers omit the index or send
a whole call in one chunk; the assembler copes with each. Reasoning models served by Ollama or
llama.cpp write ``<think>...</think>`` into the content; ``ThinkFilter`` drops those spans from a stream
even when a tag is split across chunks. ``read_chunk`` checks each stream event's shape first, so the
rest of the narrator reads only events shaped like chat completion chunks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

THINK_TAGS = ("think", "thinking", "reasoning")
_OPEN = tuple(f"<{tag}>" for tag in THINK_TAGS)
_CLOSE = tuple(f"</{tag}>" for tag in THINK_TAGS)
_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?(</\1>|$)", re.DOTALL | re.IGNORECASE)
_STRAY_CLOSE = re.compile(r"^.*?</(think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)
MAX_TOOL_CALLS = 16
"""Tool calls of one reply that are read; a reply with thousands is cut to these (each needs an answer)."""


@dataclass
class ToolCall:
    """A complete tool call: its id (made up when the server gave none), name and raw argument text."""

    id: str
    name: str
    arguments: str

    def to_message(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass
class ToolCallAssembler:
    """Collects tool-call fragments into whole calls, by index (or by id, or in order, when index is absent)."""

    _slots: list[dict[str, str]] = field(default_factory=list)
    _by_index: dict[int, int] = field(default_factory=dict)

    def add(self, fragments: list[dict[str, Any]] | None) -> None:
        for fragment in fragments or []:
            if not isinstance(fragment, dict):
                continue
            slot = self._slot_for(fragment)
            function = fragment.get("function")
            if not isinstance(function, dict):
                function = {}
            name = function.get("name")
            if isinstance(name, str) and name and not slot["name"].endswith(name):
                slot["name"] += name
            arguments = function.get("arguments")
            if isinstance(arguments, dict | list):
                arguments = json.dumps(arguments)
            if isinstance(arguments, str):
                slot["arguments"] += arguments
            if fragment.get("id") and not slot["id"]:
                slot["id"] = str(fragment["id"])

    def _slot_for(self, fragment: dict[str, Any]) -> dict[str, str]:
        index = fragment.get("index")
        call_id = fragment.get("id")
        if not isinstance(call_id, str | int) or isinstance(call_id, bool):
            call_id = None
        if isinstance(index, int) and not isinstance(index, bool):
            if index not in self._by_index:
                self._by_index[index] = len(self._slots)
                self._slots.append({"id": "", "name": "", "arguments": ""})
            return self._slots[self._by_index[index]]
        if call_id and any(s["id"] == call_id for s in self._slots):
            return next(s for s in self._slots if s["id"] == call_id)
        if call_id or not self._slots:
            self._slots.append({"id": "", "name": "", "arguments": ""})
        return self._slots[-1]

    def calls(self) -> list[ToolCall]:
        """The whole calls, at most ``MAX_TOOL_CALLS`` of them."""
        calls = []
        for number, slot in enumerate(self._slots):
            if not slot["name"]:
                continue
            calls.append(ToolCall(slot["id"] or f"call_{number}", slot["name"], slot["arguments"]))
            if len(calls) >= MAX_TOOL_CALLS:
                break
        return calls

    def __bool__(self) -> bool:
        return any(s["name"] for s in self._slots)


def message_tool_calls(message: dict[str, Any]) -> list[ToolCall]:
    """The tool calls of a non-streamed reply's message."""
    assembler = ToolCallAssembler()
    fragments = []
    raw_calls = message.get("tool_calls")
    for number, raw in enumerate(raw_calls[:MAX_TOOL_CALLS] if isinstance(raw_calls, list) else []):
        if isinstance(raw, dict):
            fragments.append({**raw, "index": number})
    assembler.add(fragments)
    return assembler.calls()


HOLD_CHARS = 4000
"""How much of a reply's start is held back while it may still be reasoning closed by a stray tag."""


class ThinkFilter:
    """Drops ``<think>`` spans from streamed text, holding back a tag that may be split across chunks.

    R1-style chat templates open the think block in the prompt, so the reply holds only its end: until
    anything is shown, up to ``hold`` characters are held back, and everything before a stray closing tag
    is dropped, as ``strip_reasoning`` drops it. ``hold=0`` streams at once: holding every reply of every
    model would end streaming, so the narrator holds only for models that do this (``stray_close``).
    """

    def __init__(self, hold: int = HOLD_CHARS) -> None:
        self._pending = ""
        self._inside = False
        self._close = ""
        self._hold = hold
        self._held = ""
        self.saw_tag = False
        """Whether the reply held any reasoning tag, opening or closing."""
        self.stray_close = False
        """Whether the reply closed a reasoning block it never opened."""

    def feed(self, text: str) -> str:
        if self._hold:
            self._held += text
            lowered = self._held.lower()
            opened = min((lowered.find(tag) for tag in _OPEN if tag in lowered), default=-1)
            closed = min(((lowered.find(tag), tag) for tag in _CLOSE if tag in lowered), default=None)
            if closed is not None and (opened < 0 or closed[0] < opened):
                self.saw_tag = self.stray_close = True
                text = self._held[closed[0] + len(closed[1]):]
            elif opened >= 0 or len(self._held) > self._hold:
                text = self._held
            else:
                return ""
            self._hold, self._held = 0, ""
        return self._filter(text)

    def _filter(self, text: str) -> str:
        self._pending += text
        out: list[str] = []
        while self._pending:
            lowered = self._pending.lower()
            if self._inside:
                end = lowered.find(self._close)
                if end < 0:
                    keep = len(self._close) - 1
                    self._pending = self._pending[-keep:] if keep else ""
                    break
                self._pending = self._pending[end + len(self._close):]
                self._inside = False
                continue
            starts = [(lowered.find(tag), tag) for tag in (*_OPEN, *_CLOSE) if tag in lowered]
            if not starts:
                cut = _partial_tag_start(lowered)
                out.append(self._pending[:cut])
                self._pending = self._pending[cut:]
                break
            start, tag = min(starts)
            self.saw_tag = True
            out.append(self._pending[:start])
            self._pending = self._pending[start + len(tag):]
            if tag in _OPEN:
                self._inside = True
                self._close = "</" + tag[1:]
            else:
                self.stray_close = True
        return "".join(out)

    def flush(self) -> str:
        """What is left at the end of the stream (an unclosed think block is dropped)."""
        held = ""
        if self._hold:
            # No closing tag came: what was held is the reply itself.
            self._hold, text, self._held = 0, self._held, ""
            held = self._filter(text)
        rest = held + ("" if self._inside else self._pending)
        self._pending = ""
        return rest


def _partial_tag_start(lowered: str) -> int:
    """Where a possible tag prefix at the end of the text starts (the length when there is none)."""
    start = lowered.rfind("<")
    if start < 0:
        return len(lowered)
    tail = lowered[start:]
    if any(tag.startswith(tail) for tag in (*_OPEN, *_CLOSE)):
        return start
    return len(lowered)


def strip_reasoning(text: str) -> str:
    """Text without think blocks; text before a stray closing tag was reasoning too."""
    text = _THINK_BLOCK.sub("", text)
    return _STRAY_CLOSE.sub("", text) if re.search(r"</(think|thinking|reasoning)>", text, re.I) else text



@dataclass
class ChunkParts:
    """What one stream event carries, checked for shape: text, tool-call fragments, finish reason, usage."""

    content: list[str] = field(default_factory=list)
    tool_fragments: list[dict[str, Any]] = field(default_factory=list)
    finish: str | None = None
    usage: dict[str, Any] | None = None


class ChunkShapeError(ValueError):
    """A stream event that is not shaped like a chat completion chunk; says which part is wrong."""


def read_chunk(chunk: Any) -> ChunkParts:
    """The parts of one stream event; ``ChunkShapeError`` when it is not a chat completion chunk.

    Servers have sent ``null``, bare lists, ``"choices": "nope"`` and string deltas: each is refused here,
    in one place, with words that say what was wrong, instead of failing wherever the reply is read.
    """
    if not isinstance(chunk, dict):
        raise ChunkShapeError(f"a stream event is {_kind(chunk)}, not a JSON object")
    parts = ChunkParts()
    usage = chunk.get("usage")
    if isinstance(usage, dict):
        parts.usage = usage
    choices = chunk.get("choices")
    if choices is None:
        return parts
    if not isinstance(choices, list):
        raise ChunkShapeError(f"a stream event's choices is {_kind(choices)}, not a list")
    for choice in choices:
        if not isinstance(choice, dict):
            raise ChunkShapeError(f"a stream event's choice is {_kind(choice)}, not an object")
        delta = choice.get("delta")
        if delta is None:
            delta = {}
        if not isinstance(delta, dict):
            raise ChunkShapeError(f"a stream event's delta is {_kind(delta)}, not an object")
        fragments = delta.get("tool_calls")
        if fragments is not None:
            if not isinstance(fragments, list) or not all(isinstance(f, dict) for f in fragments):
                raise ChunkShapeError(f"a stream event's tool_calls is {_kind(fragments)}, not a list of objects")
            parts.tool_fragments.extend(fragments)
        content = delta.get("content")
        if content is not None and not isinstance(content, str):
            raise ChunkShapeError(f"a stream event's content is {_kind(content)}, not text")
        if content:
            parts.content.append(content)
        finish = choice.get("finish_reason")
        if finish:
            parts.finish = str(finish)
    return parts


def _kind(value: Any) -> str:
    names = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "text",
             list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)
