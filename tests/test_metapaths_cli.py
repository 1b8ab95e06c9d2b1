"""``kith graph patterns [--discover]`` and ``kith graph gaps`` over real saves, in-process; discovery and
gap finding rule by rule; the discovered-pattern table on an old save; a world's patterns on the quick path.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.graph import edge_call, make_edge, make_node, node_call
from helpers.saves import CURRENT_VERSION, SCHEMA, SCRIPTS
from test_cli_graph import Kith

from game.cli import graph_gaps
from game.graph import metapaths_gaps
from game.graph.metapaths import DEFAULT_PATTERNS, MetaPath
from game.graph.metapaths_discover import DiscoverySettings, discover
from game.graph.metapaths_gaps import find_gaps
from game.store.database import SaveDatabase


@pytest.fixture
def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kith:
    return Kith(tmp_path, capsys, monkeypatch)


def town() -> dict[str, Any]:
    """Four allies each trusting a different stranger: ALLY_OF, TRUSTS leads somewhere new four times."""
    people = ["Mira", "Oren", "Sella", "Tomas", "Ash", "Bess", "Cal", "Dora"]
    edges = [edge_call(a, b, "ALLY_OF", 0.6, f"{a} and {b} stand together at the moot.")
             for a, b in (("Mira", "Oren"), ("Mira", "Sella"), ("Oren", "Tomas"))]
    edges += [edge_call(a, b, "TRUSTS", 0.5, f"{a} trusts {b} with the harbour keys.")
              for a, b in (("Oren", "Ash"), ("Sella", "Bess"), ("Tomas", "Cal"), ("Mira", "Dora"))]
    return {"nodes": [node_call(p) for p in people], "edges": edges}


def test_patterns_lists_the_defaults_in_force(kith: Kith) -> None:
    kith.upsert("demo", town(), "--turn", "1")
    listed = kith.json("patterns", "--save", "demo", "--json")
    assert listed["metapaths"] is True and listed["discoveredPatterns"] is False
    assert [(tuple(p["relations"]), p["source"], p["active"]) for p in listed["patterns"]] == [
        (p.relations, "default", True) for p in DEFAULT_PATTERNS]
    assert "candidates" not in listed
    code, out, _ = kith("patterns", "--save", "demo")
    assert code == 0 and "KIN_OF, FEARS" in out and "default" in out


def test_discover_keeps_the_survivors_in_the_save_and_lists_them_unused_until_enabled(kith: Kith) -> None:
    kith.upsert("demo", town(), "--turn", "1")
    found = kith.json("patterns", "--save", "demo", "--discover", "--json")
    verdicts = {tuple(c["relations"]): c for c in found["candidates"]}
    assert verdicts[("ALLY_OF", "TRUSTS")]["verdict"] == "kept"
    assert verdicts[("ALLY_OF", "TRUSTS")]["yield"] >= 3
    assert all(set(c) >= {"relations", "weight", "yield", "novelty", "fanoutSkipped", "verdict"}
               for c in found["candidates"])
    discovered = [p for p in found["patterns"] if p["source"] == "discovered"]
    assert ["ALLY_OF", "TRUSTS"] in [p["relations"] for p in discovered]
    assert all(not p["active"] and p["discoveredAtTurn"] == 1 for p in discovered)
    # Kept in the save: a plain listing shows them again, read from the table.
    again = kith.json("patterns", "--save", "demo", "--json")
    assert [p for p in again["patterns"] if p["source"] == "discovered"] == discovered
    code, out, _ = kith("patterns", "--save", "demo")
    assert code == 0 and "ALLY_OF, TRUSTS" in out and "not used" in out and "discovered_patterns = false" in out


def test_discovered_patterns_are_used_by_retrieve_only_when_enabled(kith: Kith, tmp_path: Path) -> None:
    crowd = [node_call(f"Friend {i:02d}") for i in range(24)]
    calls: list[dict[str, Any]] = [town(), {"nodes": crowd[:8]}, {"nodes": crowd[8:16]}, {"nodes": crowd[16:]}]
    for call in calls:
        kith.upsert("demo", call, "--turn", "1")
    for start in range(0, 24, 12):  # newer than every town tie, and outnumbering the places
        kith.upsert("demo", {"edges": [edge_call("Mira", f"Friend {i:02d}", "KNOWS", 0.2, f"Mira knows Friend {i:02d}.")
                                       for i in range(start, start + 12)]}, "--turn", "5")
    kith.json("patterns", "--save", "demo", "--discover", "--json")

    def told() -> str:
        return str(kith.json("retrieve", "--save", "demo", "Mira")["npcContext"])

    assert "Oren** → **Ash**" not in told()  # discovered, but not enabled
    config = tmp_path / "kith.toml"
    kith.monkeypatch.setenv("KITH_CONFIG", str(config))
    config.write_text("[retrieval]\ndiscovered_patterns = true\n", encoding="utf-8")
    assert "Oren** → **Ash**" in told()
    config.write_text("[retrieval]\nmetapaths = false\ndiscovered_patterns = true\n", encoding="utf-8")
    assert "Oren** → **Ash**" not in told()


def test_discovery_filters_by_yield_fanout_and_novelty() -> None:
    a, b, c, d, hub = (make_node(n) for n in ("A", "B", "C", "D", "Hub"))
    spokes = [make_node(f"Spoke {i}") for i in range(6)]
    edges = [make_edge(a, b, "KIN_OF"), make_edge(b, c, "FEARS", -0.5), make_edge(b, d, "FEARS", -0.5)]
    edges += [make_edge(a, hub, "SERVES")] + [make_edge(s, hub, "HATES", -0.5) for s in spokes]
    edges += [make_edge(a, c, "KNOWS"), make_edge(a, d, "KNOWS")]  # A already knows whom B fears
    found = discover(edges, DiscoverySettings(max_fanout=5, min_yield=2, max_overlap=0.6))
    verdict = {c.relations: c for c in found.candidates}
    assert verdict[("KIN_OF", "FEARS")].verdict.startswith("overlap")  # both far ends already one hop away
    assert verdict[("SERVES", "HATES")].fanout_skipped > 0 and verdict[("SERVES", "HATES")].yield_ == 0
    assert verdict[("KIN_OF", "KIN_OF")].verdict == "yield 0 below 2"
    assert found.kept == [MetaPath(k.relations, k.weight(), "discovered") for k in found.candidates
                          if k.verdict == "kept"]
    assert discover(edges, DiscoverySettings(max_fanout=5, min_yield=2, max_overlap=0.6)).kept == found.kept
    known = discover(edges, DiscoverySettings(min_yield=1), known=[MetaPath(("KIN_OF", "FEARS"), 0.9)])
    assert {c.relations: c.verdict for c in known.candidates}[("KIN_OF", "FEARS")] == "already a pattern"


def test_gaps_lists_the_people_left_out_quietest_first(kith: Kith) -> None:
    kith.upsert("demo", {"nodes": [node_call("Mira"), node_call("Oren"), node_call("Sella"), node_call("Hermit"),
                                   node_call("The Watch", type="faction")]}, "--turn", "1")
    kith.upsert("demo", {"edges": [edge_call("Mira", "Oren", "KIN_OF", 0.8, "Mira and Oren are siblings."),
                                   edge_call("Mira", "Sella", "TRUSTS", 0.5, "Mira trusts Sella.")]}, "--turn", "2")
    kith.upsert("demo", {"edges": [edge_call("Mira", "The Watch", "FEARS", -0.5, "Mira fears The Watch.")]},
                "--turn", "20")
    found = kith.json("gaps", "--save", "demo", "--json")
    assert found["turn"] == 20
    assert [(g["name"], g["relations"], g["quietTurns"], g["reasons"]) for g in found["gaps"]] == [
        ("Hermit", 0, 19, ["no relations", "quiet"]),
        ("Oren", 1, 18, ["few relations", "quiet"]),
        ("Sella", 1, 18, ["few relations", "quiet"]),
    ]
    assert set(found["gaps"][0]) == {"id", "name", "relations", "lastLearnedTurn", "quietTurns", "reasons"}
    assert [g["name"] for g in kith.json("gaps", "--save", "demo", "--json", "--few", "0", "--quiet", "19")["gaps"]] == [
        "Hermit"]
    code, out, _ = kith("gaps", "--save", "demo")
    assert code == 0 and "Hermit: no relations, nothing new for 19 turns" in out


def test_gaps_says_one_turn_in_the_singular(kith: Kith) -> None:
    kith.upsert("demo", {"nodes": [node_call("Hermit")]}, "--turn", "1")
    kith.upsert("demo", {"nodes": [node_call("Mira")]}, "--turn", "2")
    code, out, _ = kith("gaps", "--save", "demo")
    assert code == 0 and "Hermit: no relations, nothing new for 1 turn (last at turn 1)" in out


def test_gaps_and_patterns_refuse_a_missing_save_plainly(kith: Kith) -> None:
    for command in ("gaps", "patterns"):
        code, _, err = kith(command, "--save", "nowhere")
        assert code != 0 and "nowhere" in err and "Traceback" not in err


def test_the_clis_gap_defaults_are_the_modules() -> None:
    assert (graph_gaps.FEW_RELATIONS, graph_gaps.QUIET_TURNS) == (metapaths_gaps.FEW_RELATIONS,
                                                                   metapaths_gaps.QUIET_TURNS)


def test_the_player_and_groups_are_never_gaps() -> None:
    player = make_node("Kit").model_copy(update={"attributes": {"player": True}})
    guild = make_node("Guild", node_type="group")
    assert find_gaps([player, guild], {}, 50) == []


def test_an_old_save_gets_the_table_and_discovery_works_on_it(kith: Kith, tmp_path: Path) -> None:
    at = next(i for i, script in enumerate(SCRIPTS) if "metapath_patterns" in script)
    old = tmp_path / "saves" / "old.sqlite"
    old.parent.mkdir(parents=True)
    conn = sqlite3.connect(old)
    for script in SCRIPTS[:at]:
        conn.executescript(script)
    conn.execute(f"PRAGMA user_version = {at}")
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [("application", "kith")])
    conn.commit()
    conn.close()

    async def version() -> list[tuple[Any, ...]]:
        async with await SaveDatabase.open(old, schema=SCHEMA) as db:
            return [tuple(r) for r in await db.conn.execute_fetchall("PRAGMA user_version")]

    assert asyncio.run(version()) == [(CURRENT_VERSION,)]
    kith.upsert("old", town(), "--turn", "1")
    found = kith.json("patterns", "--save", "old", "--discover", "--json")
    assert any(p["source"] == "discovered" for p in found["patterns"])


def test_retrieve_uses_the_worlds_patterns_on_the_quick_path_and_the_full_one(kith: Kith, tmp_path: Path) -> None:
    from game.config import load_settings
    from game.engine.session import GameSession

    settings = load_settings(env={}, cwd=tmp_path).model_copy(update={
        "content_dir": Path(__file__).parent / "fixtures" / "metapath-worlds", "saves_dir": kith.saves,
        "world": "crowd", "narrator": "offline"})

    async def start() -> str:
        async with await GameSession.open(settings, save="hall", new=True) as session:
            return session.save_path.stem

    name = asyncio.run(start())
    quick = kith.json("retrieve", "--save", name, "Mira Sallow")
    assert "**Dag Mercer** → **Vell Harrow** (OWES)" in quick["npcContext"]  # the world's ALLY_OF, OWES
    listed = kith.json("patterns", "--save", name, "--json")["patterns"]
    assert {"relations": ["ALLY_OF", "OWES"], "weight": 0.85, "source": "world", "active": True} in listed
    config = tmp_path / "kith.toml"
    kith.monkeypatch.setenv("KITH_CONFIG", str(config))
    config.write_text("[retrieval]\ndiscovered_patterns = true\n", encoding="utf-8")  # the full path
    assert kith.json("retrieve", "--save", name, "Mira Sallow") == quick  # nothing discovered yet: the same
