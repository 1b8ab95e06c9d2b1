"""The GRAPH section: the relationship graph's relations among the people of a turn, as retrieval found them;
and how narrators read it and the KNOWLEDGE section (the gossip feature's, ``game.features.gossip.provider``)
back as the text blocks they have always had (``npc_context``, ``knowledge_by_name``).

It is the ``npcContext`` block narrators have always had (``game.graph.retrieve``: scoped to what the
people present know, ranked newest first), now weighed against the other sections: when the budget is
short the oldest, weakest relations go first. Its name is GRAPH so it never clashes with the attitude
section, RELATIONSHIP (one person's feelings toward the player); the prompt keeps it in its own block.
"""

from __future__ import annotations

from collections.abc import Sequence

from game.graph.render import NPC_CONTEXT_HEADING, fact_line
from game.graph.retrieve import Retrieval
from game.mind.context import ComposedContext
from game.mind.sections import ContextQuery, Section, SectionLine

GRAPH = "GRAPH"
KNOWLEDGE = "KNOWLEDGE"


class GraphProvider:
    """The retrieval's relations as lines about the scene, each naming its two people in ``facts``."""

    def __init__(self, retrieval: Retrieval) -> None:
        self.retrieval = retrieval

    @property
    def name(self) -> str:
        return GRAPH

    async def provide(self, query: ContextQuery) -> Section:
        edges = self.retrieval.edges
        count = max(len(edges), 1)
        lines = tuple(
            # Retrieval ranks newest first, then strongest: the weight keeps that order when lines must go.
            SectionLine("", fact_line(edge, self.retrieval.nodes), round(1.0 - index / count, 4), {
                "source": edge.source, "target": edge.target, "relation": edge.relation,
                "strength": edge.strength, "since": edge.valid_at,
            }) for index, edge in enumerate(edges))
        return Section(GRAPH, lines)


def npc_context(context: ComposedContext) -> str:
    """The ``npcContext`` block a narrator is handed: the GRAPH lines that fit the budget, or ``""``."""
    lines = [line.text for line in context.lines(GRAPH)]
    return "\n".join([NPC_CONTEXT_HEADING, "", *lines]) if lines else ""


def knowledge_by_name(context: ComposedContext, names: Sequence[str]) -> dict[str, list[str]]:
    """What each knower is told they know, by name in ``names`` order (a knower none of whose facts fit
    keeps an empty list, so the prompt still says they know nothing that bears on the turn)."""
    told: dict[str, list[str]] = {name: [] for name in names}
    for line in context.lines(KNOWLEDGE):
        told.setdefault(str(line.facts.get("knower", line.about)), []).append(line.text)
    return told
