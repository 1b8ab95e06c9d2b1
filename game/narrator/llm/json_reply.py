"""JSON from models that do not quite send JSON: repair what is safe to repair, name what is not.

Local models wrap JSON in code fences, put a ``<think>`` block before it, add a sentence after it, leave a
trailing comma, or echo the JSON schema back instead of filling it in. ``parse_json_reply`` undoes the
first four; ``echoes_schema`` recognizes the last, so the caller can say so to the model instead of
validating a schema as if it were data. ``text_tool_calls`` finds a tool call written as plain text in
the formats local servers leak (Hermes ``<tool_call>``, Mistral ``[TOOL_CALLS]``, Llama
``<|python_tag|>``, a bare ``{"name": ..., "arguments": ...}``).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from game.narrator.llm.stream import strip_reasoning

MAX_JSON_CHARS = 60_000
_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SCHEMA_KEYS = {"$schema", "$defs", "definitions", "properties", "additionalProperties", "required"}


class JSONReplyError(ValueError):
    """A reply that holds no usable JSON; the message says why, for the model's next try. It completes
    "the reply is ..." (or "the arguments are ..."), the way every caller puts it."""


def parse_json_reply(text: str) -> Any:
    """The JSON value a reply holds, after removing reasoning, fences and surrounding prose."""
    if len(text) > MAX_JSON_CHARS:
        raise JSONReplyError(f"too long ({len(text)} characters; at most {MAX_JSON_CHARS})")
    candidates = [text]
    cleaned = strip_reasoning(text).strip()
    candidates.append(cleaned)
    candidates.extend(m.group(1).strip() for m in _FENCE.finditer(cleaned))
    embedded = first_json_span(cleaned)
    if embedded is not None:
        candidates.append(embedded)
    last_error = "empty: no JSON object or list in it"
    for candidate in candidates:
        if not candidate:
            continue
        for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                return json.loads(attempt, strict=False)
            except json.JSONDecodeError as error:
                last_error = f"not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
    raise JSONReplyError(last_error)


def first_json_span(text: str) -> str | None:
    """The first balanced ``{...}`` or ``[...]`` in text, respecting strings (None when there is none)."""
    for start, char in enumerate(text):
        if char not in "{[":
            continue
        depth = 0
        in_string = False
        escaped = False
        for end in range(start, len(text)):
            c = text[end]
            if in_string:
                if escaped:
                    escaped = False
                elif c == "\\":
                    escaped = True
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    return text[start:end + 1]
        return None
    return None


def echoes_schema(value: Any, expected_fields: Iterable[str]) -> bool:
    """Whether a reply is a JSON schema (or a copy of ours) rather than an instance of it."""
    if not isinstance(value, Mapping):
        return False
    keys = set(value)
    fields = set(expected_fields)
    if keys & fields and not (keys & _SCHEMA_KEYS):
        return False
    if "properties" in keys and isinstance(value.get("properties"), Mapping):
        return True
    return bool(keys & {"$schema", "$defs"}) or (value.get("type") == "object" and "title" in keys)


_TAGGED = re.compile(r"<(tool_call|function_call)>\s*(.*?)\s*(?:</\1>|$)", re.DOTALL)
_PREFIXES = ("[TOOL_CALLS]", "<|python_tag|>", "functions.")


def text_tool_calls(text: str, names: Iterable[str]) -> list[tuple[str, Any]]:
    """Tool calls of the given tools written as plain text, as (name, arguments) pairs."""
    known = set(names)
    cleaned = strip_reasoning(text).strip()
    bodies = [m.group(2) for m in _TAGGED.finditer(cleaned)]
    for prefix in _PREFIXES:
        if prefix in cleaned:
            bodies.append(cleaned.split(prefix, 1)[1])
    bodies.append(cleaned)
    found: list[tuple[str, Any]] = []
    for body in bodies:
        try:
            value = parse_json_reply(body)
        except JSONReplyError:
            continue
        for item in value if isinstance(value, list) else [value]:
            call = _as_call(item, known)
            if call is not None:
                found.append(call)
        if found:
            return found
    return found


def _as_call(item: Any, known: set[str]) -> tuple[str, Any] | None:
    if not isinstance(item, Mapping):
        return None
    function = item.get("function")
    if isinstance(function, Mapping):
        item = function
    name = item.get("name") or item.get("tool") or item.get("tool_name")
    if not isinstance(name, str) or name not in known:
        return None
    arguments = item.get("arguments", item.get("parameters", item.get("args", {})))
    if isinstance(arguments, str):
        with contextlib.suppress(json.JSONDecodeError):
            arguments = json.loads(arguments)
    return name, arguments


def looks_like_text_tool_call_start(text: str) -> bool:
    """Whether streamed text so far could still turn out to be a tool call written as text."""
    stripped = strip_reasoning(text).lstrip()
    if not stripped:
        return True
    openers = ("<tool_call>", "<function_call>", "[TOOL_CALLS]", "<|python_tag|>", "```", "{", "[{", "functions.")
    return any(stripped.startswith(o) or o.startswith(stripped) for o in openers)
