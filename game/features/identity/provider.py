"""The IDENTITY section: a question of who someone is, for the narrator to put to the player.

When a new name may be someone already known (``game.features.identity.questions``), the next told turn asks: the
offline story engine ends its narration with the question ("The sailor — is that Bram Kettle?"), and the
model narrator's prompt gets a note to ask it at a natural moment. One question a turn, the oldest not yet
asked; the player's answer at the following turn settles it (``game.features.identity.answers``).
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from game.features.identity.questions import PendingIdentity
from game.graph.identity_match import question
from game.mind.context import ComposedContext
from game.mind.sections import ContextQuery, Section, SectionLine

IDENTITY = "IDENTITY"
"""The section's name (and the prompt's tag)."""


def next_question(pending: Sequence[PendingIdentity], people: Container[str]) -> PendingIdentity | None:
    """The question this turn asks: the oldest open one nobody has asked yet whose two people are both
    still in the graph (``people``: node IDs; an author may have merged them meanwhile)."""
    return next((p for p in pending if p.is_open and p.asked_turn is None
                 and p.new_id in people and p.candidate_id in people), None)


class IdentityProvider:
    """One line: the question, with its ID and both names as facts for the offline engine."""

    name = IDENTITY

    def __init__(self, asking: PendingIdentity) -> None:
        self._asking = asking

    async def provide(self, query: ContextQuery) -> Section:
        asking = self._asking
        line = SectionLine("", question(asking.new_name, asking.candidate_name), weight=10.0,
                           facts={"pending": asking.id, "newName": asking.new_name,
                                  "candidate": asking.candidate_name})
        return Section(IDENTITY, (line,))


def asked_line(context: ComposedContext | None) -> SectionLine | None:
    """The question a composed context carries, if its IDENTITY section was kept (None otherwise)."""
    lines = context.lines(IDENTITY) if context is not None else ()
    return lines[0] if lines else None
