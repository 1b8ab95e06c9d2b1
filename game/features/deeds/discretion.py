"""Discretion: what a person keeps to themselves. Nobody volunteers a harmful deed of their own or of their
close people (a strong, warm tie toward them): the guilty do not spread their own crimes, and a friend of
the player keeps the player's worst to themselves. Witnesses and the wronged tell freely. What its doer has
owned up to is no longer kept back: a harm they have since apologised for (the apology travels with it,
``game.features.deeds.gossip``) or any of theirs before a confession (a ``confess`` deed, a model's or a
world's).
"""

from __future__ import annotations

from game.features.deeds.model import Deed, DeedBook
from game.features.deeds.rules import CONFESS
from game.graph.index import GraphIndex


def close_people(graph: GraphIndex, person: str, at_least: float) -> set[str]:
    """Everyone ``person`` holds by an open tie at least ``at_least`` strong and warm (0: any tie at all)."""
    found: set[str] = set()
    for edge_id in graph.adjacent(person):
        edge = graph.open_edges.get(edge_id)
        if edge is not None and (at_least <= 0 or edge.strength >= at_least):
            found.add(edge.other_end(person))
    found.discard(person)
    return found


def withholds(deed: Deed, teller: str, teller_close: set[str], book: DeedBook | None = None) -> bool:
    """Whether ``teller`` keeps ``deed`` back: a harmful deed that shames themselves or their own people,
    unless its doer has owned up to it (``owned_up``)."""
    if deed.valence != "harmful" or (deed.actor != teller and deed.actor not in teller_close):
        return False
    return book is None or not owned_up(book, deed)


def owned_up(book: DeedBook, deed: Deed) -> bool:
    """Whether ``deed``'s doer has since apologised for it or confessed (at its turn or after)."""
    if book.amends(deed):
        return True
    return any(other.act == CONFESS and other.actor == deed.actor and other.turn >= deed.turn
               for other in (book.deeds.get(d) for d in book.confessions.get(deed.actor, ())) if other is not None)


def bought(graph: GraphIndex, deed: Deed, teller: str) -> bool:
    """Whether ``teller`` took the bribe ``deed`` offered them: it won them over (a warm relation toward the
    player opened that very turn). A bribe taken shames its taker, who does not volunteer it (Maud, paid,
    told Kestrel "you tried to bribe her"); one refused is the refuser's to tell (Fenn)."""
    if deed.act != "bribe" or deed.target != teller:
        return False
    for edge_id in graph.adjacent(teller):
        edge = graph.open_edges.get(edge_id)
        if edge is not None and edge.source == teller and edge.target in graph.player_ids \
                and edge.strength > 0 and edge.valid_at == deed.turn:
            return True
    return False

