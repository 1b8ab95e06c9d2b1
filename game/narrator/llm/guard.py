"""What a model's words must lose before they enter Kith: terminal escapes, and the API key.

Both are judged on the assembled text, never chunk by chunk. A server that echoes the key split across
two stream events (``"sk-te"`` then ``"st-SECRET..."``) defeats a per-chunk mask, and an escape sequence
split the same way would leave half a sequence on the screen. ``SafeStream`` therefore holds back the
tail that could still be the start of a secret or of an unfinished escape sequence, and releases it when
the next piece shows what it was (or when the reply ends). Everything downstream of the narrator (the
screen, the save, the transcript, the World IR prompt) only ever sees the released text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from game.text import strip_control

MASK = "***"
TEMPLATE_MARKERS = re.compile(
    r"<\|start_header_id\|>[a-z]*<\|end_header_id\|>\n?"           # Llama 3 role header
    r"|<\|im_start\|>(?:system|user|assistant)?\n?|<\|im_end\|>"       # ChatML
    r"|<start_of_turn>(?:user|model)?\n?|<end_of_turn>"               # Gemma
    r"|<\|(?:eot_id|begin_of_text|end_of_text|endoftext|eom_id|start_header_id|end_header_id)\|>"
    r"|\[/?INST\]|</s>|<s>"                                            # Mistral, Llama 2
)
"""Chat-template markers a model (often a base model, or a server without the right template) writes as
text: they must never be shown, saved or sent back as history."""
PROMPT_TAGS = ("turn-context", "scene", "npc-context", "mind", "knowledge", "thread")
"""The blocks of Kith's own narration prompt (``narrate_prompt.render_block``)."""
ECHOED_TAG = re.compile("<(?:" + "|".join(PROMPT_TAGS) + ")>")
"""An opening tag of ours: a reply that writes one is echoing the prompt (a base model continues it), not
telling the turn, so it ends there like an end-of-turn marker. Only the exact tag: angle brackets in prose
("3 < 5", "<CLOSED>", "<scenery>") are the story. The World IR and extractor prompts' tags are not ends: a
model may wrap its JSON in ``<world-ir>`` as its input was, and that reply must still be read."""
END_OF_TURN = re.compile(r"<\|im_end\|>|<end_of_turn>|<\|eot_id\|>|<\|endoftext\|>|<\|end_of_text\|>|</s>|"
                         + ECHOED_TAG.pattern)
"""Markers that end the model's turn: whatever a model writes after one is a turn it made up (a "user"
line, another reply) or its prompt written back, never part of the story, so a stream stops there."""
_START_PENDING = re.compile(r"(?:<\|im_start\|>|<start_of_turn>|<\|start_header_id\|>)[a-z]*(?:<\|?[a-z_]*\|?>?)?$")
MAX_MARKER = 48
"""Longest stretch held back at the end of a streamed piece while it may still become a marker."""


def strip_markers(text: str) -> str:
    """``text`` without chat-template markers, also those that removing another one joins together
    (``<|im_st<s>art|>``)."""
    while True:
        stripped = TEMPLATE_MARKERS.sub("", text)
        if stripped == text:
            return text
        text = stripped


def until_end(text: str) -> tuple[str, bool]:
    """``text`` up to its first end-of-turn marker, every marker removed; and whether it had one.

    Whatever a model writes after the marker is a turn it made up (a "user" line, another reply). The
    marker is looked for again after each pass of removing others, as removing them may join one.
    """
    ended = False
    while True:
        end = END_OF_TURN.search(text)
        if end is not None:
            text, ended = text[: end.start()], True
        stripped = TEMPLATE_MARKERS.sub("", text)
        if stripped == text:
            return text, ended
        text = stripped


MAX_HELD_ESCAPE = 4096
"""An escape sequence still unfinished after this many characters is dropped as it stands."""

