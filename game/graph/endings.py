"""The one rule for relations a text says have ended, whichever path read the text.

Ending a relation is the one write that destroys what a story built, and a narration can be made to say
anything: 23 sentences "Orla Vance no longer leads Saltwrights' Guild. ..." would end every relation of
the world. So every reading of a text (a model's World IR and extractor, the fast path when the World IR
failed, ``kith import-story``, ``kith graph extract --apply``, enrichment reading a turn again) runs its
upsert execution with a ``ReadEndings``, and ``UpsertExecution`` asks it before it ends a relation:

- at most ``MAX_CLOSES_PER_TURN`` relations end in one turn (one execution); and
- a relation the world authored (open since turn 0) is not ended on a sentence of narration alone: it
  ends only when the player acted on one of its people, that is when the player's own words that turn
  name one of its ends other than the player ("accuse Tobin of wanting her post" may end Tobin SERVES
  Edda; "listen to the crier" ends nothing of the world's). The world's story beats, the player's
  commands (``/relationship``, ``/knowledge``) and ``kith graph upsert`` are not readings and are not
  held.

A relation a text contradicts ("X distrusts Y" of an open X TRUSTS Y) ends by being replaced with its
opposite, so the replacement is held to the same rule and counted as one ending: when the old relation is
kept, the contradicting one is not written. A relation a text restates (the same relation, a new strength
or fact) is changed as ever: a new version replaces the old, and the relation itself stands.

A held ending is skipped, not rejected: the rest of the call stands, and the player is told
(``notice``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from game.graph.models import Edge, Node
from game.text import straighten_quotes

MAX_CLOSES_PER_TURN = 3
"""Relations one turn may end; a reading that claims more keeps the excess as it was (and says so)."""
AUTHORED_TURN = 0
"""Versions opened at this turn are the world's own (its content), not something play established."""


def authored(edge: Edge) -> bool:
    """Whether ``edge`` is the world's own version of a relation (open since turn 0)."""
    return edge.valid_at == AUTHORED_TURN


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", straighten_quotes(text).casefold())) + " "


@dataclass
class ReadEndings:
    """The endings one turn's reading of a text may make (see the module's rule), and those it held."""

    acted: str = ""
    """What the player typed this turn: their act, which alone lets a world's relation end."""
    limit: int = MAX_CLOSES_PER_TURN
    ended: int = 0
    held: list[str] = field(default_factory=list)
    """One line per ending held, for the player."""
    over: int = 0
    """Endings held because the turn had already ended ``limit`` relations."""

    def held_back(self, edge: Edge, source: Node, target: Node) -> str | None:
        """Why this reading may not end ``edge`` (between ``source`` and ``target``), noted for the
        player; None when it may, and the ending is counted against the turn's limit."""
        if authored(edge) and not (self.acted_on(source) or self.acted_on(target)):
            self.held.append(f"{source.name} -> {target.name} ({edge.relation})")
            return "kept: the world's own relation does not end on a sentence of narration alone"
        if self.ended >= self.limit:
            self.over += 1
            return f"kept: a turn ends at most {self.limit} relations"
        self.ended += 1
        return None

    def acted_on(self, node: Node) -> bool:
        """Whether the player's words this turn name ``node``, someone other than the player (who is party
        to every act, so naming them proves nothing)."""
        if node.attributes.get("player") is True:
            return False
        said = _words(self.acted)
        return any(len(name.strip()) > 1 and _words(name) in said for name in [node.name, *node.aliases])

    def notice(self) -> str | None:
        """What the player is told of the endings held this turn, or None when none was."""
        parts = []
        if self.held:
            shown = "; ".join(self.held[:5]) + (f"; and {len(self.held) - 5} more" if len(self.held) > 5 else "")
            parts.append(f"The graph kept {len(self.held)} of the world's own relation(s) this turn said had "
                         f"ended or turned to their opposite ({shown}): the world's relations end by the story "
                         "or by your own act, not by a sentence of narration alone.")
        if self.over:
            parts.append(f"This turn claimed to end more than {self.limit} relations at once; the graph kept "
                         f"{self.over} of them as they were.")
        return " ".join(parts) or None
