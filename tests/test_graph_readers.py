"""The key upsert rules over every reader: a ``GraphIndex`` in memory, the save's SQL tables, and a
session's index opened lazily over a save.

The same executions are committed to both and must leave the same graph: IDs, versions, closes and
self-healing may not depend on where the graph lives.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from helpers.graph import edge_call, make_edge, make_node, node_call, rows
from helpers.saves import SCHEMA

from game.graph.index import GraphIndex
from game.graph.models import Edge, Node
from game.graph.ports import GraphReader, GraphWrites
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.store.database import SaveDatabase
from game.store.graph_view import GraphView, finish

VOCABULARY = Vocabulary.default()


class Store(Protocol):
    reader: GraphReader

    async def commit(self, writes: GraphWrites, turn: int) -> None: ...

    async def graph(self) -> tuple[list[Node], list[Edge]]: ...


class MemoryStore:
    def __init__(self) -> None:
        self.reader = self.index = GraphIndex()
        self.versions: dict[str, Edge] = {}

    async def commit(self, writes: GraphWrites, turn: int) -> None:
        self.index.apply(writes)
        self.versions.update(writes.edges)

    async def graph(self) -> tuple[list[Node], list[Edge]]:
        return sorted(self.index.nodes.values(), key=lambda n: n.id), sorted(self.versions.values(), key=lambda e: e.id)


class SqlStore:
    def __init__(self, db: SaveDatabase) -> None:
        self.db = db
        self.reader = db.graph

    async def commit(self, writes: GraphWrites, turn: int) -> None:
        await self.db.commit_graph(writes)

    async def graph(self) -> tuple[list[Node], list[Edge]]:
        return (sorted(await self.db.graph.all_nodes(), key=lambda n: n.id),
                sorted(await self.db.graph.all_edges(), key=lambda e: e.id))


class LazyStore(SqlStore):
    """A session's way: the save, read through an index opened lazily and kept in step after each commit."""

    def __init__(self, db: SaveDatabase, index: GraphIndex) -> None:
        super().__init__(db)
        self.reader = self.index = index

    async def commit(self, writes: GraphWrites, turn: int) -> None:
        await self.db.commit_graph(writes)
        self.index.apply(writes)


@pytest.fixture(params=["memory", "sql", "lazy"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    db = await SaveDatabase.open(tmp_path / "readers.sqlite", schema=SCHEMA, create=True)
    try:
        yield SqlStore(db) if request.param == "sql" else LazyStore(db, await db.load_graph_index())
    finally:
        await db.close()


async def execute(store: Store, turn: int, *calls: Any, seed: int = 1) -> list[dict[str, Any]]:
    execution = UpsertExecution(store.reader, VOCABULARY, turn, rng=random.Random(seed + turn))
    outcomes = [(await execution.run(call)).to_json_dict() for call in calls]
    await store.commit(execution.writes, turn)
    return outcomes


def shape(nodes: list[Node], edges: list[Edge]) -> tuple[Any, ...]:
    """The graph without random edge IDs: enough to compare two stores that drew different suffixes."""
    return (
        [n.to_json_dict() for n in nodes],
        sorted((e.source, e.target, e.relation, e.strength, e.fact, e.valid_at, e.invalid_at) for e in edges),
    )


async def play_story(store: Store) -> list[list[dict[str, Any]]]:
    return [
        await execute(store, 1, {"nodes": [node_call("Mira", aliases=["the Fox"]), node_call("Tomas"),
                                           node_call("Guild", type="group")]},
                      {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.7, "Mira trusts Tomas."), edge_call("Guild", "Mira", "LED_BY", 0.6),
                                 edge_call("Tomas", "Mira", "KIN_OF", 0.4)]}),
        await execute(store, 2, {"edges": [edge_call("the fox", "Tomas", "TRUSTS", 0.7, "Mira trusts Tomas."),
                                           edge_call("Mira", "Tomas", "sibling of", 0.9),
                                           edge_call("Mira", "Nobody", "KNOWS")]}),
        await execute(store, 3, {"closeEdges": [{"sourceName": "Mira", "targetName": "Guild", "relation": "LEADS"}],
                                 "nodes": [node_call("Tomas", summary="Now a deacon.", labels=["clergy"])]}),
        await execute(store, 4, {"nodes": [node_call("Tomas!")]}),
    ]


async def test_both_readers_apply_a_story_the_same_way(tmp_path: Path) -> None:
    memory = MemoryStore()
    db = await SaveDatabase.open(tmp_path / "story.sqlite", schema=SCHEMA, create=True)
    try:
        sql = SqlStore(db)
        from_memory = await play_story(memory)
        from_sql = await play_story(sql)
        assert shape(*await memory.graph()) == shape(*await sql.graph())
        # The results themselves agree too, apart from the random suffixes.
        assert from_memory == from_sql
    finally:
        await db.close()


