"""Attitudes follow deeds heard of: word that the player hurt or helped one of someone's own people moves
their attitude once, by how close they are to that person and how sure the word is.

The deed's target and the witnesses are moved by the story as the deed happens (``game.story.tiers``); a
deed whose target opened a relation toward the player that very turn (a threat that made Tibby afraid)
moves hearers through that relation's news instead (``game.mind.attitude_turn``), so no one is moved
twice by one deed. Those below are the deeds no relation followed: threatening Ambry reaches her brother.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.features.deeds.model import DeedBook, DeedKnowing
from game.features.deeds.rules import act_phrase
from game.graph.index import GraphIndex
from game.mind.attitude_rules import NEWS_HARM, NEWS_HELP, Delta


def tie(graph: GraphIndex, a: str, b: str) -> float:
    """How close ``a`` and ``b`` are: the strongest warm open relation between them (0: none)."""
    best = 0.0
    for edge_id in graph.adjacent(a):
        edge = graph.open_edges.get(edge_id)
        if edge is not None and edge.other_end(a) == b and edge.strength > best:
            best = edge.strength
    return min(best, 1.0)


def _relation_followed(graph: GraphIndex, target: str, turn: int) -> bool:
    """Whether ``target`` opened a relation toward the player at ``turn`` (the deed's own consequence)."""
    for edge_id in graph.adjacent(target):
        edge = graph.open_edges.get(edge_id)
        if edge is not None and edge.source == target and edge.target in graph.player_ids and edge.valid_at == turn:
            return True
    return False


def heard(book: DeedBook, graph: GraphIndex, rows: Iterable[DeedKnowing]) -> list[tuple[str, Delta]]:
    """The attitude changes of those who heard of a deed of the player's this turn (``rows``, told or
    rumour), for the first time."""
    moved: list[tuple[str, Delta]] = []
    for row in rows:
        deed = book.deeds.get(row.deed_id)
        if deed is None or row.how == "seen" or book.knowing(row.deed_id, row.knower) is not None:
            continue
        if deed.actor not in graph.player_ids or deed.valence == "neutral":
            continue
        closeness = tie(graph, row.knower, deed.target)
        if closeness <= 0 or _relation_followed(graph, deed.target, deed.turn):
            continue
        target = graph.nodes.get(deed.target)
        base = NEWS_HARM if deed.valence == "harmful" else NEWS_HELP
        reason = f"heard you {act_phrase(deed.act, target.name if target else 'someone')}"
        moved.append((row.knower, Delta(*base, reason=reason[:200]).scaled(closeness * row.confidence)))
    return moved
