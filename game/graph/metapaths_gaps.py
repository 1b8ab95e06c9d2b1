"""Gaps: people the story has let drop, as threads a narrator may pick up (seed 003's gap detection).

A person is a gap when they have few open relations (``few`` or fewer: nobody knows where they stand)
or when none of their open relations is newer than ``quiet`` turns (nothing learned about them for a
long while). Only individuals count, never the player. Pure over nodes and their open relations, so
``kith graph gaps`` (the whole save) and the model narrator's prompt (the people the player knows of)
judge alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from game.graph.retrieve import newest_per_relation

if TYPE_CHECKING:
    from game.graph.models import Edge, Node
    from game.graph.ports import GraphReader

FEW_RELATIONS = 1
QUIET_TURNS = 10


@dataclass(frozen=True)
class Gap:
    """One person the story has let drop, and why."""

    node_id: str
    name: str
    relations: int
    last_learned: int
    """The turn of their newest open relation (their first appearance when they have none)."""
    quiet_turns: int
    reasons: tuple[str, ...]

    def to_json_dict(self) -> dict[str, object]:
        return {"id": self.node_id, "name": self.name, "relations": self.relations,
                "lastLearnedTurn": self.last_learned, "quietTurns": self.quiet_turns, "reasons": list(self.reasons)}


def find_gaps(people: Iterable[Node], open_edges: Mapping[str, Sequence[Edge]], turn: int, *,
              few: int = FEW_RELATIONS, quiet: int = QUIET_TURNS) -> list[Gap]:
    """The gaps among ``people`` at ``turn``: the quietest first, then the fewest relations, then by name.

    ``open_edges``: each person's open versions (one per relation; a person left out has none).
    """
    gaps: list[Gap] = []
    for node in people:
        if node.type != "individual" or node.attributes.get("player") is True:
            continue
        edges = open_edges.get(node.id, ())
        last = max((edge.valid_at for edge in edges), default=node.first_seen_turn)
        reasons: list[str] = []
        if len(edges) <= few:
            reasons.append("no relations" if not edges else "few relations")
        if turn - last >= quiet:
            reasons.append("quiet")
        if reasons:
            gaps.append(Gap(node.id, node.name, len(edges), last, max(0, turn - last), tuple(reasons)))
    gaps.sort(key=lambda g: (-g.quiet_turns, g.relations, g.name.casefold(), g.node_id))
    return gaps


async def thread_to_pick_up(reader: GraphReader, known: Iterable[str], on_stage: Iterable[str], turn: int,
                            *, quiet: int = QUIET_TURNS) -> Gap | None:
    """The one person the player knows of (``known``: node IDs), not on stage, who has gone quiet longest.

    Reads only those people's relations, so its cost follows what the player knows, not the graph. None
    when nobody known has been quiet for ``quiet`` turns: a thread is named only when one has gone cold.
    """
    present = set(on_stage)
    nodes = await reader.get_nodes([node_id for node_id in known if node_id not in present])
    edges = {node_id: newest_per_relation(await reader.open_edges_of(node_id)) for node_id in nodes}
    gaps = [g for g in find_gaps(nodes.values(), edges, turn, few=-1, quiet=quiet) if "quiet" in g.reasons]
    return gaps[0] if gaps else None
