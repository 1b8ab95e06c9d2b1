"""NPCs' memories as people read them: ``/npc NAME`` in the game and ``kith graph memories`` on a save.

Both list the same memories in the same order, newest and strongest first (``MemoryBook.ranked``),
episodic and semantic together, each with its strength as of the turn shown (decay is computed, never
stored: ``Memory.strength_at``).
"""

from __future__ import annotations

from game.features.memories.book import Memory, MemorySettings
from game.text import strip_control

SHOWN = 30
"""``/npc`` lists at most this many; ``kith graph memories`` lists all."""


def memory_line(memory: Memory, turn: int, settings: MemorySettings) -> str:
    """One memory on one line: when, what kind, how strong, and the sentence with its tags."""
    heard = " (heard)" if memory.heard else ""
    tags = f" [{', '.join(memory.tags)}]" if memory.tags else ""
    return (f"- turn {memory.turn} · {memory.kind}{heard} · strength {memory.strength_at(turn, settings):.2f} · "
            f"importance {memory.importance:.2f} · valence {memory.valence:+.2f}: {strip_control(memory.text)}{tags}")


def render_memories(name: str, memories: list[Memory], turn: int, settings: MemorySettings,
                    limit: int | None = SHOWN) -> str:
    """What ``name`` remembers of the player, newest and strongest first (``memories`` already ranked)."""
    if not memories:
        return f"{name} remembers nothing of you yet."
    shown = memories if limit is None else memories[:limit]
    semantic = sum(1 for m in memories if m.kind == "semantic")
    count = f"{len(memories)} {'memory' if len(memories) == 1 else 'memories'}" + (
        f", {semantic} consolidated" if semantic else "")
    lines = [f"**What {name} remembers of you** ({count}; newest and strongest first):", ""]
    lines += [memory_line(m, turn, settings) for m in shown]
    if len(shown) < len(memories):
        lines += ["", f"…and {len(memories) - len(shown)} more (`kith graph memories` lists them all)."]
    return "\n".join(lines)
