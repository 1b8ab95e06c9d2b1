"""The save's schema as the registry composes it: the core's migrations and each feature's own, in one
numbering (``game.store.schema``), with the shipped SQL exactly as it shipped."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from game.features.notes import NotesFeature
from game.features.tellings import TellingsFeature
from game.registry import Registry, builtin_schema, default_registry, register_builtin
from game.store import migrations as core
from game.store.schema import Migration, Schema

SHIPPED = {
    1: "53be170d5059139e19d4f3839bbeeee87f3c810ded783700a306209c0495a15c",
    2: "06a53cdc937c18e46481953bc60d871ceee78355c44e35e8388e0d78ab1974bf",
    3: "0c6ea88819ab5d6fd943b8f7371432e02d8e529036c1ddc0c9256917fee1e1f3",
    4: "d9e9f6e0b378260872a5e7e9614a244263f3ebeaed2976b580ffb0c1087cbffb",
    5: "bc39a944ab55bae32344a9140885c272e7d5bd59fcf82e9f9088e5352b68b33a",
    6: "06ee4588d32b8eab4aee3acf4c94dcf8fb0eb4a400c413a6bc8350947b717892",
    7: "6a48161b00eb6c7a65aa09900b0064f8d9597e889ace1cb5e63f9c443cc96b88",
    8: "93380679b0ca85b12316f6c66e12cdfc19afe2c6bc5e4965589e999d5871191c",
    9: "337877b8e95bf93aa5ecab9b6010acadd72be64e526f1ea19f5a6135f9995992",
    10: "cc152580a1c837ebbfba417f4ab86db554a8a4f6265d33d17a8ce9d440cba870",
    11: "c18cd956bba55fc2f7999c4b8a5bcbe24f85242f1f8e9a06ca3376da0263951d",
    12: "1b19b29088280f8979ada2701d84467e639e345ef449d6196710d17119949c55",
    13: "608dd4d2e22f1786240b3aecc6313b07015298421054e9a499764ca291aa4f06",
    14: "cef445b11850240ab213db244cea558450ff47ab35d3da50de28ff070b0b11b0",
    15: "da4b1e2a3ed7446a3d68ce83fe1dce98ae7e99d2cbe19c4cc71ab95efd816e2e",
}
"""The SHA-256 of every migration as it shipped: a save of any of these formats opens and upgrades only
if its SQL never changes. A new migration is added here once it ships."""

SHIPPED_TOGETHER = {"notes": "tellings"}
"""A feature whose table a shipped migration of another feature created (migration 11 made ``notes`` with
the tellings' tables, when the notes were part of them); a shipped migration is never split."""


def test_the_shipped_migrations_keep_their_numbers_and_their_sql_byte_for_byte() -> None:
    schema = default_registry().schema()
    assert {m.version: hashlib.sha256(m.sql.encode()).hexdigest() for m in schema.migrations} == SHIPPED


def test_a_schema_numbers_from_one_without_a_gap_or_a_repeat_and_every_step_has_an_owner() -> None:
    one, two = Migration(1, "core", "CREATE TABLE a (x)"), Migration(2, "extra", "CREATE TABLE b (x)")
    schema = Schema([two, one])
    assert (schema.current, schema.scripts(), schema.scripts(1)) == (2, (one.sql, two.sql), (one.sql,))
    assert (schema.since("b"), schema.owner_of("b"), schema.script(2)) == (2, "extra", two.sql)
    with pytest.raises(ValueError, match="migration 2 is missing"):
        Schema([one, Migration(3, "extra", "")])
    with pytest.raises(ValueError, match=r"migration 1 is declared twice \(by core, extra\)"):
        Schema([one, Migration(1, "extra", "")])
    with pytest.raises(ValueError, match="names no owner"):
        Schema([Migration(1, "", "")])
    with pytest.raises(ValueError, match="no migration creates 'c'"):
        schema.since("c")


def test_every_features_migrations_are_its_own_and_create_the_tables_it_declares() -> None:
    registry = default_registry()
    created = {m.owner: set() for m in registry.schema().migrations}
    for migration in registry.schema().migrations:
        created[migration.owner] |= set(migration.creates())
    for feature in registry:
        assert all(m.owner == feature.name for m in feature.migrations), feature.name
        maker = SHIPPED_TOGETHER.get(feature.name, feature.name)
        assert set(feature.tables) <= created.get(maker, set()), feature.name
    owned = {table for feature in registry for table in feature.tables}
    assert not created[core.CORE] & owned  # no core migration creates a feature's table
    assert {m.owner for m in core.MIGRATIONS} == {core.CORE}


def test_each_table_first_appears_in_a_migration_of_its_owner() -> None:
    """Read from what SQLite builds, not from the SQL's words: the tables each step adds."""
    schema = default_registry().schema()
    owner_of = {table: feature.name for feature in default_registry() for table in feature.tables}
    owner_of.update(swipes="tellings", undo_steps="tellings", notes="tellings")
    conn = sqlite3.connect(":memory:")
    try:
        seen: set[str] = set()
        for migration in schema.migrations:
            conn.executescript(migration.sql)
            tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table in tables - seen:
                assert owner_of.get(table, core.CORE) == migration.owner, (table, migration.version)
            seen = tables
    finally:
        conn.close()


def test_the_quick_reads_schema_is_the_default_registrys() -> None:
    assert builtin_schema().migrations == default_registry().schema().migrations


def test_a_registry_without_a_built_in_feature_keeps_its_shipped_tables() -> None:
    # A game that leaves gossip, deeds... out still opens (and writes) saves of the one numbering.
    registry = Registry()
    registry.register_feature(NotesFeature())
    assert registry.schema().migrations == builtin_schema().migrations
    assert registry.schema().owner_of("deeds") == "deeds"
    whole = Registry()
    register_builtin(whole)
    assert whole.schema().current == len(SHIPPED)
    assert whole.schema().owner_of("swipes") == TellingsFeature.name
