"""The MEMORY section of the narrator's context: what each person in focus remembers of the player.

One line per memory, the most relevant first (``Memory.relevance``: importance, strength now, recency),
at most ``CONTEXT_RECALL`` per person; each line's weight is that relevance, so when the section's share
of the budget is short the orchestrator keeps the memories that matter most. The typed facts beside
each line (``kind``, ``turn``, ``importance``, ``valence``) are what the offline engine reads.

Composing a context writes nothing: the memories shown here are strengthened (recalled) by the turn's own
memory step (``rules``), which picks the same ones, and only once the turn is stored.
"""

from __future__ import annotations

from collections.abc import Callable

from game.features.memories.book import Memory, MemoryBook
from game.features.memories.rules import CONTEXT_RECALL
from game.mind.sections import ContextQuery, Section, SectionLine

SECTION = "MEMORY"


class MemoryProvider:
    """Hands the orchestrator the MEMORY section; ``book`` returns the game's memory book as it is now."""

    def __init__(self, book: Callable[[], MemoryBook], per_person: int = CONTEXT_RECALL) -> None:
        self._book = book
        self.per_person = per_person

    @property
    def name(self) -> str:
        return SECTION

    async def provide(self, query: ContextQuery) -> Section:
        book = self._book()
        lines: list[SectionLine] = []
        for npc in query.focus:
            node = query.graph.nodes.get(npc)
            if node is None or node.type != "individual" or npc in query.graph.player_ids:
                continue
            for memory in book.relevant(npc, query.turn, self.per_person):
                lines.append(memory_line(node.name, memory, query.turn, book))
        return Section(SECTION, tuple(lines))


def memory_line(name: str, memory: Memory, turn: int, book: MemoryBook) -> SectionLine:
    """One memory as the narrator is told it: who remembers, when, how they came to know, the sentence."""
    how = "heard" if memory.heard else ("an impression" if memory.kind == "semantic" else "saw")
    return SectionLine(
        about=memory.npc,
        text=f"{name} remembers ({how}, turn {memory.turn}): {memory.text}",
        weight=round(memory.relevance(turn, book.settings), 4),
        facts={"kind": memory.kind, "turn": memory.turn, "importance": memory.importance, "valence": memory.valence},
    )
