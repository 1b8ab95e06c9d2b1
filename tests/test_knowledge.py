"""Who knows what: default knowers of written relations, the index's lookups, storage, undo, migration."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from helpers.graph import edge_call, node_call
from helpers.saves import CURRENT_VERSION, SCHEMA, SCRIPTS
from store_helpers import person, play, relation, seeded, state

from game.graph.index import GraphIndex
from game.graph.knowing_terms import PUBLIC
from game.graph.knowledge import Knowing, keep_better
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import RelationSpec, Vocabulary
from game.store import node_identity
from game.store.database import SaveDatabase


def knowing(edge_id: str, knower: str, confidence: float = 1.0, turn: int = 1, how: str = "told") -> Knowing:
    return Knowing.model_validate({"edgeId": edge_id, "knower": knower, "how": how, "confidence": confidence,
                                   "sinceTurn": turn})


async def town(witnesses: tuple[str, ...] = ()) -> tuple[GraphIndex, UpsertExecution]:
    """Mira, Tomas and Oren (people) and the Watch (a faction), then an execution at turn 1."""
    index = GraphIndex()
    seed = UpsertExecution(index, Vocabulary.default(), 0, rng=random.Random(0))
    outcome = await seed.run({"nodes": [node_call("Mira"), node_call("Tomas"), node_call("Oren"),
                                        node_call("Harbour Watch", type="faction")]})
    assert outcome.error is None
    index.apply(seed.writes)
    return index, UpsertExecution(index, Vocabulary.default(), 1, rng=random.Random(1), witnesses=witnesses)


def knowers(index: GraphIndex, edge_id: str) -> dict[str, tuple[str, float]]:
    return {k: (row.how, row.confidence) for k, row in index.knowers_of(edge_id).items()}


async def test_a_new_relation_is_known_by_its_ends_and_the_witnesses_only() -> None:
    index, execution = await town(witnesses=("npc-oren",))
    outcome = await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.6)]})
    assert outcome.result is not None
    edge_id = outcome.result.edges.results[0].id
    assert edge_id is not None
    index.apply(execution.writes)
    assert knowers(index, edge_id) == {"npc-mira": ("authored", 1.0), "npc-tomas": ("authored", 1.0),
                                       "npc-oren": ("witnessed", 1.0)}
    assert index.knows("npc-oren", edge_id)
    assert edge_id in index.known_by("npc-mira")


async def test_a_faction_at_one_end_knows_nothing_itself() -> None:
    index, execution = await town()
    outcome = await execution.run({"edges": [edge_call("Tomas", "Harbour Watch", "MEMBER_OF", 0.5)]})
    assert outcome.result is not None
    edge_id = outcome.result.edges.results[0].id
    assert edge_id is not None
    index.apply(execution.writes)
    assert set(index.knowers_of(edge_id)) == {"npc-tomas"}
    assert index.known_by("npc-harbour-watch") == set()


async def test_a_changed_relation_is_known_afresh_and_the_old_version_keeps_its_knowers() -> None:
    index, execution = await town(witnesses=("npc-oren",))
    first = await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.6)]})
    index.apply(execution.writes)
    later = UpsertExecution(index, Vocabulary.default(), 2, rng=random.Random(2))
    second = await later.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.2, "Mira trusts Tomas less now.")]})
    index.apply(later.writes)
    assert first.result is not None and second.result is not None
    old, new = first.result.edges.results[0].id, second.result.edges.results[0].id
    assert old is not None and new is not None
    assert set(index.knowers_of(new)) == {"npc-mira", "npc-tomas"}  # nobody else saw turn 2
    assert set(index.knowers_of(old)) == {"npc-mira", "npc-tomas", "npc-oren"}


async def test_a_rejected_call_leaves_no_knowers_behind() -> None:
    index, _ = await town()
    execution = UpsertExecution(index, Vocabulary.default(), 1, witnesses=("npc-oren",),
                                close_guard=lambda _a, _b: "the story forbids it")
    kept = await execution.run({"edges": [edge_call("Oren", "Mira", "KNOWS", 0.5)]})
    assert kept.error is None
    before = dict(execution.writes.knowings)
    # The edge is buffered with its knowers, then the close in the same call is refused: all of it goes.
    outcome = await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.6)],
                                   "closeEdges": [{"sourceName": "Mira", "targetName": "Oren", "relation": "KNOWS"}]})
    assert outcome.error == "the story forbids it"
    assert execution.writes.knowings == before and len(before) == 2  # Oren is an end and a witness


def test_public_and_floor_decide_who_knows() -> None:
    index = GraphIndex(knowings=[knowing("e1", PUBLIC), knowing("e2", "npc-lise", confidence=0.2),
                                 knowing("e3", "npc-lise", confidence=0.49)])
    assert index.knows("npc-anyone", "e1")
    assert not index.knows("npc-lise", "e2")  # below the default floor of 0.3
    assert index.knows("npc-lise", "e2", floor=0.1)
    assert index.knows("npc-lise", "e3") and not index.knows("npc-lise", "e3", floor=0.5)
    assert not index.knows("npc-lise", "e4")
    assert index.known_by("npc-lise") == {"e1", "e2", "e3"}
    assert index.known_by("npc-anyone") == {"e1"}


def test_learning_again_keeps_the_surer_row_and_on_a_tie_the_earlier() -> None:
    first = knowing("e1", "npc-lise", confidence=0.49, turn=3)
    assert keep_better(first, knowing("e1", "npc-lise", confidence=0.34, turn=5)) is first
    surer = knowing("e1", "npc-lise", confidence=0.7, turn=6)
    assert keep_better(first, surer) is surer
    earlier = knowing("e1", "npc-lise", confidence=0.49, turn=2)
    assert keep_better(first, earlier) is earlier
    assert keep_better(None, first) is first


async def test_knowers_are_stored_read_back_and_undone_exactly(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        start = await state(db)
        await play(db, 1, {"nodes": [person("Lin Yao", "A courier.")],
                           "edges": [relation("Mira", "Lin Yao", "OWES", 0.3, "Mira owes Lin Yao for a crossing.")]},
                   witnesses=("npc-oren",))
        after_one = await state(db)
        index = await db.load_graph_index()
        owes = next(e for e in index.open_edges.values() if e.relation == "OWES")
        assert set(index.knowers_of(owes.id)) == {"npc-mira", "npc-lin-yao", "npc-oren"}
        stored = await db.graph.knowings_of([owes.id])
        assert stored == {owes.id: index.knowers_of(owes.id)}
        await play(db, 2, {"edges": [relation("Mira", "Lin Yao", "OWES", 0.6, "Mira owes Lin Yao twice over.")]},
                   witnesses=("npc-tomas",))
        await db.undo_last_turn()
        assert await state(db) == after_one
        await db.undo_last_turn()
        assert await state(db) == start
    finally:
        await db.close()


async def test_the_world_at_turn_zero_is_known_by_its_ends(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        rows = {(k.knower, k.how) for k in await db.graph.all_knowings()}
        # Mira TRUSTS Tomas: both; Tomas MEMBER_OF the Watch: Tomas only (a faction knows nothing itself).
        assert rows == {("npc-mira", "authored"), ("npc-tomas", "authored")}
        assert len(await db.graph.all_knowings()) == 3
    finally:
        await db.close()


async def test_a_save_from_before_knowledge_gets_its_endpoints_as_knowers(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for script in SCRIPTS[:2]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 2")
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [("application", "kith"), ("world", "w")])
    conn.executemany(
        "INSERT INTO nodes (id, name, type, summary, first_seen_turn, last_seen_turn) VALUES (?, ?, ?, 'x', 0, 0)",
        [("npc-mira", "Mira", "individual"), ("npc-tomas", "Tomas", "individual"), ("npc-watch", "Watch", "faction")],
    )
    conn.executemany(
        "INSERT INTO edges (id, source, target, relation, strength, fact, valid_at, invalid_at) "
        "VALUES (?, ?, ?, ?, 0.5, 'a fact of old', ?, ?)",
        [("edge-a", "npc-mira", "npc-tomas", "TRUSTS", 0, 2), ("edge-b", "npc-mira", "npc-tomas", "TRUSTS", 2, None),
         ("edge-c", "npc-tomas", "npc-watch", "MEMBER_OF", 1, None)],
    )
    conn.execute("INSERT INTO journal (turn, kind, key, before) VALUES (2, 'edge', 'edge-b', NULL)")
    conn.commit()
    conn.close()
    db = await SaveDatabase.open(path, schema=SCHEMA)
    try:
        assert (await db.conn.execute_fetchall("PRAGMA user_version"))[0][0] == CURRENT_VERSION
        rows = sorted((k.edge_id, k.knower, k.how, k.confidence, k.since_turn) for k in await db.graph.all_knowings())
        assert rows == [("edge-a", "npc-mira", "authored", 1.0, 0), ("edge-a", "npc-tomas", "authored", 1.0, 0),
                        ("edge-b", "npc-mira", "authored", 1.0, 2), ("edge-b", "npc-tomas", "authored", 1.0, 2),
                        ("edge-c", "npc-tomas", "authored", 1.0, 1)]
        # The journal kept its entries through the rebuild that taught it the new kinds.
        journal = await db.conn.execute_fetchall("SELECT turn, kind, key FROM journal")
        assert [tuple(row) for row in journal] == [(2, "edge", "edge-b")]
    finally:
        await db.close()


async def test_sql_and_memory_readers_agree_on_knowers(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        await play(db, 1, {"edges": [relation("Oren", "Mira", "FEARS", -0.4, "Oren fears Mira's temper.")]},
                   witnesses=("npc-tomas",))
        index = await db.load_graph_index()
        ids = list(index.open_edges)
        assert await db.graph.knowings_of(ids) == await index.knowings_of(ids)
        by_tomas = {k.edge_id for k in await db.graph.knowings_by("npc-tomas")}
        assert by_tomas == index.known_by("npc-tomas")
    finally:
        await db.close()




# ------------------------------------------------------------------------------ knownBy and public


async def first_edge(execution: UpsertExecution, call: dict[str, object]) -> str:
    outcome = await execution.run(call)
    assert outcome.result is not None, outcome.error
    edge_id = outcome.result.edges.results[0].id
    assert edge_id is not None
    return edge_id


async def test_known_by_replaces_the_default_knowers_and_public_adds_everyone() -> None:
    index, execution = await town(witnesses=("npc-oren",))
    secret = await first_edge(execution, {"edges": [{**edge_call("Mira", "Tomas", "OWES", 0.4), "knownBy": ["Mira"]}]})
    town_talk = await first_edge(execution, {"edges": [{**edge_call("Tomas", "Oren", "KNOWS", 0.3), "public": True}]})
    index.apply(execution.writes)
    assert knowers(index, secret) == {"npc-mira": ("authored", 1.0)}
    assert not index.knows("npc-tomas", secret) and not index.knows("npc-oren", secret)
    assert set(index.knowers_of(town_talk)) == {"npc-tomas", "npc-oren", PUBLIC}
    assert index.knows("npc-mira", town_talk)


async def test_known_by_a_stranger_or_a_faction_rejects_the_call() -> None:
    _, execution = await town()
    unknown = await execution.run({"edges": [{**edge_call("Mira", "Tomas", "OWES", 0.4), "knownBy": ["Nobody"]}]})
    assert unknown.error == "knownBy: there is no one called 'Nobody' in the graph"
    faction = await execution.run({"edges": [{**edge_call("Mira", "Tomas", "OWES", 0.4), "knownBy": ["Harbour Watch"]}]})
    assert faction.error is not None and "only individuals know things" in faction.error
    assert not execution.writes


async def test_telling_more_people_an_unchanged_relation_adds_them_as_knowers() -> None:
    index, execution = await town()
    edge_id = await first_edge(execution, {"edges": [edge_call("Mira", "Tomas", "OWES", 0.4)]})
    index.apply(execution.writes)
    later = UpsertExecution(index, Vocabulary.default(), 2)
    outcome = await later.run({"edges": [{**edge_call("Mira", "Tomas", "OWES", 0.4), "public": True}]})
    assert outcome.result is not None and outcome.result.edges.results[0].skipped == "unchanged relation"
    index.apply(later.writes)
    assert set(index.knowers_of(edge_id)) == {"npc-mira", "npc-tomas", PUBLIC}
    assert index.knowers_of(edge_id)["npc-mira"].since_turn == 1  # what she knew stays as she learned it


# ------------------------------------------------------------------------------ valence and exclusions


async def test_a_strength_against_the_relations_valence_is_rejected_with_a_message() -> None:
    _, execution = await town()
    fear = await execution.run({"edges": [edge_call("Oren", "Mira", "FEARS", 0.6)]})
    assert fear.error is not None and "FEARS is a negative relation" in fear.error
    trust = await execution.run({"edges": [edge_call("Oren", "Mira", "TRUSTS", -0.4)]})
    assert trust.error is not None and "TRUSTS is a positive relation" in trust.error
    # A little slack around zero, and neutral relations take either sign.
    assert (await execution.run({"edges": [edge_call("Oren", "Mira", "TRUSTS", -0.05)]})).error is None
    assert (await execution.run({"edges": [edge_call("Oren", "Mira", "KIN_OF", -0.7)]})).error is None


async def test_opening_a_relation_closes_the_one_it_excludes_between_the_same_pair() -> None:
    index, execution = await town()
    await first_edge(execution, {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.6),
                                           edge_call("Tomas", "Mira", "TRUSTS", 0.5),
                                           edge_call("Mira", "Oren", "ALLY_OF", 0.5)]})
    index.apply(execution.writes)
    later = UpsertExecution(index, Vocabulary.default(), 3)
    outcome = await later.run({"edges": [edge_call("Mira", "Tomas", "DISTRUSTS", -0.5),
                                         edge_call("Oren", "Mira", "ENEMY_OF", -0.8)]})
    assert outcome.result is not None
    index.apply(later.writes)
    open_relations = sorted((e.source, e.relation, e.target) for e in index.open_edges.values())
    # Tomas still trusts Mira (TRUSTS has a direction); the alliance ends whichever way the enmity was written.
    assert open_relations == [("npc-mira", "DISTRUSTS", "npc-tomas"), ("npc-oren", "ENEMY_OF", "npc-mira"),
                              ("npc-tomas", "TRUSTS", "npc-mira")]
    assert sorted(c.reason or "" for c in outcome.result.closed) == ["contradicted by DISTRUSTS",
                                                                     "contradicted by ENEMY_OF"]


def test_a_world_may_declare_valence_and_exclusions_once_for_both_sides() -> None:
    vocabulary = Vocabulary.default().extended([
        RelationSpec(name="ADMIRES", valence="positive"),
        RelationSpec(name="SCORNS", valence="negative", excludes=["ADMIRES"]),
    ])
    assert vocabulary.excluded_by("ADMIRES") == ["SCORNS"]
    assert vocabulary.excluded_by("SCORNS") == ["ADMIRES"]
    assert vocabulary.sign_problem("SCORNS", 0.4) is not None
    assert vocabulary.valence("BRIBED") == "neutral"


async def test_a_merged_node_s_knowledge_passes_to_the_kept_one_and_undo_takes_it_back(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        await play(db, 1, {"nodes": [person("Lin Yao", "A courier.")],
                           "edges": [{**relation("Tomas", "Lin Yao", "OWES", 0.3, "Tomas owes Lin Yao for a crossing."),
                                      "knownBy": ["Oren"]}]})
        before = await state(db)
        await node_identity.merge_nodes(db, "npc-mira", "npc-oren", strategy="manual", evidence="the same boatman", turn=1)
        index = await db.load_graph_index()
        owes = next(e for e in index.open_edges.values() if e.relation == "OWES")
        assert set(index.knowers_of(owes.id)) == {"npc-mira"}
        assert index.knows("npc-mira", owes.id) and "npc-oren" not in {k.knower for k in index.all_knowings()}
        await db.undo_last_turn()
        await play(db, 1, {"nodes": [person("Lin Yao", "A courier.")],
                           "edges": [{**relation("Tomas", "Lin Yao", "OWES", 0.3, "Tomas owes Lin Yao for a crossing."),
                                      "knownBy": ["Oren"]}]})
        assert await state(db) == before
    finally:
        await db.close()


async def test_scoped_retrieval_walks_only_what_the_knower_knows_in_memory_and_on_disk(tmp_path: Path) -> None:
    from game.graph.retrieve import retrieve

    db = await seeded(tmp_path / "game.sqlite")
    try:
        await play(db, 1, {"edges": [relation("Oren", "Mira", "FEARS", -0.6, "Oren fears Mira's temper."),
                                     {**relation("Tomas", "Oren", "KNOWS", 0.3, "Tomas and Oren share a pew."),
                                      "public": True}]})
        index = await db.load_graph_index()
        for reader in (index, db.graph):
            plain = await retrieve(reader, "Mira")
            scoped = await retrieve(reader, "Mira", as_knower="npc-oren")
            assert {e.relation for e in plain.edges} == {"TRUSTS", "FEARS", "MEMBER_OF", "KNOWS"}
            # Oren knows his fear and, through it, the public acquaintance; not Mira's trust nor Tomas's coat.
            assert {e.relation for e in scoped.edges} == {"FEARS", "KNOWS"}
            from_tomas = await retrieve(reader, "Tomas", as_knower="npc-oren")
            assert {e.relation for e in from_tomas.edges} == {"KNOWS", "FEARS"}  # not Tomas's trust nor coat
            assert (await retrieve(reader, "Mira", as_knower="npc-oren", floor=1.01)).edges == []
    finally:
        await db.close()
