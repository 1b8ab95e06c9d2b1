"""The graph as it stood before the last turn, read lazily while the save still holds that turn.

Retry tells the last turn again from the game before it, and the telling happens outside any transaction
(a model may take seconds), so a lazy graph's reads then see the committed turn. Reading the whole graph
inside the rolled-back transaction instead costs a long game all its versions (a retry at 10k versions
took 80-200 ms). ``BeforeTurnSource`` reads lazily through the save's own source and puts back, over what it
reads, the before-images the journal keeps of every version and knower row the turn changed: exactly
what undoing the turn would do, for the parts the telling reaches. Everything else the turn left as it
was, so the committed rows are the rows before it.

The overlay holds until ``settle`` (the new telling committed in the turn's place: the save then holds
the graph the index was built on, plus the writes the pipeline applies to it) and reads through after.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import aiosqlite

from game.graph.knowledge import Knowing
from game.graph.models import Edge
from game.store.graph_repo import SqlGraphSource

KnowingKey = tuple[str, str]


@dataclass
class TurnBefore:
    """What a turn changed of the graph's versions and knower rows, as they were before it (None: the
    turn made it). Nodes and the merge log are read whole anyway, so they are not kept here."""

    edges: dict[str, Edge | None] = field(default_factory=dict)
    knowings: dict[KnowingKey, Knowing | None] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.edges or self.knowings)


async def read_turn_before(conn: aiosqlite.Connection, turn: int) -> TurnBefore:
    """The before-images ``turn``'s journal holds of versions and knower rows (read it before undoing the
    turn: undo deletes the entries). A row changed twice in the turn keeps its oldest image, the one undo
    ends on."""
    found = TurnBefore()
    rows = await conn.execute_fetchall(
        "SELECT kind, key, before FROM journal WHERE turn = ? AND kind IN ('edge', 'knowing') ORDER BY id DESC",
        (turn,))
    for kind, key, before in rows:  # newest first, so the oldest image is written last and stays
        if kind == "edge":
            found.edges[str(key)] = None if before is None else Edge.model_validate(json.loads(before))
        else:
            edge_id, _, knower = str(key).partition("|")
            found.knowings[(edge_id, knower)] = None if before is None else Knowing.model_validate(json.loads(before))
    return found


class BeforeTurnSource:
    """A ``GraphSource`` answering as the save did before a turn (see the module's notes)."""

    def __init__(self, committed: SqlGraphSource, before: TurnBefore) -> None:
        self._committed = committed
        self._before = before

    def settle(self) -> None:
        """The save holds what the index was built on now: read it as it is from here on."""
        self._before = TurnBefore()

    def _edges(self, committed: Sequence[Edge], extra: list[Edge]) -> list[Edge]:
        """``committed`` versions with the turn's changes taken back, and ``extra`` open versions after."""
        if not self._before.edges:
            return list(committed)
        kept = [e for e in committed if e.id not in self._before.edges]
        return kept + extra

    def open_edges_touching(self, node_ids: Sequence[str]) -> list[Edge]:
        wanted = set(node_ids)
        back = [e for e in self._before.edges.values()
                if e is not None and e.invalid_at is None and (e.source in wanted or e.target in wanted)]
        return self._edges(self._committed.open_edges_touching(node_ids), back)

    def all_open_edges(self) -> list[Edge]:
        if not self._before.edges:
            return self._committed.all_open_edges()
        # In the order written: a version the turn changed keeps its place (its ``seq``) in the save.
        ordered = self._committed.open_edges_and(list(self._before.edges))
        edges: list[Edge] = []
        for edge in ordered:
            if edge.id in self._before.edges:
                before = self._before.edges[edge.id]
                if before is not None and before.invalid_at is None:
                    edges.append(before)
            elif edge.invalid_at is None:
                edges.append(edge)
        return edges

    def edge(self, edge_id: str) -> Edge | None:
        if edge_id in self._before.edges:
            return self._before.edges[edge_id]
        return self._committed.edge(edge_id)

    def _put_back(self, rows: dict[str, dict[str, Knowing]], edge_ids: set[str] | None) -> None:
        """The turn's knower rows taken back in ``rows`` (by version, by knower), for ``edge_ids`` or all."""
        for (edge_id, knower), before in self._before.knowings.items():
            if edge_ids is not None and edge_id not in edge_ids:
                continue
            held = rows.get(edge_id)
            if before is None:
                if held is not None:
                    held.pop(knower, None)
                    if not held:
                        del rows[edge_id]
            else:
                rows.setdefault(edge_id, {})[knower] = before

    def knowers_of(self, edge_ids: Sequence[str]) -> dict[str, dict[str, Knowing]]:
        found = self._committed.knowers_of(edge_ids)
        if self._before.knowings:
            self._put_back(found, set(edge_ids))
        return found

    def known_rows(self, knower: str) -> list[Knowing]:
        rows = self._committed.known_rows(knower)
        if not self._before.knowings:
            return rows
        by_edge: dict[str, dict[str, Knowing]] = {}
        for row in rows:
            by_edge.setdefault(row.edge_id, {})[row.knower] = row
        # The versions the knower knew before the turn, then every row of each as it was.
        versions = {edge_id for edge_id, held in by_edge.items() if knower in held}
        for (edge_id, who), before in self._before.knowings.items():
            if who == knower:
                (versions.discard if before is None else versions.add)(edge_id)
        missing = [edge_id for edge_id in versions if edge_id not in by_edge]
        if missing:
            by_edge.update(self._committed.knowers_of(missing))
        self._put_back(by_edge, versions)
        return [row for edge_id in sorted(versions) for _, row in sorted(by_edge.get(edge_id, {}).items())]

    def all_knowings(self) -> list[Knowing]:
        rows = self._committed.all_knowings()
        if not self._before.knowings:
            return rows
        by_edge: dict[str, dict[str, Knowing]] = {}
        for row in rows:
            by_edge.setdefault(row.edge_id, {})[row.knower] = row
        self._put_back(by_edge, None)
        return [row for edge_id in sorted(by_edge) for _, row in sorted(by_edge[edge_id].items())]
