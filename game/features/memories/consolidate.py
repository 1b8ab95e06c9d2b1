"""Consolidation: old related episodic memories become one semantic memory ("Wren has helped me often").

When at least ``consolidate_count`` of an NPC's episodic memories are ``consolidate_age`` turns old or
older and share a tag, they are replaced by one semantic memory that keeps the strongest importance and
strength and the average valence. Its sentence is, offline, a deterministic summary built from the
shared tag and the memories' own sentences; with a model, a ``Summarizer`` writes it, and its answer is
checked like every other model output (bounded, one plain paragraph, no control characters): junk, a
failure or a timeout falls back to the deterministic summary.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from game.features.memories.book import Memory, MemoryBook
from game.store.rows import RowWrite
from game.text import has_control

MAX_SUMMARY_CHARS = 400
MIN_SUMMARY_CHARS = 8
SUMMARY_TIMEOUT = 20.0
"""Seconds a model may take to summarize before the deterministic summary is used."""
TAG_PHRASES: dict[str, str] = {
    "help": "helped me", "kind": "been kind", "threaten": "made threats", "cruel": "been cruel",
    "give": "given gifts", "ask": "asked questions", "tell": "brought news", "accuse": "made accusations",
    "lie": "lied", "warn": "given warnings", "bribe": "offered bribes", "show": "shown me things",
    "follow": "followed people", "heard": "been talked about",
}
QUIET_TAGS = frozenset({"met", "confession", "secret", "told-secret"})
"""Never consolidated: what stays true word for word (a meeting, what they confessed or told)."""


class Summarizer(Protocol):
    """Writes a semantic memory's sentence from the episodes it replaces (a model, usually)."""

    async def summarize(self, npc_name: str, memories: Sequence[Memory], fallback: str, turn: int) -> str: ...


@runtime_checkable
class SummarizingNarrator(Protocol):
    """A narrator that can have its model write consolidated memories (the model narrator)."""

    @property
    def memory_summarizer(self) -> Summarizer: ...


def deterministic_summary(player: str, tag: str, memories: Sequence[Memory]) -> str:
    """The offline summary: what kind of thing, how often, over which turns, and the latest sentence."""
    ordered = sorted(memories, key=lambda m: (m.turn, m.seq))
    phrase = TAG_PHRASES.get(tag, f"had dealings marked {tag!r}")
    first, last = ordered[0].turn, ordered[-1].turn
    span = f"at turn {first}" if first == last else f"between turns {first} and {last}"
    text = f"{player} has {phrase} {len(ordered)} times {span}; the latest: {ordered[-1].text}"
    return text if len(text) <= MAX_SUMMARY_CHARS else text[:MAX_SUMMARY_CHARS - 1].rstrip() + "…"


def valid_summary(text: object) -> str | None:
    """A model's summary if it is usable: one plain paragraph of bounded length, no control characters."""
    if not isinstance(text, str):
        return None
    cleaned = " ".join(text.split())
    if has_control(text.replace("\n", " ").replace("\t", " ")):
        return None
    if not MIN_SUMMARY_CHARS <= len(cleaned) <= MAX_SUMMARY_CHARS:
        return None
    if not any(ch.isalpha() for ch in cleaned) or cleaned.startswith(("{", "[", "<")):
        return None
    return cleaned


async def summary(summarizer: Summarizer | None, npc_name: str, memories: Sequence[Memory], fallback: str,
                  turn: int = 0) -> str:
    """The summarizer's sentence when it gives a usable one in time, else ``fallback``."""
    if summarizer is None:
        return fallback
    try:
        text = await asyncio.wait_for(summarizer.summarize(npc_name, memories, fallback, turn), SUMMARY_TIMEOUT)
    except Exception:
        # Whatever a model client raises (timeouts, transport, refusals): the fallback is always safe.
        return fallback
    return valid_summary(text) or fallback


def candidates(book: MemoryBook, npc: str, turn: int) -> tuple[str, list[Memory]] | None:
    """The tag and the old episodic memories sharing it to consolidate now, or None."""
    settings = book.settings
    old = [m for m in book.of(npc) if m.kind == "episodic" and turn - m.turn >= settings.consolidate_age
           and not QUIET_TAGS.intersection(m.tags)]
    counts = Counter(tag for m in old for tag in dict.fromkeys(m.tags))
    ready = sorted((t for t, n in counts.items() if n >= settings.consolidate_count and t not in QUIET_TAGS),
                   key=lambda t: (-counts[t], t))
    if not ready:
        return None
    tag = ready[0]
    return tag, [m for m in old if tag in m.tags]


async def consolidate(book: MemoryBook, npc: str, turn: int, player: str,
                      summarizer: Summarizer | None = None) -> list[RowWrite]:
    """The rows that consolidate ``npc``'s old related memories (none when nothing is ready)."""
    found = candidates(book, npc, turn)
    if found is None:
        return []
    tag, group = found
    settings = book.settings
    fallback = deterministic_summary(player, tag, group)
    text = await summary(summarizer, npc, group, fallback, turn)
    tags = list(dict.fromkeys([tag, *(t for m in group for t in m.tags)]))[:6]
    abouts = {m.about for m in group}
    semantic = Memory(
        npc=npc, seq=book.next_seq(npc), kind="semantic", text=text, turn=max(m.turn for m in group),
        importance=max(m.importance for m in group), valence=sum(m.valence for m in group) / len(group),
        tags=tuple(tags), strength=max(m.strength_at(turn, settings) for m in group), last_used=turn,
        uses=sum(m.uses for m in group), heard=all(m.heard for m in group),
        about=abouts.pop() if len(abouts) == 1 else "",
    )
    return [*(m.deleted() for m in group), semantic.row()]
