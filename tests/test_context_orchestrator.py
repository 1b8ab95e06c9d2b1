"""The context orchestrator: each provider's section within its share of one token budget and its time
limit. A slow or failing provider is left out, the rest go on, and the omission is kept. Test-only
providers stand in for the minds' sections; the graph is the real Brinefall graph in memory."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from game.config import ContextConfig, load_settings
from game.graph.index import GraphIndex
from game.mind.context import ComposedContext, ContextSettings, compose
from game.mind.context_budget import allot, estimate_tokens, line_cost, trim
from game.mind.sections import ContextQuery, Section, SectionLine
from game.world.scene import SceneState


class Lines:
    """A test-only provider: ``count`` lines of about ``size`` characters about one person, heaviest first."""

    def __init__(self, name: str, count: int, size: int = 80, about: str = "npc-hob-tarrant",
                 delay: float = 0.0, spin: float = 0.0, fail: bool = False) -> None:
        self._name, self.count, self.size, self.about = name, count, size, about
        self.delay, self.spin, self.fail = delay, spin, fail

    @property
    def name(self) -> str:
        return self._name

    async def provide(self, query: ContextQuery) -> Section:
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.spin:
            end = time.perf_counter() + self.spin
            while time.perf_counter() < end:  # work that never awaits: it cannot be interrupted
                pass
        if self.fail:
            raise RuntimeError("the memory table is locked")
        return Section(self._name, tuple(
            SectionLine(self.about, f"{self._name} line {i}: " + "x" * self.size, weight=1.0 - i / 100,
                        facts={"index": i}) for i in range(self.count)))


def query() -> ContextQuery:
    return ContextQuery(turn=3, player_input="ask hob about ness", focus=("npc-hob-tarrant",), graph=GraphIndex(),
                        scene=SceneState())


def cost(line: SectionLine, section: str = "MEMORY") -> int:
    return line_cost(section, line.text, estimate_tokens)


async def test_every_section_fits_the_budget_and_the_lightest_lines_go_first() -> None:
    settings = ContextSettings(budget=400, shares={"MEMORY": 0.5, "KNOWLEDGE": 0.5})
    context = await compose(query(), [Lines("MEMORY", 40), Lines("KNOWLEDGE", 40)], settings)

    assert context.tokens <= 400
    memory = context.section("MEMORY")
    assert memory is not None and 0 < len(memory.lines) < 40 and memory.dropped == 40 - len(memory.lines)
    kept = [int(line.facts["index"]) for line in memory.lines]
    assert kept == list(range(len(kept)))  # the heaviest (first) lines stayed, in the provider's order
    assert sum(cost(line) for line in memory.lines) == memory.tokens <= memory.allotted


async def test_a_share_one_section_does_not_need_flows_to_the_others() -> None:
    settings = ContextSettings(budget=600, shares={"MEMORY": 0.5, "KNOWLEDGE": 0.5})
    context = await compose(query(), [Lines("MEMORY", 40), Lines("KNOWLEDGE", 1)], settings)

    memory, knowledge = context.section("MEMORY"), context.section("KNOWLEDGE")
    assert memory is not None and knowledge is not None
    assert len(knowledge.lines) == 1
    assert memory.tokens > 300  # more than its half: KNOWLEDGE's unused share came to it
    assert context.tokens <= 600
    assert 600 - context.tokens < cost(memory.lines[0])  # nothing that could fit was left out


async def test_a_provider_that_runs_out_of_time_is_left_out_and_the_rest_go_on() -> None:
    settings = ContextSettings(time_limit_ms=250, time_limits_ms={"MEMORY": 30})
    context = await compose(query(), [Lines("MEMORY", 3, delay=2.0), Lines("KNOWLEDGE", 3)], settings)

    assert context.section("MEMORY") is None
    assert [o.name for o in context.omitted] == ["MEMORY"]
    assert "took longer than 30 ms" in context.omitted[0].reason
    knowledge = context.section("KNOWLEDGE")
    assert knowledge is not None and len(knowledge.lines) == 3
    assert context.ms < 1000  # it did not wait for the slow provider


async def test_work_that_never_awaits_past_its_limit_is_left_out_too() -> None:
    settings = ContextSettings(time_limits_ms={"SCENE": 20})
    context = await compose(query(), [Lines("SCENE", 2, spin=0.08), Lines("KNOWLEDGE", 1)], settings)
    assert [o.name for o in context.omitted] == ["SCENE"] and context.section("KNOWLEDGE") is not None


async def test_a_provider_that_fails_is_left_out_with_the_reason() -> None:
    context = await compose(query(), [Lines("MEMORY", 2, fail=True), Lines("KNOWLEDGE", 1)])
    assert context.omitted[0].name == "MEMORY"
    assert context.omitted[0].reason == "failed (RuntimeError: the memory table is locked)"
    assert context.section("KNOWLEDGE") is not None


async def test_a_calibrated_count_keeps_fewer_lines_within_the_same_budget() -> None:
    providers = [Lines("MEMORY", 60)]
    plain = await compose(query(), providers, ContextSettings(budget=500))
    hungry = await compose(query(), providers, ContextSettings(budget=500), count=lambda text: 2 * estimate_tokens(text))
    assert 0 < len(hungry.lines("MEMORY")) < len(plain.lines("MEMORY"))
    assert hungry.tokens <= 500


async def test_lines_are_read_by_person_and_the_context_survives_storage() -> None:
    context = await compose(query(), [Lines("MEMORY", 2), Lines("SCENE", 1, about="npc-tibby-tarrant"),
                                      Lines("KNOWLEDGE", 0)])
    assert list(context.about("npc-hob-tarrant")) == ["MEMORY"]
    assert context.facts("MEMORY", "npc-hob-tarrant") == [{"index": 0}, {"index": 1}]
    assert context.lines("SCENE", "npc-hob-tarrant") == ()
    assert ComposedContext.from_json(context.to_json()) == context


def test_allotments_never_exceed_the_budget_nor_a_sections_need() -> None:
    given = allot(100, {"A": 70, "B": 70, "C": 5}, {"A": 1.0, "B": 1.0, "C": 1.0})
    assert given["C"] == 5 and sum(given.values()) <= 100 and given["A"] + given["B"] >= 94
    assert allot(100, {"A": 10}, {}) == {"A": 10}
    assert trim([5, 5, 5], [0.1, 0.9, 0.5], 10) == [1, 2]


def test_the_context_table_of_kith_toml_sets_budget_shares_and_limits(tmp_path: Path) -> None:
    (tmp_path / "kith.toml").write_text(
        '[context]\nbudget = 1200\ntime_limit_ms = 80\nshares = { memory = 0.6, knowledge = 0.2 }\n'
        'time_limits_ms = { MEMORY = 40 }\n', encoding="utf-8")
    context = load_settings(env={}, cwd=tmp_path).context
    assert context == ContextConfig(budget=1200, time_limit_ms=80, shares={"MEMORY": 0.6, "KNOWLEDGE": 0.2},
                                    time_limits_ms={"MEMORY": 40})
    assert load_settings(env={}, cwd=None).context.budget == 2000


@pytest.mark.parametrize("table", ['budget = 0', 'shares = { MEMORY = -1 }', 'shares = { "no such!" = 1 }',
                                   'colour = "red"'])
def test_a_context_setting_that_cannot_be_used_is_refused_with_its_name(tmp_path: Path, table: str) -> None:
    from game.errors import KithError

    (tmp_path / "kith.toml").write_text(f"[context]\n{table}\n", encoding="utf-8")
    with pytest.raises(KithError, match="context"):
        load_settings(env={}, cwd=tmp_path)


def test_the_documented_context_table_loads_and_its_shares_are_the_defaults(tmp_path: Path) -> None:
    import re

    from game.engine.tuning import context_settings
    from game.mind.context import DEFAULT_SHARES

    doc = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", doc, re.S)
    assert block is not None
    (tmp_path / "kith.toml").write_text(block.group(1), encoding="utf-8")
    loaded = load_settings(env={}, cwd=tmp_path)
    assert loaded.context.budget == 2000 and loaded.context.shares == dict(DEFAULT_SHARES)
    settings = context_settings(loaded)
    assert settings.time_limit("MEMORY") == 100 and settings.time_limit("SCENE") == 250
