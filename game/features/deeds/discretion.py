"""Discretion: what a person keeps to themselves. Nobody volunteers a harmful deed of their own or of their
close people (a strong, warm tie toward them): the guilty do not spread their own crimes, and a friend of
the player keeps the player's worst to themselves. Witnesses and the wronged tell freely.
"""

from __future__ import annotations

from game.features.deeds.model import Deed
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


def withholds(deed: Deed, teller: str, teller_close: set[str]) -> bool:
    """Whether ``teller`` keeps ``deed`` back: a harmful deed that shames themselves or their own people."""
    if deed.valence != "harmful":
        return False
    return deed.actor == teller or deed.actor in teller_close
