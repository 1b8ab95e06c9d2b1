"""The RELATIONSHIP section of the narrator's context: how each person in focus regards the player.

One line per person in the query's focus (the player and groups are skipped), in focus order, e.g.
"Current relationship tier: FRIENDLY. Trust 70/100, respect 60/100, friendliness 80/100. Interactions: 12."
with the typed ``facts`` the offline engine reads (``tier``, ``trust``, ``respect``, ``friendliness``).
The line does not name the person: ``about`` does, and the context groups lines by person.
A line weighs more the further the person stands from NEUTRAL, so a short budget keeps the strong feelings.
"""

from __future__ import annotations

from game.features.attitudes.model import AttitudeBook
from game.mind.sections import ContextQuery, Section, SectionLine

NAME = "RELATIONSHIP"
COLD_TONE = " Cold toward the player: no warm greeting or smile from them; one reply has one tone."
"""Said after a cold tier (issue 23: a model smiled "What can the Guild do for you?" at someone who had
just turned on the player), so the narration stays in the tier it is told."""


class AttitudeProvider:
    """Reads attitudes (never writes them): ``book`` is the game's ``PlayState.attitudes``."""

    def __init__(self, book: AttitudeBook) -> None:
        self.book = book

    @property
    def name(self) -> str:
        return NAME

    async def provide(self, query: ContextQuery) -> Section:
        graph = query.graph
        lines: list[SectionLine] = []
        for node_id in dict.fromkeys(query.focus):
            node = graph.nodes.get(node_id)
            if node is None or node.type != "individual" or node_id in graph.player_ids:
                continue
            attitude = self.book.of(graph, node)
            text = (f"Current relationship tier: {attitude.tier}. Trust {attitude.trust:g}/100, "
                    f"respect {attitude.respect:g}/100, friendliness {attitude.friendliness:g}/100. "
                    f"Interactions: {attitude.interactions}."
                    f"{COLD_TONE if attitude.tier in ('UNFRIENDLY', 'HOSTILE') else ''}")
            weight = round(0.5 + min(abs(attitude.disposition), 100.0) / 200.0, 3)
            lines.append(SectionLine(about=node_id, text=text, weight=weight, facts={
                "tier": attitude.tier, "trust": attitude.trust, "respect": attitude.respect,
                "friendliness": attitude.friendliness,
            }))
        return Section(NAME, tuple(lines))
