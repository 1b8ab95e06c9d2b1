"""A feature plugs in through the registry alone: registered beside the built-in ones, its step runs in
every told turn, its attitude changes are applied with the turn's, and the built-in deeds still run
(docs/architecture.md, "Features and the registry")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
from playthrough import Playthrough

from game.engine.events import TurnCommitted
from game.engine.turn_steps import turn_steps
from game.errors import SaveError
from game.features.feature import Delta, Feature, Rows, StepResult, TurnFacts
from game.graph.knowledge import Knowing
from game.registry import Registry, default_registry, register_builtin
from game.store.database import SaveDatabase
from game.store.rows import RowWrite
from game.store.schema import Migration
from game.world.loader import load_world

CONTENT = Path(__file__).resolve().parent.parent / "content"


class Gratitude(Feature):
    """A small feature: whoever the player helps warms a little more, for its own stated reason."""

    name: ClassVar[str] = "gratitude"

    def load(self, rows: Rows) -> int:
        return 0

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> int:
        return int(state or 0) + 1  # turns seen: a state that follows the commits

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        helped = [a.character for a in (facts.world_ir.acts or []) if a.verb == "help"] if facts.world_ir else []
        people = [n for n in facts.graph.nodes.values() if n.name in helped]
        return StepResult(attitudes=tuple((n.id, Delta(0, 0, 5, "grateful, says the test feature")) for n in people))


def test_a_feature_is_listed_once() -> None:
    registry = Registry()
    register_builtin(registry)
    with pytest.raises(ValueError, match="registered already"):
        register_builtin(registry)


async def test_a_registered_feature_runs_in_every_turn_beside_the_built_in_ones() -> None:
    registry = Registry()
    register_builtin(registry)
    registry.register_feature(Gratitude())
    game = await Playthrough.start(load_world(CONTENT, "brinefall"), seed=0)
    game.pipeline.registry = registry
    await game.play("talk to hob")
    await game.play("help hob")
    state = game.pipeline.state
    hob = next(n for n in state.graph.nodes.values() if n.name == "Hob Tarrant")
    reasons = [change.reason for change in state.attitudes.of(state.graph, hob).history]
    assert "grateful, says the test feature" in reasons
    assert state.features["gratitude"] == 2
    assert [d.act for d in state.features["deeds"].deeds.values()] == ["talk", "help"]


class Witness(Feature):
    """A feature that notes each turn its step runs in."""

    name: ClassVar[str] = "witness"

    def __init__(self) -> None:
        self.seen: list[int] = []

    def load(self, rows: Rows) -> None:
        return None

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> None:
        return None

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        self.seen.append(facts.turn)
        return StepResult()


async def test_a_told_turn_runs_the_core_steps_then_each_features_step_in_registration_order() -> None:
    registry = Registry()
    register_builtin(registry)
    registry.register_feature(Gratitude())
    witness = Witness()
    registry.register_feature(witness)
    names = [name for name, _ in turn_steps(registry)]
    core = ["retrieve_ms", "context_ms", "narrate_ms", "world_ir_ms", "extract_ms"]
    assert names == [*core, *["features_ms"] * len(list(registry)), "tiers_ms", "memory_ms"]
    # The attitudes step after every other, those registered after it included: it applies their changes.
    assert [f.name for f in registry.in_step_order()] == [
        "identity", "gossip", "deeds", "notes", "memories", "tellings", "gratitude", "witness", "attitudes"]
    game = await Playthrough.start(load_world(CONTENT, "brinefall"), seed=0)
    game.pipeline.registry = registry
    committed = [e async for e in game.pipeline.play("talk to hob") if isinstance(e, TurnCommitted)]
    assert witness.seen == [1]  # the registered step ran in the told turn, once
    assert {*core, "features_ms", "tiers_ms", "memory_ms", "commit_ms"} <= set(committed[0].timings)


class Whisper(Feature):
    """A feature that passes word of one relation to Hob each turn (``StepResult.knowings``), as gossip does."""

    name: ClassVar[str] = "whisper"

    def __init__(self) -> None:
        self.tunings: list[Any] = []

    def tuning(self, settings: Any, *, imported: bool = False) -> str:
        return "hushed" if imported else "softly"

    def load(self, rows: Rows) -> None:
        return None

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> None:
        return None

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        self.tunings.append(facts.tuning)
        hob = next(n.id for n in facts.graph.nodes.values() if n.name == "Hob Tarrant")
        edge = next(e for e in facts.graph.open_edges.values() if hob not in facts.graph.knowers_of(e.id)
                    and hob not in (e.source, e.target))
        heard = Knowing(edge_id=edge.id, knower=hob, how="told", source=None, confidence=0.7, since_turn=facts.turn)
        return StepResult(knowings={heard.key: heard})


class Overhears(Feature):
    """Registered after ``Whisper``: records the knower rows its step finds among the turn's writes."""

    name: ClassVar[str] = "overhears"

    def __init__(self) -> None:
        self.seen: list[set[tuple[str, str]]] = []

    def load(self, rows: Rows) -> None:
        return None

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> None:
        return None

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        self.seen.append({key for key, row in facts.writes.knowings.items() if row.how == "told"})
        return StepResult()