_INTRODUCERS = re.compile(r"[\x1b\x9b\x90\x98\x9d\x9e\x9f]")
_UNFINISHED = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*                                       # CSI still waiting for its final byte
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])(?:(?!\x07|\x1b\\|\x9c).)*\x1b?  # string, no terminator yet
    | \x1b[ -/]*                                                       # ESC still waiting for its final byte
    """,
    re.VERBOSE | re.DOTALL,
)


def mask_secrets(text: str, secrets: Iterable[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, MASK)
    return text


def clean_text(text: str, secrets: Iterable[str] = ()) -> str:
    """Whole text made safe: control sequences stripped first (they could split a key), then markers
    (they could split a key too, and a key's mask could split a marker), then keys masked."""
    return mask_secrets(strip_markers(strip_control(text)), secrets)


def clean_json(value: Any, secrets: Iterable[str] = ()) -> Any:
    """JSON data from a model with every string cleaned (``clean_text``), keys included: the World IR and
    the extractor's arguments become node names, summaries and facts that are printed later."""
    if isinstance(value, str):
        return clean_text(value, secrets)
    if isinstance(value, dict):
        return {clean_json(key, secrets): clean_json(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [clean_json(item, secrets) for item in value]
    return value


def through_end(text: str) -> str:
    """``text`` as far as its first end-of-turn marker, the marker kept (all of it when it has none): what
    is left of a reply once the stream is closed at the marker, for a guard downstream to cut there."""
    end = END_OF_TURN.search(text)
    return text if end is None else text[: end.end()]


def reply_until_end(text: str) -> str:
    """A whole reply up to its end-of-turn marker, markers removed. In a reply that is JSON (the World IR),
    a marker inside a string is part of a value, removed but no end: cutting there would break the JSON."""
    text = text.lstrip()
    while (start := TEMPLATE_MARKERS.match(text)) and not END_OF_TURN.match(text):
        text = text[start.end():].lstrip()  # a reply that opens with "<|im_start|>assistant"
    if not text.startswith(("{", "[", "```")):
        return until_end(text)[0]
    for end in END_OF_TURN.finditer(text):
        if not _in_json_string(text, end.start()):
            return strip_markers(text[: end.start()])
    return strip_markers(text)


def _in_json_string(text: str, position: int) -> bool:
    """Whether ``position`` of JSON text is inside a string (an odd number of unescaped quotes before it)."""
    inside = False
    escaped = False
    for char in text[:position]:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = inside
        elif char == '"':
            inside = not inside
    return inside


def unmarked_completion(completion: dict[str, Any]) -> dict[str, Any]:
    """A whole reply with each message's text up to its end-of-turn marker, and no marker in its text or
    its tool calls' arguments (a copy): what Kith reads of a whole reply, and what a recording keeps of it."""
    choices = completion.get("choices")
    if not isinstance(choices, list):
        return completion
    completion = json.loads(json.dumps(completion))
    for choice in completion["choices"]:
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            continue
        if isinstance(message.get("content"), str):
            message["content"] = reply_until_end(message["content"])
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                function["arguments"] = strip_markers(function["arguments"])
    return completion


def _unfinished_escape(text: str) -> int:
    """Where an escape sequence that may still be arriving starts, or ``len(text)`` when there is none.

    A sequence is waited for only while the text so far could still become one, and for at most
    ``MAX_HELD_ESCAPE`` characters: a stray ESC before ordinary prose holds nothing back.
    """
    for match in _INTRODUCERS.finditer(text):
        start = match.start()
        if len(text) - start <= MAX_HELD_ESCAPE and _UNFINISHED.fullmatch(text, start):
            return start
    return len(text)


class SafeStream:
    """Releases streamed text once it is known to hold no escape sequence and no whole or partial key."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._hold = max((len(s) for s in self._secrets), default=1) - 1
        """Characters held back at the end while a key may still be arriving."""
        self._raw = ""
        self._clean = ""
        self._ended = False
        self._marked = False
        self._echoed = False

    def feed(self, piece: str) -> str:
        if self._ended:
            return ""
        self._raw += piece
        cut = _unfinished_escape(self._raw)
        self._clean += strip_control(self._raw[:cut])
        self._raw = self._raw[cut:]
        return self._release(final=False)

    def flush(self) -> str:
        """The rest at the end of the reply; an escape sequence that never finished is dropped."""
        if self._ended:
            return ""
        self._clean += strip_control(self._raw)
        self._raw = ""
        return self._release(final=True)

    @property
    def ended(self) -> bool:
        """Whether the reply has reached an end-of-turn marker: nothing after it is ever released, so the
        caller stops reading there (and closes the response, so the server stops generating)."""
        return self._ended

    @property
    def marked(self) -> bool:
        """Whether the reply held a chat-template marker written as text (a sign of a base model)."""
        return self._marked

    @property
    def echoed(self) -> bool:
        """Whether the reply ended at an opening tag of Kith's own prompt (it was writing the prompt back)."""
        return self._echoed

    def _release(self, *, final: bool) -> str:
        # Markers first, on everything not yet released: the hold that waits for the rest of a key must
        # never keep a marker from being seen whole, nor a key's mask cut a marker in two.
        self._marked = self._marked or TEMPLATE_MARKERS.search(self._clean) is not None
        text, ended = until_end(self._clean)
        if ended:
            self._ended = True
            self._echoed = ECHOED_TAG.search(strip_markers(self._clean)) is not None
            self._clean = self._raw = ""
            return mask_secrets(text, self._secrets)
        if final:
            self._clean = ""
            return mask_secrets(text, self._secrets)
        # A marker may still be arriving at the end: that tail is held as it is. Before it, a key may still
        # be arriving in the last len(key) - 1 characters, and a whole key is never cut in two (each half
        # would pass the mask).
        pending = _pending_marker(self._clean)
        body, tail = strip_markers(self._clean[:pending]), self._clean[pending:]
        cut = _outside_secrets(body, max(0, len(body) - self._hold), self._secrets)
        self._clean = body[cut:] + tail
        return mask_secrets(body[:cut], self._secrets)


def _pending_marker(text: str) -> int:
    """Where a marker that may still be arriving starts at the end of ``text`` (its length when none may):
    after the last "<" or "[" not yet closed, or a start marker whose role word may go on to its line's end."""
    pending = len(text)
    window = max(0, len(text) - MAX_MARKER)
    opening = max(text.rfind("<", window), text.rfind("[", window))
    if opening >= 0 and not re.search(r"[>\]]", text[opening:]):
        pending = opening
    started = _START_PENDING.search(text, window)
    if started:
        pending = min(pending, started.start())
    return pending


def _outside_secrets(text: str, cut: int, secrets: list[str]) -> int:
    """``cut`` moved back to the start of a whole secret it would split."""
    for secret in secrets:
        start = text.find(secret, max(0, cut - len(secret) + 1))
        while 0 <= start < cut:
            if start + len(secret) > cut:
                return _outside_secrets(text, start, secrets)
            start = text.find(secret, start + 1)
    return cut
