"""``kith explore`` finds an exception in the engine, shrinks it to the commands that raise it, and saves a
script that fails while the bug is there (issue 28: "any exception").

No world content makes Kith's own engine raise (the world loader refuses what the story could not play),
so the bug is planted where a third party's code runs inside every turn: a feature registered beside Kith's
own, as a plugin author would write it, that breaks on one content path (a revelation told). The world is
the flawed test world; only the feature is the test's. Real games, offline, in temporary saves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from game.config import load_settings
from game.explore.explorer import explore, reproduces
from game.explore.lanes import Options
from game.explore.scripts import save_failures
from game.features.feature import Feature, Rows, StepResult, TurnFacts
from game.registry import Registry, register_builtin
from game.script.parser import load_script
from game.script.runner import RunOptions, ScriptRunner
from game.store.rows import RowWrite
from game.world import load_world

WORLDS = Path(__file__).parent / "fixtures" / "explore-worlds"
BROKEN = "a revelation with no one to gossip to"


class Gossip(Feature):
    """A plugin's feature with a bug: it passes on every revelation the player hears, and raises when it
    has nobody to pass it to (Tobin's confession in the shed, where he is alone with the player)."""

    name: ClassVar[str] = "gossip-plugin"

    def load(self, rows: Rows) -> None:
        return None

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> None:
        return None

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        told = [act for act in (facts.world_ir.acts or []) if act.kind == "revealed"] if facts.world_ir else []
        if told and len(facts.present) <= 2:
            raise LookupError(f"{BROKEN} ({told[0].detail})")
        return StepResult()


def registry_with_the_bug() -> Registry:
    registry = Registry()
    register_builtin(registry)
    registry.register_feature(Gossip())
    return registry


def test_an_exception_in_a_turn_is_found_shrunk_and_saved_as_a_failing_script(tmp_path: Path) -> None:
    settings = load_settings().model_copy(update={"content_dir": WORLDS})
    world = load_world(WORLDS, "flawed")
    registry = registry_with_the_bug()
    found = asyncio.run(explore(settings, world, Options(turns=30, games=8, seed=0), registry=registry))
    report = found.report()
    raised = [fault for fault in report["faults"] if fault["kind"] == "exception"]
    assert len(raised) == 1, report["faults"]
    fault = raised[0]
    assert fault["detail"] == f"LookupError: {BROKEN} (Tobin Hale:wants-boat)"
    # Shrunk to the way there and the question that makes Tobin confess, nothing else.
    assert fault["commands"] == ["east", "ask Tobin about boat"]

    # The same commands raise it again; without the bug (Kith's own features) they do not.
    assert asyncio.run(reproduces(settings, world, 0, fault["commands"], "exception", registry)) == [fault["detail"]]
    assert asyncio.run(reproduces(settings, world, 0, fault["commands"], "exception")) == []

    checks = [found.faults[(f["kind"], f["detail"])].checks for f in report["faults"]]
    paths = save_failures(tmp_path / "failures", world.id, WORLDS, 0, list(zip(report["faults"], checks, strict=True)))
    script_path = next(path for path in paths if "-exception-" in path.name)
    script = load_script(script_path)
    buggy = asyncio.run(ScriptRunner(settings, RunOptions(registry=registry)).run_test(script, script.tests[0]))
    assert not buggy.passed
    assert buggy.error is not None and BROKEN in buggy.error
    # Once the bug is fixed (here: the feature taken out) the saved script passes: a regression test as it is.
    fixed = asyncio.run(ScriptRunner(settings).run_test(script, script.tests[0]))
    assert fixed.passed, fixed.failures
