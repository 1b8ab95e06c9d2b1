"""What ``graph merge`` does to the graph, decided without touching a database.

Folding node B into node A is a pure decision over plain models: A answers to B's names too, every
version that touched B now touches A, a relation between A and B would become a self-relation and is
closed, and relations the merge makes duplicates are healed (the newest version stays open). The store
only applies the plan in one transaction, so the rules can be tested on models alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from game.graph.identity import united_aliases, united_labels
from game.graph.models import Edge, Node
from game.graph.vocabulary import NormalizedRelation, Vocabulary


@dataclass(frozen=True)
class MergePlan:
    """The kept node as it becomes, every edge version to write, and which versions the merge closes."""

    united: Node
    edges: dict[str, Edge]
    repointed: int
    closed: list[str]


def plan_merge(kept: Node, merged: Node, touching: Sequence[Edge], kept_open: Sequence[Edge],
               vocabulary: Vocabulary, turn: int) -> MergePlan:
    """Fold ``merged`` into ``kept`` at ``turn``.

    ``touching`` is every version with ``merged`` at either end; ``kept_open`` the open versions of
    ``kept``. The result names only edges that change; the others stay as they are.
    """
    united = kept.model_copy(update={
        "aliases": united_aliases(kept, merged.names), "labels": united_labels(kept.labels, merged.labels),
        "attributes": {**merged.attributes, **kept.attributes},
        "first_seen_turn": min(kept.first_seen_turn, merged.first_seen_turn),
        "last_seen_turn": max(kept.last_seen_turn, merged.last_seen_turn),
    })
    repointed: list[Edge] = []
    closed: list[str] = []
    for edge in touching:
        source = kept.id if edge.source == merged.id else edge.source
        target = kept.id if edge.target == merged.id else edge.target
        update: dict[str, object] = {"source": source, "target": target}
        if source == target == kept.id and edge.is_open:
            update["invalid_at"] = turn
            closed.append(edge.id)
        repointed.append(edge.model_copy(update=update))
    healed = _heal_duplicates([*kept_open, *(e for e in repointed if e.is_open)], vocabulary)
    final = {e.id: e for e in repointed}
    for stale in healed:
        final[stale.id] = final.get(stale.id, stale).model_copy(update={"invalid_at": turn})
        closed.append(stale.id)
    return MergePlan(united=united, edges=final, repointed=len(repointed), closed=closed)


def _heal_duplicates(open_edges: Sequence[Edge], vocabulary: Vocabulary) -> list[Edge]:
    """Every open version but the newest of each relation (a symmetric relation ignores direction)."""
    by_key: dict[tuple[str, str, str], dict[str, Edge]] = {}
    for edge in open_edges:
        by_key.setdefault(_as_stored(edge, vocabulary).key(edge.source, edge.target), {})[edge.id] = edge
    stale: list[Edge] = []
    for versions in by_key.values():
        if len(versions) > 1:
            stale += sorted(versions.values(), key=lambda e: (e.valid_at, e.id))[:-1]
    return stale


def _as_stored(edge: Edge, vocabulary: Vocabulary) -> NormalizedRelation:
    """A stored version's relation, already canonical and oriented: it is matched as stored, not
    normalized again (a name stored outside the vocabulary stays that name even if a world later
    declares it a synonym)."""
    return NormalizedRelation(edge.relation, flipped=False, known=vocabulary.is_known(edge.relation),
                              symmetric=vocabulary.is_symmetric(edge.relation))
