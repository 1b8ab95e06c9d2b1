"""The KNOWLEDGE section: what each person present knows that bears on the turn, and how sure they are.

The knowledge-and-gossip feature's section of the narrator's context (``Feature.retrieval_provider``:
placed right after GRAPH, the section it is read beside). It comes from who-knows-what
(``game.graph.knowledge``) through the scoped retrieval (``retrieve_scoped``): one walk per knower over the
relations they know. A line is one fact one person
knows, ``about`` that person, in the words the prompt has always used ("... (sure)", "(heard)",
"(rumour)"); its ``facts`` say the same typed (relation, ends, confidence, how it was learned). When the
budget is short a person's least sure, oldest facts go first.
"""

from __future__ import annotations

from collections.abc import Sequence

from game.graph.models import Node
from game.graph.render import fact_line
from game.graph.retrieve import ScopedRetrieval, confidence_word
from game.mind.context_graph import KNOWLEDGE
from game.mind.sections import ContextQuery, Section, SectionLine


class KnowledgeProvider:
    """Each knower's facts (the player character first, then the people on stage)."""

    def __init__(self, scoped: ScopedRetrieval, knowers: Sequence[Node]) -> None:
        self.scoped = scoped
        self.knowers = list(knowers)

    @property
    def name(self) -> str:
        return KNOWLEDGE

    async def provide(self, query: ContextQuery) -> Section:
        nodes = self.scoped.retrieval.nodes
        lines: list[SectionLine] = []
        for knower in self.knowers:
            held = self.scoped.held.get(knower.id, [])
            count = max(len(held), 1)
            for index, (edge, row) in enumerate(held):
                # Sure facts outweigh hearsay; among equals the retrieval's order (newest first) decides.
                weight = round(row.confidence * (1.0 - 0.5 * index / count), 4)
                lines.append(SectionLine(knower.id, f"{fact_line(edge, nodes)} ({confidence_word(row)})", weight, {
                    "knower": knower.name, "source": edge.source, "target": edge.target, "relation": edge.relation,
                    "confidence": row.confidence, "how": row.how, "certainty": confidence_word(row),
                }))
        return Section(KNOWLEDGE, tuple(lines))
