"""Meta-path patterns in retrieval: which two-hop facts they raise, how many places they take, and where
patterns come from (the shipped defaults, a world's ``[[metapaths]]``, the ``[retrieval]`` settings).

The graphs here are crowded on purpose: Mira has more recent ties than retrieval keeps places for, so a
fact two steps away survives only when a pattern raises it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.graph import index_of, make_edge, make_node, rows
from helpers.saves import SCHEMA

from game.config import load_settings
from game.engine.session import GameSession
from game.engine.tuning import retrieval_settings
from game.errors import ContentError, KithError
from game.graph.index import GraphIndex
from game.graph.knowing_terms import PUBLIC
from game.graph.knowledge import Knowing
from game.graph.metapaths import (
    DEFAULT_PATTERNS,
    MAX_PLACES_SHARE,
    MetaPath,
    active_patterns,
    combine,
    make_pattern,
    patterns_from_json,
    patterns_to_json,
)
from game.graph.models import Edge, Node
from game.graph.retrieve import RetrievalSettings, retrieve, retrieve_scoped
from game.world import load_world

ROOT = Path(__file__).resolve().parent
OFF = RetrievalSettings(patterns=())
ON = RetrievalSettings()

MIRA, OREN, VELL, DAG, GUILD, TOMAS = (make_node("Mira Sallow"), make_node("Oren Sallow"), make_node("Vell Harrow"),
                                       make_node("Dag Mercer"), make_node("Lantern Guild", node_type="group"),
                                       make_node("Tomas Reed"))


def crowded(extra: list[Edge], crowd: int = 25) -> tuple[list[Node], list[Edge]]:
    """Mira with ``crowd`` recent friends (turns 50+), the first few with newer news of their own (turns
    80+), plus ``extra`` relations (old ones, typically): without a pattern, the extras lose their places."""
    friends = [make_node(f"Friend {i:02d}") for i in range(crowd)]
    strangers = [make_node(f"Stranger {i:02d}") for i in range(5)]
    # Weaker than the family ties below, so the walk (20 strongest per person) still follows those.
    edges = [make_edge(MIRA, f, "TRUSTS", 0.4, valid_at=50 + i) for i, f in enumerate(friends)]
    newest = friends[::-1][: len(strangers)]
    edges += [make_edge(f, s, "KNOWS", 0.3, valid_at=80 + i) for i, (f, s) in enumerate(zip(newest, strangers, strict=True))]
    return [MIRA, OREN, VELL, DAG, GUILD, TOMAS, *friends, *strangers], edges + extra


def kept(found_edges: list[Edge]) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.relation) for e in found_edges}


async def test_a_relatives_fear_is_told_with_the_tie_that_leads_to_it() -> None:
    kin = make_edge(MIRA, OREN, "KIN_OF", 0.5, valid_at=1)
    fear = make_edge(OREN, VELL, "FEARS", -0.4, valid_at=2)
    index = index_of(rows(*crowded([kin, fear])))
    plain = await retrieve(index, "Mira Sallow", (), OFF)
    assert (OREN.id, VELL.id, "FEARS") not in kept(plain.edges)  # 25 newer ties win without a pattern
    raised = await retrieve(index, "Mira Sallow", (), ON)
    assert {(MIRA.id, OREN.id, "KIN_OF"), (OREN.id, VELL.id, "FEARS")} <= kept(raised.edges)
    assert len(raised.edges) == 20
    assert raised.boosts == {kin.id: 0.9, fear.id: 0.9}
    assert "Oren Sallow** → **Vell Harrow** (FEARS)" in raised.npc_context
    # Shown in the contract's order all the same: newest first, so the raised old facts come last.
    assert [e.valid_at for e in raised.edges] == sorted((e.valid_at for e in raised.edges), reverse=True)


async def test_each_step_matches_either_direction_but_the_order_of_steps_matters() -> None:
    member = make_edge(MIRA, GUILD, "MEMBER_OF", 0.5, valid_at=1)
    leads = make_edge(TOMAS, GUILD, "LEADS", 0.7, valid_at=1)  # points into the guild, as LEADS does
    index = index_of(rows(*crowded([member, leads])))
    assert (TOMAS.id, GUILD.id, "LEADS") in kept((await retrieve(index, "Mira Sallow", (), ON)).edges)
    backwards = RetrievalSettings(patterns=(MetaPath(("LEADS", "MEMBER_OF"), 0.9),))
    assert (TOMAS.id, GUILD.id, "LEADS") not in kept((await retrieve(index, "Mira Sallow", (), backwards)).edges)


async def test_without_a_matching_path_the_ranking_is_exactly_the_plain_one() -> None:
    knows = make_edge(MIRA, OREN, "KNOWS", 0.5, valid_at=1)
    far = make_edge(OREN, VELL, "FEARS", -0.4, valid_at=2)  # KNOWS, FEARS is no pattern
    index = index_of(rows(*crowded([knows, far])))
    on, off = await retrieve(index, "Mira Sallow", (), ON), await retrieve(index, "Mira Sallow", (), OFF)
    assert on.npc_context == off.npc_context and on.boosts == {}


async def test_a_seeds_own_relations_are_never_raised() -> None:
    # Oren FEARS Mira is one hop from Mira: it ranks as always, whatever path also reaches it.
    kin = make_edge(MIRA, OREN, "KIN_OF", 0.5, valid_at=1)
    fears_her = make_edge(OREN, MIRA, "FEARS", -0.4, valid_at=1)
    index = index_of(rows(*crowded([kin, fears_her])))
    assert (await retrieve(index, "Mira Sallow", (), ON)).boosts == {}


async def test_raised_facts_take_at_most_half_the_places() -> None:
    relatives = [make_node(f"Cousin {i:02d}") for i in range(8)]
    feared = [make_node(f"Terror {i:02d}") for i in range(8)]
    extra = [make_edge(MIRA, c, "KIN_OF", 0.5, valid_at=1) for c in relatives]
    extra += [make_edge(c, t, "FEARS", -0.5, valid_at=2) for c, t in zip(relatives, feared, strict=True)]
    nodes, edges = crowded(extra)
    index = index_of(rows(nodes + relatives + feared, edges))
    found = await retrieve(index, "Mira Sallow", (), ON)
    raised = [e for e in found.edges if e.id in found.boosts]
    assert len(raised) == int(20 * MAX_PLACES_SHARE) == 10
    assert sum(e.relation in ("TRUSTS", "KNOWS") for e in found.edges) == 10  # the newest keep the rest


async def test_a_heavier_pattern_wins_when_raised_facts_compete() -> None:
    kin = [make_node(f"Cousin {i:02d}") for i in range(6)]
    extra = [make_edge(MIRA, c, "KIN_OF", 0.5, valid_at=1) for c in kin]
    extra += [make_edge(c, VELL, "FEARS", -0.5, valid_at=3) for c in kin[:3]]
    extra += [make_edge(c, DAG, "OWES", -0.5, valid_at=4) for c in kin[3:]]
    nodes, edges = crowded(extra)
    index = index_of(rows(nodes + kin, edges))
    settings = RetrievalSettings(limit=8, patterns=(MetaPath(("KIN_OF", "FEARS"), 0.9), MetaPath(("KIN_OF", "OWES"), 0.5)))
    found = await retrieve(index, "Mira Sallow", (), settings)
    raised = [e for e in found.edges if e.id in found.boosts]
    assert len(raised) == 4 and {found.boosts[e.id] for e in raised} == {0.9}  # the 4 places: KIN_OF, FEARS
    assert all(e.relation != "OWES" for e in found.edges)


async def test_scoped_retrieval_keeps_the_raised_facts_in_the_union() -> None:
    kin = make_edge(MIRA, OREN, "KIN_OF", 0.5, valid_at=1)
    fear = make_edge(OREN, VELL, "FEARS", -0.4, valid_at=2)
    nodes, edges = crowded([kin, fear])
    writes = rows(nodes, edges)
    for edge in edges:
        writes.knowings[(edge.id, PUBLIC)] = Knowing(edge_id=edge.id, knower=PUBLIC, how="authored", source=None,
                                                     confidence=1.0, since_turn=edge.valid_at)
    index = index_of(writes)
    scoped = await retrieve_scoped(index, "Mira Sallow", (), [MIRA], ON)
    assert {kin.id, fear.id} <= {e.id for e in scoped.retrieval.edges}
    assert scoped.retrieval.boosts == {kin.id: 0.9, fear.id: 0.9}


@pytest.mark.parametrize(("relations", "weight", "message"), [
    (["KIN_OF"], 0.5, "exactly 2 relations"),
    (["KIN_OF", "FEARS", "OWES"], 0.5, "exactly 2 relations"),
    (["kin_of", "FEARS"], 0.5, "UPPER_SNAKE_CASE"),
    (["KIN_OF", "FEARS"], 0.0, "above 0 and at most 1"),
    (["KIN_OF", "FEARS"], 1.5, "above 0 and at most 1"),
    (["KIN_OF", "FEARS"], True, "above 0 and at most 1"),
])
def test_a_malformed_pattern_is_refused_with_what_to_change(relations: list[str], weight: float, message: str) -> None:
    with pytest.raises(KithError, match=message):
        make_pattern(relations, weight, "world")


def test_a_later_source_overrides_a_pairs_weight_and_patterns_round_trip_through_the_save() -> None:
    world = (MetaPath(("KIN_OF", "FEARS"), 0.4, "world"), MetaPath(("ALLY_OF", "OWES"), 0.85, "world"))
    combined = combine(DEFAULT_PATTERNS, world)
    assert len(combined) == len(DEFAULT_PATTERNS) + 1
    assert next(p for p in combined if p.relations == ("KIN_OF", "FEARS")).weight == 0.4
    assert active_patterns(False, world) == ()
    assert patterns_from_json(patterns_to_json(world)) == world
    assert patterns_from_json("not json") == () and patterns_from_json(None) == ()


def _world_with(tmp_path: Path, metapaths: str) -> Path:
    content = tmp_path / "content"
    shutil.copytree(ROOT / "fixtures" / "worlds" / "tiny", content / "tiny")
    with (content / "tiny" / "world.toml").open("a", encoding="utf-8") as world:
        world.write("\n" + metapaths)
    return content


def test_a_world_adds_patterns_by_any_name_the_vocabulary_knows(tmp_path: Path) -> None:
    content = _world_with(tmp_path, '[[metapaths]]\nrelations = ["FAMILY_OF", "LED_BY"]\nweight = 0.7\n')
    assert load_world(content, "tiny").metapaths == (MetaPath(("KIN_OF", "LEADS"), 0.7, "world"),)


@pytest.mark.parametrize(("table", "message"), [
    ('[[metapaths]]\nrelations = ["KIN_OF", "OWE"]\n', r"world.toml: metapaths\[0\].relations\[1\]: unknown relation 'OWE'.*OWES"),
    ('[[metapaths]]\nrelations = ["KIN_OF", "FEARS", "OWES"]\n', r"world.toml: metapaths.0..relations"),
    ('[[metapaths]]\nrelations = ["KIN_OF", "FEARS"]\nweight = 2\n', r"world.toml: metapaths.0..weight"),
    ('[[metapaths]]\nrelations = ["kin of", "FEARS"]\n', r"world.toml: metapaths.0..relations.0"),
])
def test_a_bad_world_pattern_is_a_load_error_naming_file_and_field(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ContentError, match=message):
        load_world(_world_with(tmp_path, table), "tiny")


def test_the_settings_turn_patterns_off_or_add_the_discovered_ones(tmp_path: Path) -> None:
    world = (MetaPath(("ALLY_OF", "OWES"), 0.85, "world"),)
    found = (MetaPath(("ALLY_OF", "TRUSTS"), 0.7, "discovered"),)
    default = load_settings(env={}, cwd=tmp_path)
    assert default.retrieval.metapaths and not default.retrieval.discovered_patterns
    assert retrieval_settings(default, world, found).patterns == combine(DEFAULT_PATTERNS, world)
    (tmp_path / "kith.toml").write_text("[retrieval]\ndiscovered_patterns = true\n", encoding="utf-8")
    assert found[0] in retrieval_settings(load_settings(env={}, cwd=tmp_path), world, found).patterns
    (tmp_path / "kith.toml").write_text("[retrieval]\nmetapaths = false\ndiscovered_patterns = true\n", encoding="utf-8")
    assert retrieval_settings(load_settings(env={}, cwd=tmp_path), world, found).patterns == ()


async def test_a_game_uses_its_worlds_patterns_and_keeps_them_for_the_command_line(tmp_path: Path) -> None:
    content = _world_with(tmp_path, '[[metapaths]]\nrelations = ["ALLY_OF", "OWES"]\n')
    settings = load_settings(env={}, cwd=tmp_path).model_copy(
        update={"content_dir": content, "saves_dir": tmp_path / "saves", "world": "tiny", "narrator": "offline"})
    async with await GameSession.open(settings, new=True) as session:
        assert MetaPath(("ALLY_OF", "OWES"), 0.8, "world") in session.retrieval_settings.patterns
        path = session.save_path
    from game.store.database import SaveDatabase

    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        assert patterns_from_json((await db.meta())["metapaths"]) == (MetaPath(("ALLY_OF", "OWES"), 0.8, "world"),)


async def test_retrieval_over_an_index_the_size_of_one_hop_is_unchanged() -> None:
    # No second hop at all: patterns cost nothing and change nothing.
    index = GraphIndex()
    index.apply(rows([MIRA, OREN], [make_edge(MIRA, OREN, "KIN_OF", 0.5)]))
    on, off = await retrieve(index, "Mira Sallow", (), ON), await retrieve(index, "Mira Sallow", (), OFF)
    assert on.npc_context == off.npc_context != ""


def test_the_documented_world_example_loads(tmp_path: Path) -> None:
    import re

    page = (ROOT.parent / "docs" / "world-format.md").read_text(encoding="utf-8")
    example = next(body for body in re.findall(r"```toml\n(.*?)```", page, re.S) if "[[metapaths]]" in body)
    assert load_world(_world_with(tmp_path, example), "tiny").metapaths == (
        MetaPath(("ALLY_OF", "OWES"), 0.85, "world"),)


def test_the_documented_settings_are_the_defaults() -> None:
    page = (ROOT.parent / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert "metapaths = true" in page and "discovered_patterns = false" in page
    assert RetrievalSettings().patterns == DEFAULT_PATTERNS


async def test_changing_settings_mid_game_keeps_the_worlds_and_the_saves_patterns(tmp_path: Path) -> None:
    # The settings screen swaps the narrator with new settings; the patterns it then walks with must still
    # hold the world's own (the crowd world's ALLY_OF, OWES) and, when enabled, the save's discovered ones.
    (tmp_path / "kith.toml").write_text("[retrieval]\ndiscovered_patterns = true\n", encoding="utf-8")
    settings = load_settings(env={}, cwd=tmp_path).model_copy(update={
        "content_dir": ROOT / "fixtures" / "metapath-worlds", "saves_dir": tmp_path / "saves",
        "world": "crowd", "narrator": "offline"})
    found = MetaPath(("ALLY_OF", "TRUSTS"), 0.7, "discovered")
    async with await GameSession.open(settings, save="hall", new=True) as session:
        path = session.save_path
    from game.store import metapath_patterns
    from game.store.database import SaveDatabase

    async with await SaveDatabase.open(path, schema=SCHEMA) as db:  # what `kith graph patterns --discover` keeps
        await metapath_patterns.replace(db, [metapath_patterns.KeptPattern(found, 3, 0.5, 0)])
    async with await GameSession.open(settings, save="hall") as session:
        before = session.retrieval_settings.patterns
        assert MetaPath(("ALLY_OF", "OWES"), 0.85, "world") in before and found in before
        from game.narrator.offline import OfflineNarrator

        await session.swap_narrator(OfflineNarrator(session.world), session.settings.model_copy(update={"seed": 7}))
        assert session.retrieval_settings.patterns == before and session.settings.seed == 7
