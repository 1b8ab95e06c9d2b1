"""What a model's words must lose before they enter Kith: terminal escapes, and the API key.

Both are judged on the assembled text, never chunk by chunk. A server that echoes the key split across
two stream events (``"sk-te"`` then ``"st-SECRET..."``) defeats a per-chunk mask, and an escape sequence
split the same way would leave half a sequence on the screen. ``SafeStream`` therefore holds back the
tail that could still be the start of a secret or of an unfinished escape sequence, and releases it when
the next piece shows what it was (or when the reply ends). Everything downstream of the narrator (the
screen, the save, the transcript, the World IR prompt) only ever sees the released text.
"""

from __future__ import annotations

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
END_OF_TURN = re.compile(r"<\|im_end\|>|<end_of_turn>|<\|eot_id\|>|<\|endoftext\|>|<\|end_of_text\|>|</s>")
"""Markers that end the model's turn: whatever a model writes after one is a turn it made up (a "user"
line, another reply), never part of the story, so a stream stops there."""
_START_PENDING = re.compile(r"(?:<\|im_start\|>|<start_of_turn>|<\|start_header_id\|>)[a-z]*(?:<\|?[a-z_]*\|?>?)?$")
MAX_MARKER = 48
"""Longest stretch held back at the end of a streamed piece while it may still become a marker."""


def strip_markers(text: str) -> str:
    return TEMPLATE_MARKERS.sub("", text)
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
    """Whole text made safe: control sequences stripped first (they could split a key), then keys masked."""
    return strip_markers(mask_secrets(strip_control(text), secrets))


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
        self._raw = ""
        self._clean = ""
        self._ended = False

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

    def _release(self, *, final: bool) -> str:
        text = mask_secrets(self._clean, self._secrets)
        if final:
            self._clean = ""
            return strip_markers(self._until_end(text))
        # A secret not yet masked cannot start before the held tail: had it started earlier, it would be
        # whole by now, and masked above. A marker may still be arriving after the last "<" or "[", and a
        # start marker's role word runs to the end of its line.
        keep = min(self._hold, len(text)) if self._hold else 0
        window = max(0, len(text) - MAX_MARKER)
        opening = max(text.rfind("<", window), text.rfind("[", window))
        if opening >= 0 and not re.search(r"[>\]]", text[opening:]):
            keep = max(keep, len(text) - opening)
        pending = _START_PENDING.search(text, window)
        if pending:
            keep = max(keep, len(text) - pending.start())
        out, self._clean = text[: len(text) - keep], text[len(text) - keep:]
        return strip_markers(self._until_end(out))

    def _until_end(self, text: str) -> str:
        """``text`` up to an end-of-turn marker; after one, the stream releases nothing more (the held
        tail never splits a marker, so a whole one is always seen here)."""
        end = END_OF_TURN.search(text)
        if end is None:
            return text
        self._ended = True
        self._clean = self._raw = ""
        return text[: end.start()]
