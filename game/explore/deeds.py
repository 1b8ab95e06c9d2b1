"""``cites-unknown``: someone spoke of a deed of the player's that is not in their knowledge.

The story marks each deed a person remarks on in ``news_told`` (``"Hearer Name|deed id"``, game/story/
deed_news.py); the deeds feature's state (``session.features["deeds"]``, a ``DeedBook``) says who knows
which deed. A remark with no knowing behind it (or one below the confidence a person acts on), or on a
deed that was never done, is the fault.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from game.explore.faults import Fault
from game.features.deeds.model import DeedBook
from game.graph.index import GraphIndex
from game.graph.knowing_terms import DEFAULT_FLOOR
from game.graph.names import normalize_name
from game.world.scene import SceneState

DEED_PREFIX = "deed-"
"""Deed ids start so (``deed-TURN-N``); the other entries of ``news_told`` are relation news."""


def cited(before: SceneState, after: SceneState, deeds: bool = True) -> list[tuple[str, str]]:
    """(hearer name, deed id) of every deed remarked on this turn; with ``deeds`` false, (hearer, edge id)
    of every relation news."""
    old = set(before.story.news_told) if before.story is not None else set()
    new = after.story.news_told if after.story is not None else []
    found: list[tuple[str, str]] = []
    for entry in new:
        name, bar, key = entry.rpartition("|")
        if bar and entry not in old and key.startswith(DEED_PREFIX) == deeds:
            found.append((name, key))
    return found


def cited_deeds(before: SceneState, after: SceneState) -> list[tuple[str, str]]:
    return cited(before, after)


def relation_faults(before: SceneState, after: SceneState, graph: GraphIndex) -> list[Fault]:
    """Relation news told by someone the graph says does not know the relation."""
    faults: list[Fault] = []
    for name, edge_id in cited(before, after, deeds=False):
        people = [n.id for n in graph.nodes_with_name(normalize_name(name)) if n.type == "individual"]
        if len(people) != 1 or graph.knows(people[0], edge_id):
            continue
        edge = graph.open_edges.get(edge_id)
        if edge is None:
            faults.append(Fault("cites-unknown", f"{name} spoke of a relation ({edge_id}) they do not know"))
            continue
        source, target = graph.nodes.get(edge.source), graph.nodes.get(edge.target)
        ends = f"{source.name if source else edge.source} -> {target.name if target else edge.target}"
        faults.append(Fault("cites-unknown", f"{name} spoke of a relation they do not know: {ends}: {edge.relation}",
                            (f"{{knows}} {name}: {ends}: {edge.relation}",)))
    return faults


def deed_faults(before: SceneState, after: SceneState, features: Mapping[str, Any], graph: GraphIndex) -> list[Fault]:
    """Every deed remarked on this turn by someone who does not know it."""
    book = features.get("deeds")
    if not isinstance(book, DeedBook):
        return []
    faults: list[Fault] = []
    for name, deed_id in cited_deeds(before, after):
        deed = book.deeds.get(deed_id)
        people = [n.id for n in graph.nodes_with_name(normalize_name(name)) if n.type == "individual"]
        knower = people[0] if len(people) == 1 else None
        if deed is None:
            faults.append(Fault("cites-unknown", f"{name} spoke of {deed_id}, a deed nobody did"))
            continue
        row = book.knowing(deed_id, knower) if knower is not None else None
        if row is None or row.confidence < DEFAULT_FLOOR:
            faults.append(Fault("cites-unknown", f"{name} spoke of a deed they do not know: {deed.sentence}",
                                _checks(graph, name, deed.act, deed.target)))
    return faults


def _checks(graph: GraphIndex, name: str, act: str, target: str) -> tuple[str, ...]:
    """The ``{deed}`` check that fails while ``name`` does not know the deed (none for a target not a person)."""
    node = graph.nodes.get(target)
    return (f"{{deed}} {name}: {act} {node.name}",) if node is not None and node.type == "individual" else ()
