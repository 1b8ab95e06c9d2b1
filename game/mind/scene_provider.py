"""The SCENE section: who is on stage with the player, one line each with who they are.

The model's prompt names the cast; this tells it who each of them is (the graph's summary), so a
character on stage is voiced from their own profile without a lookup, and the offline engine can read
who is present by person. When the budget is short the people the player named stay, the others go.
"""

from __future__ import annotations

from game.mind.sections import ContextQuery, Section, SectionLine

SCENE = "SCENE"


class SceneProvider:
    """One line per person in focus who is on stage: "NAME is here: SUMMARY"."""

    @property
    def name(self) -> str:
        return SCENE

    async def provide(self, query: ContextQuery) -> Section:
        place = query.scene.location or ""
        count = max(len(query.focus), 1)
        lines = []
        for index, person in enumerate(query.focus):
            node = query.graph.nodes.get(person)
            if node is None:
                continue
            lines.append(SectionLine(person, f"{node.name} is here: {node.summary}", round(1.0 - index / count, 4),
                                     {"name": node.name, "place": place, "present": 1}))
        return Section(SCENE, tuple(lines))
