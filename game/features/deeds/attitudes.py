"""Attitudes follow deeds: word that the player hurt or helped one of someone's own people moves their
attitude once, when the word reaches them, by how close they are to that person and how sure the word is.

The deed's target is moved by the story as the deed happens (``game.story.tiers``); its witnesses here, by
how close they are to the target (``witnessed``); those told of it on the turn the word arrives (``heard``).
A deed whose target opened a relation toward the player that very turn (a threat that made Tibby afraid)
weighs as that relation's news would (a fright counts more than a nod), and the relation's own news is
then *covered* (``covered``): whoever knows the deed is not moved a second time when word of how Tibby now
stands with the player reaches them, and whoever knew that relation first is not moved again by the deed.
A news line said later only speaks of the change: it moves nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.features.attitudes.rules import NEWS_HARM, NEWS_HELP, news_weight
from game.features.attitudes.step import closeness
from game.features.deeds.model import Deed, DeedBook, DeedKnowing
from game.features.deeds.rules import deed_phrase
from game.features.feature import Delta, HeardDeed
from game.features.memories.rules import ACTS as MEMORY_ACTS
from game.graph.index import GraphIndex
from game.graph.models import Edge
from game.graph.ports import GraphWrites


def made_relation(graph: GraphIndex, target: str, turn: int, writes: GraphWrites | None = None) -> Edge | None:
    """The relation ``target`` opened toward the player at ``turn`` (the deed's own consequence; the strongest
    when there are several), among the graph's open versions and, for this turn's deeds, the turn's ``writes``."""
    edges = [graph.open_edges.get(edge_id) for edge_id in graph.adjacent(target)]
    edges += list(writes.edges.values()) if writes is not None else []
    made = [edge for edge in edges if edge is not None and edge.source == target and edge.target in graph.player_ids
            and edge.valid_at == turn and edge.is_open]
    return max(made, key=lambda edge: (abs(edge.strength), edge.id)) if made else None


def _delta(deed: Deed, graph: GraphIndex, verb: str, weight: float) -> Delta:
    target = graph.nodes.get(deed.target)
    base = NEWS_HARM if deed.valence == "harmful" else NEWS_HELP
    reason = f"{verb} you {deed_phrase(deed.act, target.name if target else 'someone', deed.thing)}"[:200]
    return Delta(*base, reason=reason).scaled(weight)


def _moves(deed: Deed, graph: GraphIndex) -> bool:
    return deed.actor in graph.player_ids and deed.valence != "neutral"


def witnessed(deeds: Iterable[Deed], graph: GraphIndex, writes: GraphWrites) -> list[tuple[str, Delta]]:
    """The attitude changes of those who saw a deed of the player's this turn, by how close they are to
    its target (the target's own change is the story's, as the deed happens)."""
    moved: list[tuple[str, Delta]] = []
    for deed in deeds:
        if not _moves(deed, graph):
            continue
        made = made_relation(graph, deed.target, deed.turn, writes)
        gravity = news_weight(made.strength) if made is not None else 1.0
        for witness in deed.witnesses:
            nearness = closeness(graph, witness, deed.target)
            if witness not in graph.player_ids and nearness > 0:
                moved.append((witness, _delta(deed, graph, "saw that", nearness * gravity)))
    return moved


def heard(book: DeedBook, graph: GraphIndex, rows: Iterable[DeedKnowing]) -> list[tuple[str, Delta]]:
    """The attitude changes of those who heard of a deed of the player's this turn (``rows``, told or
    rumour), for the first time, unless word of the relation it made reached them first."""
    moved: list[tuple[str, Delta]] = []
    for row in rows:
        deed = book.deeds.get(row.deed_id)
        if deed is None or row.how == "seen" or book.knowing(row.deed_id, row.knower) is not None:
            continue
        if not _moves(deed, graph):
            continue
        nearness = closeness(graph, row.knower, deed.target)
        if nearness <= 0:
            continue
        made = made_relation(graph, deed.target, deed.turn)
        if made is not None and row.knower in graph.knowers_of(made.id):
            continue  # how Tibby stands with the player reached them first, and moved them then
        weight = news_weight(made.strength) if made is not None else row.confidence
        moved.append((row.knower, _delta(deed, graph, "heard", nearness * weight)))
    return moved


def remembered(book: DeedBook, graph: GraphIndex, rows: Iterable[DeedKnowing]) -> list[HeardDeed]:
    """What those who heard of a deed of the player's this turn (``rows``) remember of it, the first time:
    "heard that Wren threatened Tibby (from Maud)"."""
    found: list[HeardDeed] = []
    for row in rows:
        deed = book.deeds.get(row.deed_id)
        if deed is None or row.how == "seen" or not _moves(deed, graph) or deed.target == row.knower:
            continue
        if (before := book.knowing(row.deed_id, row.knower)) is not None and before.since_turn < row.since_turn:
            continue  # heard again: the first hearing is the memory
        how = MEMORY_ACTS.get(deed.act)
        valence = how.valence if how is not None else (0.4 if deed.valence == "kind" else -0.5)
        found.append(HeardDeed(row.knower, deed.sentence,
                               row.source or "", valence, deed.target, how.tags if how is not None else (deed.act,),
                               rumour=row.how == "rumour"))
    return found


def covered(book: DeedBook, graph: GraphIndex, writes: GraphWrites, new: Iterable[Deed],
            learned: Iterable[DeedKnowing]) -> list[tuple[str, str]]:
    """The relation news of this turn (``(edge ID, knower)`` of ``writes.knowings``) that a deed stands for:
    the relation a deed of the player's made, reaching someone who knows that deed (from before, or
    ``learned`` this turn, of the turn's ``new`` deeds or older ones). The deed moved them, or moves them
    now; the relation does not move them again. A relation a *neutral* deed made (a question) moves none
    of those who saw the deed: nothing was done that they could hold against the player."""
    fresh = {deed.deed_id: deed for deed in new}
    knows: set[tuple[str, str]] = {(row.deed_id, row.knower) for row in learned}
    found: list[tuple[str, str]] = []
    for edge_id, knower in sorted(writes.knowings):
        edge = writes.edges.get(edge_id) or graph.open_edges.get(edge_id)
        if edge is None or edge.target not in graph.player_ids or knower in graph.player_ids:
            continue
        for deed_id in {*book.by_knower.get(knower, ()), *(d for d, k in knows if k == knower)}:
            deed = fresh.get(deed_id) or book.deeds.get(deed_id)
            if deed is None or deed.target != edge.source or deed.turn != edge.valid_at:
                continue
            if _moves(deed, graph) or (deed.actor in graph.player_ids and deed.valence == "neutral"
                                       and knower in deed.witnesses):
                # A neutral deed seen made it (the captain marks you as trouble for a question): those who
                # watched saw it was only a question, and are not moved against the player for it.
                found.append((edge_id, knower))
                break
    return found
