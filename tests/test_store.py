"""The save file: creation, refusal of what is not ours, one-transaction turns, exact undo, snapshots."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from helpers.saves import CURRENT_VERSION, SCHEMA, empty_old_save
from store_helpers import VOCABULARY, person, play, relation, seeded, state

from game.errors import SaveError, SaveNotFound
from game.graph.models import Edge
from game.graph.ports import GraphWrites
from game.graph.upsert import UpsertExecution
from game.store import bulk_commit, enrichment, node_identity, snapshots, turn_log
from game.store.database import SaveDatabase, TurnRecord
from game.store.graph_repo import name_rows
from game.store.saves import copy_save, delete_save, list_saves, resolve_save


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_a_new_save_is_wal_with_foreign_keys_and_current_schema(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        mode = (await db.conn.execute_fetchall("PRAGMA journal_mode"))[0][0]
        keys = (await db.conn.execute_fetchall("PRAGMA foreign_keys"))[0][0]
        version = (await db.conn.execute_fetchall("PRAGMA user_version"))[0][0]
        assert (mode, keys, version) == ("wal", 1, CURRENT_VERSION)
        assert (await db.meta())["world"] == "test-world"
    finally:
        await db.close()


def schema(path: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("version", range(1, CURRENT_VERSION))
async def test_an_old_save_migrated_has_the_schema_of_a_new_one(tmp_path: Path, version: int) -> None:
    """A new save gets every migration in one transaction; an old one takes them step by step on opening.
    Both must end with the same tables, indexes and columns, in the same words."""
    async with await SaveDatabase.open(tmp_path / "new.sqlite", schema=SCHEMA, create=True):
        pass
    async with await SaveDatabase.open(empty_old_save(tmp_path / "old.sqlite", version), schema=SCHEMA):
        pass
    assert schema(tmp_path / "old.sqlite") == schema(tmp_path / "new.sqlite")


async def test_missing_save_is_not_created_unless_asked(tmp_path: Path) -> None:
    with pytest.raises(SaveNotFound):
        await SaveDatabase.open(tmp_path / "nope.sqlite", schema=SCHEMA)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [b"", b"this is a text file, not a database\n" * 40])
async def test_non_database_files_are_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_bytes(content)
    before = digest(path)
    with pytest.raises(SaveError, match="not a Kith save"):
        await SaveDatabase.open(path, schema=SCHEMA, create=True)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]


async def test_foreign_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('application', 'someone-else')")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(SaveError, match="another program"):
        await SaveDatabase.open(path, schema=SCHEMA, create=True)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]


async def test_a_save_from_a_newer_kith_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite"
    db = await seeded(path)
    await db.close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(SaveError, match="newer Kith"):
        await SaveDatabase.open(path, schema=SCHEMA)
    assert digest(path) == before


async def test_a_turn_commits_everything_or_nothing(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        before = await state(db)
        bad_edge = Edge(id="edge-bad-000000", source="npc-mira", target="npc-nobody", relation="FEARS",
                        strength=-0.5, fact="Mira fears a person who does not exist.", valid_at=1)
        writes = GraphWrites(edges={bad_edge.id: bad_edge}, created_edges={bad_edge.id})
        record = TurnRecord(number=1, input="x", narration="y", npc_context="")
        with pytest.raises(SaveError, match=r"FOREIGN KEY constraint failed.*nothing was saved"):
            await db.commit_turn(record, writes, {"location": "nowhere"})
        assert await state(db) == before
    finally:
        await db.close()


async def test_undo_restores_the_exact_state_before_each_turn(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        snapshots = [await state(db)]
        await play(db, 1, {"nodes": [person("Lin Yao", "A courier who owes everyone.")],
                           "edges": [relation("Lin Yao", "Mira", "OWES", 0.4, "Lin Yao owes Mira a season's rent.")]})
        snapshots.append(await state(db))
        await play(db, 2, {"nodes": [{"name": "Mira", "aliases": ["the Keeper"], "summary": "Mira keeps the ledger now."}],
                           "edges": [relation("Mira", "Tomas", "DISTRUSTS", -0.6, "Mira stopped trusting Tomas when he sold the ledger.")]})
        snapshots.append(await state(db))
        await play(db, 3, {"closeEdges": [{"sourceName": "Tomas", "targetName": "Harbour Watch", "relation": "MEMBER_OF"}]})
        await node_identity.merge_nodes(db, "npc-mira", "npc-oren", strategy="manual", evidence="test", turn=3)
        for expected in reversed(snapshots):
            await db.undo_last_turn()
            assert await state(db) == expected
        with pytest.raises(SaveError, match="nothing to undo"):
            await db.undo_last_turn()
    finally:
        await db.close()


async def test_merge_repoints_edges_logs_and_leaves_nothing_dangling(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        await play(db, 1, {"nodes": [person("Tom", "Someone called Tom.")],
                           "edges": [relation("Oren", "Tom", "FEARS", -0.5, "Oren fears Tom since the brawl."),
                                     relation("Tom", "Tomas", "KIN_OF", 0.9, "Tom is what his sister calls Tomas.")]})
        report = await node_identity.merge_nodes(db, "npc-tomas", "npc-tom", strategy="manual", evidence="same man", turn=1)
        assert "Tom" in report.kept.aliases
        node_ids = {n.id for n in await db.graph.all_nodes()}
        assert "npc-tom" not in node_ids
        for edge in await db.graph.all_edges():
            assert edge.source in node_ids and edge.target in node_ids
        fears = [e for e in await db.graph.all_edges() if e.relation == "FEARS"]
        assert [(e.source, e.target, e.invalid_at) for e in fears] == [("npc-oren", "npc-tomas", None)]
        kin = [e for e in await db.graph.all_edges() if e.relation == "KIN_OF"]
        assert kin[0].invalid_at == 1, "a relation between the merged nodes is closed, not left as a self-loop"
        merges = await node_identity.merges(db)
        assert [(m.kept_id, m.merged_id, m.strategy, m.evidence, m.turn) for m in merges] == [
            ("npc-tomas", "npc-tom", "manual", "same man", 1)]
    finally:
        await db.close()


async def test_snapshot_and_restore_use_a_consistent_copy(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        await play(db, 1, {"edges": [relation("Oren", "Mira", "FEARS", -0.4, "Oren fears Mira's ledger.")]})
        saved = await state(db)
        await snapshots.snapshot_to(db, tmp_path / "before.sqlite")
        await play(db, 2, {"edges": [relation("Oren", "Mira", "HATES", -0.8, "Oren hates Mira after the trial.")]})
        assert await state(db) != saved
        await snapshots.restore_from(db, tmp_path / "before.sqlite")
        assert await state(db) == saved
    finally:
        await db.close()
    snapshot = await SaveDatabase.open(tmp_path / "before.sqlite", schema=SCHEMA)
    try:
        assert await state(snapshot) == saved
    finally:
        await snapshot.close()


def test_save_names_are_plain_words_and_paths_are_explicit(tmp_path: Path) -> None:
    assert resolve_save("my-game_2", tmp_path) == tmp_path / "my-game_2.sqlite"
    assert resolve_save("elsewhere/x.sqlite", tmp_path) == Path("elsewhere/x.sqlite")
    assert resolve_save("x.sqlite", tmp_path) == Path("x.sqlite")
    for bad in ["", "..", "a b", "name.db", "x" * 65, "é", "a\\b"]:
        with pytest.raises(SaveError, match="not a save name"):
            resolve_save(bad, tmp_path)


async def test_saves_list_copy_delete(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "alpha.sqlite")
    await play(db, 1, {"edges": [relation("Oren", "Mira", "FEARS", -0.4, "Oren fears Mira's ledger.")]})
    await db.close()
    (tmp_path / "junk.sqlite").write_bytes(b"junk" * 10)
    copy_save("alpha", "beta", tmp_path, SCHEMA)
    with pytest.raises(SaveError, match="already exists"):
        copy_save("alpha", "beta", tmp_path, SCHEMA)
    infos = {i.name: i for i in list_saves(tmp_path, SCHEMA)}
    assert infos["alpha"].turns == infos["beta"].turns == 1
    assert infos["alpha"].world == "test-world"
    assert infos["junk"].error is not None
    with pytest.raises(SaveError):
        delete_save("junk", tmp_path, SCHEMA)  # not ours: never deleted
    delete_save("beta", tmp_path, SCHEMA)
    assert sorted(p.name for p in tmp_path.glob("*.sqlite")) == ["alpha.sqlite", "junk.sqlite"]


async def test_retrieval_over_sql_reads_only_indexes(tmp_path: Path) -> None:
    """Every query the one-shot reader issues is answered through an index, never a full table scan."""
    db = await seeded(tmp_path / "game.sqlite")
    try:
        plans: list[str] = []
        queries = [
            ("SELECT 1 FROM nodes WHERE id = ?", ("npc-mira",)),
            ("SELECT id FROM edges WHERE source = ? AND invalid_at IS NULL", ("npc-mira",)),
            ("SELECT id FROM edges WHERE target = ? AND source != ? AND invalid_at IS NULL", ("npc-mira", "npc-mira")),
            ("SELECT id FROM edges WHERE source = ? AND relation = ? AND target = ? AND invalid_at IS NULL",
             ("npc-mira", "TRUSTS", "npc-tomas")),
            ("SELECT node_id FROM node_names WHERE norm IN (?, ?)", ("mira", "tomas")),
            ("SELECT max(length(norm)) FROM node_names", ()),
        ]
        for sql, params in queries:
            rows = await db.conn.execute_fetchall(f"EXPLAIN QUERY PLAN {sql}", params)
            plans.extend(str(row[3]) for row in rows)
        assert plans and all("SCAN" not in plan for plan in plans), plans
    finally:
        await db.close()


async def test_a_v1_save_is_migrated_forward_and_keeps_its_turns(tmp_path: Path) -> None:
    from helpers.saves import SCRIPTS

    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(SCRIPTS[0])
    conn.execute("PRAGMA user_version = 1")
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [("application", "kith"), ("world", "w")])
    conn.execute("INSERT INTO turns (number, input, narration, npc_context, created_at) "
                 "VALUES (1, 'look', 'You look.', '', 'then')")
    conn.commit()
    conn.close()
    db = await SaveDatabase.open(path, schema=SCHEMA)
    try:
        assert (await db.conn.execute_fetchall("PRAGMA user_version"))[0][0] == CURRENT_VERSION
        assert [(t.number, t.input) for t in await turn_log.turns(db)] == [(1, "look")]
        assert await enrichment.pending_extraction(db) == []
    finally:
        await db.close()


async def test_a_refused_wal_database_gets_no_new_files_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "wal.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE things (x)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(SaveError):
        await SaveDatabase.open(path, schema=SCHEMA)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wal.sqlite"]


async def test_graph_writes_outside_turns_are_undone_before_the_turn_they_point_into(tmp_path: Path) -> None:
    """An import or upsert on a played save is journaled at the current turn, so undo never trips over it."""
    db = await seeded(tmp_path / "game.sqlite")
    try:
        start = await state(db)
        await play(db, 1, {"nodes": [person("Lin Yao", "A courier.")]})
        execution = UpsertExecution(db.graph, VOCABULARY, 0)
        outcome = await execution.run({"edges": [relation("Mira", "Lin Yao", "OWES", 0.3, "Mira owes Lin Yao for a crossing.")]})
        assert outcome.error is None
        await bulk_commit.commit_many(db, [(execution.writes, 0)])
        await db.undo_last_turn()
        assert await state(db) == start
    finally:
        await db.close()


async def test_a_change_dated_before_the_version_it_replaces_is_rejected(tmp_path: Path) -> None:
    db = await seeded(tmp_path / "game.sqlite")
    try:
        await play(db, 1, {"edges": [relation("Mira", "Tomas", "TRUSTS", 0.2, "Mira trusts Tomas less now.")]})
        execution = UpsertExecution(db.graph, VOCABULARY, 0)
        outcome = await execution.run({"edges": [relation("Mira", "Tomas", "TRUSTS", 0.9, "Mira trusts Tomas with her life.")]})
        assert outcome.error is not None and "would end it before it began" in outcome.error
        assert not execution.writes
    finally:
        await db.close()


async def test_the_name_index_follows_every_node_through_turns_that_rename_or_only_touch_it(tmp_path: Path) -> None:
    """A turn that rewrites a node without renaming it leaves its name rows; one that renames it, and undo,
    re-index them: every step, the index holds exactly the stored nodes' names."""

    async def names_held(db: SaveDatabase) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        rows = sorted((str(r[0]), str(r[1])) for r in await db.conn.execute_fetchall("SELECT norm, node_id FROM node_names"))
        wanted = sorted(row for node in await db.graph.all_nodes() for row in name_rows(node))
        return rows, wanted

    db = await seeded(tmp_path / "game.sqlite")
    try:
        await play(db, 1, {"nodes": [{"name": "Mira", "summary": "Mira counts the boats."}]})  # touched only
        rows, wanted = await names_held(db)
        assert rows == wanted and ("mira", "npc-mira") in rows
        await play(db, 2, {"nodes": [{"name": "Mira", "aliases": ["the Keeper"], "summary": "Mira keeps the ledger."}]})
        rows, wanted = await names_held(db)
        assert rows == wanted and ("the keeper", "npc-mira") in rows
        assert [n.id for n in (await db.graph.nodes_named(["the keeper"]))["the keeper"]] == ["npc-mira"]
        await db.undo_last_turn()
        rows, wanted = await names_held(db)
        assert rows == wanted and ("the keeper", "npc-mira") not in rows
    finally:
        await db.close()
