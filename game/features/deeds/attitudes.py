"""Attitudes follow deeds heard of: word that the player hurt or helped one of someone's own people moves
their attitude once, by how close they are to that person and how sure the word is.

The deed's target is moved by the story as the deed happens (``game.story.tiers``); its witnesses here, by
how close they are to the target (``witnessed``). A deed whose target opened a relation toward the player
that very turn (a threat that made Tibby afraid) moves witnesses and hearers through that relation's news
instead (``game.mind.attitude_turn``), so no one is moved twice by one deed. Those below are the deeds no
relation followed: threatening Ambry reaches her brother.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.features.deeds.model import Deed, DeedBook, DeedKnowing
from game.features.deeds.rules import act_phrase
from game.graph.index import GraphIndex
from game.graph.ports import GraphWrites
from game.mind.attitude_rules import NEWS_HARM, NEWS_HELP, Delta
from game.mind.attitude_turn import closeness


def _relation_followed(graph: GraphIndex, target: str, turn: int, writes: GraphWrites | None = None) -> bool:
    """Whether ``target`` opened a relation toward the player at ``turn`` (the deed's own consequence),
    among the graph's open versions and, for this turn's deeds, the turn's own ``writes``."""
    edges = [graph.open_edges.get(edge_id) for edge_id in graph.adjacent(target)]
    edges += list(writes.edges.values()) if writes is not None else []
    return any(edge is not None and edge.source == target and edge.target in graph.player_ids
               and edge.valid_at == turn and edge.is_open for edge in edges)


def witnessed(deeds: Iterable[Deed], graph: GraphIndex, writes: GraphWrites) -> list[tuple[str, Delta]]:
    """The attitude changes of those who saw a deed of the player's this turn, by how close they are to
    its target (the target's own change is the story's, as the deed happens)."""
    moved: list[tuple[str, Delta]] = []
    for deed in deeds:
        if deed.actor not in graph.player_ids or deed.valence == "neutral":
            continue
        if _relation_followed(graph, deed.target, deed.turn, writes):
            continue  # the relation it made moves whoever saw it made (game.mind.attitude_turn)
        target = graph.nodes.get(deed.target)
        base = NEWS_HARM if deed.valence == "harmful" else NEWS_HELP
        reason = f"saw that you {act_phrase(deed.act, target.name if target else 'someone')}"[:200]
        for witness in deed.witnesses:
            nearness = closeness(graph, witness, deed.target)
            if witness not in graph.player_ids and nearness > 0:
                moved.append((witness, Delta(*base, reason=reason).scaled(nearness)))
    return moved


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
        nearness = closeness(graph, row.knower, deed.target)
        if nearness <= 0 or _relation_followed(graph, deed.target, deed.turn):
            continue
        target = graph.nodes.get(deed.target)
        base = NEWS_HARM if deed.valence == "harmful" else NEWS_HELP
        reason = f"heard you {act_phrase(deed.act, target.name if target else 'someone')}"
        moved.append((row.knower, Delta(*base, reason=reason[:200]).scaled(nearness * row.confidence)))
    return moved