async def test_versioning_rules_hold_on_either_reader(store: Store) -> None:
    outcomes = await play_story(store)
    assert outcomes[1][0]["edges"]["results"][0]["skipped"] == "unchanged relation"
    assert outcomes[1][0]["edges"]["results"][1]["supersedes"] == outcomes[0][1]["edges"]["results"][2]["id"]
    assert outcomes[1][0]["edges"]["results"][2]["skipped"] == "missing endpoint node"
    assert outcomes[2][0]["closed"][0]["reason"] == "closed"
    assert outcomes[3][0]["nodes"]["results"][0]["id"] == "npc-tomas-2"
    nodes, edges = await store.graph()
    kin = sorted((e.source, e.target, e.strength, e.valid_at, e.invalid_at) for e in edges if e.relation == "KIN_OF")
    # The symmetric relation kept the direction it was first written in.
    assert kin == [("npc-tomas", "npc-mira", 0.4, 1, 2), ("npc-tomas", "npc-mira", 0.9, 2, None)]
    leads = [(e.source, e.target, e.invalid_at) for e in edges if e.relation == "LEADS"]
    assert leads == [("npc-mira", "npc-guild", 3)]
    tomas = next(n for n in nodes if n.id == "npc-tomas")
    assert (tomas.summary, tomas.labels, tomas.last_seen_turn) == ("Now a deacon.", ["clergy"], 3)


async def test_self_heal_works_on_either_reader(store: Store) -> None:
    mira, tomas = make_node("Mira"), make_node("Tomas")
    old = make_edge(mira, tomas, "TRUSTS", 0.1, valid_at=1, edge_id="edge-trusts-old001")
    new = make_edge(mira, tomas, "TRUSTS", 0.2, valid_at=2, edge_id="edge-trusts-new002")
    await store.commit(rows([mira, tomas], [old, new]), 2)
    (outcome,) = await execute(store, 5, {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.8)]})
    assert outcome["closed"] == [{"id": old.id, "source": "npc-mira", "target": "npc-tomas", "relation": "TRUSTS",
                                  "reason": "duplicate open version"}]
    assert outcome["edges"]["results"][0]["supersedes"] == new.id
    _, edges = await store.graph()
    assert sorted((e.strength, e.valid_at, e.invalid_at) for e in edges) == [(0.1, 1, 5), (0.2, 2, 5), (0.8, 5, None)]


async def test_new_edge_ids_avoid_every_stored_version(store: Store) -> None:
    mira, tomas = make_node("Mira"), make_node("Tomas")
    # A fixed random source draws the same suffix each turn: the closed version's ID must still be avoided.
    await store.commit(rows([mira, tomas]), 0)
    ids = []
    for turn in (1, 2, 3):
        execution = UpsertExecution(store.reader, VOCABULARY, turn, rng=random.Random(0))
        outcome = (await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", turn / 10)]})).to_json_dict()
        await store.commit(execution.writes, turn)
        ids.append(outcome["edges"]["results"][0]["id"])
    assert len(set(ids)) == 3


async def _answers(reader: Any, node_ids: list[str], edge_ids: list[str]) -> dict[str, Any]:
    """Every ``GraphReader`` read of the same questions, as plain data (models and records alike)."""
    def edges(found: Any) -> list[Any]:
        return sorted((e.to_json_dict() for e in found), key=lambda e: e["id"])

    names = ["mira", "the fox", "tomas", "guild", "oren", "nobody"]
    knowings = await reader.knowings_of(edge_ids)
    return {
        "named": {k: [n.to_json_dict() for n in v] for k, v in (await reader.nodes_named(names)).items()},
        "nodes": {k: v.to_json_dict() for k, v in (await reader.get_nodes([*node_ids, "npc-nobody"])).items()},
        "node ids taken": [await reader.node_id_taken(i) for i in [*node_ids, "npc-nobody"]],
        "edge ids taken": [await reader.edge_id_taken(i) for i in [*edge_ids, "edge-none-000000"]],
        "open of": {i: edges(await reader.open_edges_of(i)) for i in node_ids},
        "between": edges(await reader.open_edges_between("npc-mira", "npc-tomas", "FEARS")),
        "degree": await reader.open_degree(node_ids),
        "longest": await reader.longest_name(),
        "knowers": {e: sorted((k.knower, k.how, k.source, k.confidence, k.since_turn) for k in rows.values())
                    for e, rows in knowings.items()},
    }


async def test_every_reader_of_a_save_answers_alike_and_the_index_before_its_writes_are_committed(
        tmp_path: Path) -> None:
    path = tmp_path / "alike.sqlite"
    db = await SaveDatabase.open(path, schema=SCHEMA, create=True)
    try:
        await play_story(SqlStore(db))
        index = await db.load_graph_index()
        execution = UpsertExecution(index, VOCABULARY, 5, rng=random.Random(5))
        outcome = await execution.run({"nodes": [node_call("Oren")],
                                       "edges": [edge_call("Mira", "Tomas", "FEARS", -0.3), edge_call("Oren", "Mira", "KNOWS")],
                                       "closeEdges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS"}]})
        assert outcome.error is None
        index.apply(execution.writes)  # the overlay: written over what the index read, not committed yet
        node_ids = sorted(n.id for n in index.nodes.values())
        edge_ids = sorted({*(e.id for e in await db.graph.all_edges()), *execution.writes.edges})
        overlaid = await _answers(index, node_ids, edge_ids)
        await db.commit_graph(execution.writes)
        committed = await _answers(db.graph, node_ids, edge_ids)
        with GraphView.open(path, SCHEMA) as view:  # type: ignore[union-attr]
            quick = finish(_answers(view, node_ids, edge_ids))
        reopened = await _answers(await db.load_graph_index(), node_ids, edge_ids)
    finally:
        await db.close()
    assert overlaid["between"] and overlaid["knowers"] and "oren" in overlaid["named"]
    assert overlaid == committed == quick == reopened