async def test_a_steps_knower_rows_join_the_turns_writes_for_the_next_step_and_the_graph() -> None:
    whisper, overhears = Whisper(), Overhears()
    registry = Registry()
    registry.register_feature(whisper)
    registry.register_feature(overhears)
    assert registry.tunings(None) == {"whisper": "softly", "overhears": None}
    assert registry.tunings(None, imported=True)["whisper"] == "hushed"
    game = await Playthrough.start(load_world(CONTENT, "brinefall"), seed=0)
    game.pipeline.registry = registry
    game.pipeline.tuning = replace(game.pipeline.tuning, features=registry.tunings(None))
    await game.play("look")
    state = game.pipeline.state
    hob = next(n.id for n in state.graph.nodes.values() if n.name == "Hob Tarrant")
    (told,) = [key for key in overhears.seen[0] if key[1] == hob]
    assert whisper.tunings == ["softly"]
    row = state.graph.knowers_of(told[0])[hob]
    assert (row.how, row.confidence, row.since_turn) == ("told", 0.7, 1)


class Favours(Feature):
    """A feature with a table of its own: who owes the player a favour. Its migration lives with it and
    takes the next number of the save's one sequence (``game.store.schema``)."""

    name: ClassVar[str] = "favours"
    tables: ClassVar[tuple[str, ...]] = ("favours",)
    migrations: ClassVar[tuple[Migration, ...]] = (
        Migration(len(default_registry().schema().migrations) + 1, "favours",
                  "CREATE TABLE favours (npc TEXT PRIMARY KEY, owed INTEGER NOT NULL) WITHOUT ROWID;"),
    )

    def load(self, rows: Rows) -> dict[str, int]:
        return {str(row["npc"]): int(str(row["owed"])) for row in rows.get("favours", ())}

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> Any:
        return state

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        return StepResult()


def _with_favours() -> Registry:
    registry = Registry()
    register_builtin(registry)
    registry.register_feature(Favours())
    return registry


async def test_a_features_migration_builds_its_table_in_a_new_save_and_upgrades_an_older_one(tmp_path: Path) -> None:
    builtin, schema = default_registry().schema(), _with_favours().schema()
    assert schema.current == builtin.current + 1 and schema.owner_of("favours") == "favours"
    async with await SaveDatabase.open(tmp_path / "new.sqlite", schema=schema, create=True, world_id="w") as db:
        assert await db.read_rows("favours") == []
        assert (await db.conn.execute_fetchall("PRAGMA user_version"))[0][0] == schema.current
    older = tmp_path / "older.sqlite"
    async with await SaveDatabase.open(older, schema=builtin, create=True, world_id="w") as db:
        await db.conn.execute("INSERT INTO meta (key, value) VALUES ('kept', 'yes')")
    async with await SaveDatabase.open(older, schema=schema) as db:  # upgraded step by step, rows kept
        assert (await db.conn.execute_fetchall("PRAGMA user_version"))[0][0] == schema.current
        await db.conn.execute("INSERT INTO favours (npc, owed) VALUES ('npc-hob', 2)")
        assert Favours().load({"favours": await db.read_rows("favours")}) == {"npc-hob": 2}
        assert (await db.meta())["kept"] == "yes"
    # A game without the feature reads the upgraded save as one from a newer Kith, and leaves it be.
    with pytest.raises(SaveError, match=f"save format {schema.current}; this version reads up to {builtin.current}"):
        await SaveDatabase.open(older, schema=builtin)
