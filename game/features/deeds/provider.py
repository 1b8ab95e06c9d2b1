"""The DEEDS section of the narrator's context: what each person in focus knows people did, and how.

So a model narrator speaks from the same deeds the offline story reads: "Knows that Wren Tallis threatened
Tibby Tarrant (heard it from Tibby Tarrant)". Only deeds that are news (not asking, talking, looking), the
newest few per person, each weighed by how it is known (seen first). Empty when nobody here knows any.
"""

from __future__ import annotations

from game.features.deeds.model import DeedBook
from game.mind.sections import ContextQuery, Section, SectionLine

NAME = "DEEDS"
PER_PERSON = 3
"""Deeds told per person in focus: the newest learned."""


class DeedsProvider:
    """Reads the deeds book (never writes it)."""

    def __init__(self, book: DeedBook) -> None:
        self.book = book

    @property
    def name(self) -> str:
        return NAME

    async def provide(self, query: ContextQuery) -> Section:
        graph = query.graph
        lines: list[SectionLine] = []
        for node_id in dict.fromkeys(query.focus):
            if node_id in graph.player_ids:
                continue
            known = [(d, r) for d, r in self.book.known_by(node_id) if d.valence != "neutral"][-PER_PERSON:]
            for deed, row in reversed(known):
                teller = graph.nodes.get(row.source or "")
                how = "saw it" if row.how == "seen" else f"heard it from {teller.name if teller else 'someone'}"
                lines.append(SectionLine(about=node_id, text=f"Knows that {deed.sentence.rstrip('.')} ({how}).",
                                         weight=0.7 if row.how == "seen" else 0.5,
                                         facts={"deedId": deed.deed_id, "act": deed.act, "how": row.how}))
        return Section(NAME, tuple(lines))
