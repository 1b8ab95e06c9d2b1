"""``kith graph dump`` and ``retrieve`` on the quick path (plain sqlite3 and plain records, issue 15) print
exactly what the full path (``SaveDatabase`` and the pydantic models) prints, and hand it the saves and
requests it alone can serve: a save older than this code, ``--as``, settings beyond folders."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.graph import edge_call, node_call
from helpers.saves import CURRENT_VERSION, SCRIPTS
from test_cli_graph import HARBOUR, Kith

from game.__main__ import build_parser
from game.cli.graph_common import handler
from game.config import RetrievalConfig, load_settings
from game.graph.models import MAX_NAME_CHARS
from game.graph.retrieve import RetrievalSettings
from game.settings_source import Folders, SettingsSource, gather_settings
from game.store.graph_view import LONGEST_NAME

LATER = [
    {"nodes": [node_call("Mira", labels=["thief", "Fox"], summary="A thief who now keeps the ledger.",
                         attributes={"title": "the Fox", "debts": [1, 2], "note": None, "seen": {"at": "docks"}}),
               node_call("Ada Lin-Yao", aliases=["Ada"], summary="A 渔民 of the outer pier.")]},
    {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.2, "Mira barely trusts Tomas after the ledger."),
               edge_call("Ada Lin-Yao", "Oren", "KIN_OF", 0.9, "Ada is Oren's sister on the outer pier.")],
     "closeEdges": [{"sourceName": "Oren", "targetName": "Mira", "relation": "FEARS"}]},
]
MESSAGES = [["Mira"], ["ask", "the", "Fox", "about", "Ada"], ["Tomas", "and", "Oren"], ["nobody", "here"],
            ["--cast", "Tomas", "I", "wait."], ["--cast", "Harbour Watch", "hello"]]


@pytest.fixture
def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kith:
    kith = Kith(tmp_path, capsys, monkeypatch)
    kith.upsert("demo", HARBOUR, "--turn", "1")
    kith.upsert("demo", LATER, "--turn", "3")
    return kith


def full_path(kith: Kith, command: str, *words: str) -> tuple[int, str]:
    """What the pydantic, aiosqlite path prints for ``kith graph WORDS``."""
    args = build_parser(["graph"]).parse_args(["graph", *words])
    settings = load_settings(flags={"saves_dir": kith.saves})
    code = handler("graph_read", command)(args, settings)
    return code, kith.capsys.readouterr().out


def test_dump_prints_what_the_full_path_prints(kith: Kith) -> None:
    code, quick, err = kith("dump", "--save", "demo")
    assert (code, err) == (0, "")
    assert full_path(kith, "dump", "dump", "--save", "demo") == (0, quick)
    dumped = json.loads(quick)
    assert any("invalidAt" in edge for edge in dumped["edges"]) and any("invalidAt" not in e for e in dumped["edges"])
    assert {"title": "the Fox", "debts": [1, 2], "note": None, "seen": {"at": "docks"}} in \
        [node["attributes"] for node in dumped["nodes"]]


@pytest.mark.parametrize("words", MESSAGES, ids=[" ".join(m) for m in MESSAGES])
def test_retrieve_prints_what_the_full_path_prints(kith: Kith, words: list[str]) -> None:
    code, quick, err = kith("retrieve", "--save", "demo", *words)
    assert (code, err) == (0, "")
    if words[0] == "Mira":
        assert json.loads(quick)["edgeCount"] > 0
    assert full_path(kith, "retrieve_command", "retrieve", "--save", "demo", *words) == (0, quick)


def test_retrieve_reads_the_budget_from_the_settings_file(kith: Kith) -> None:
    """A ``[retrieval]`` table is more than folders: it is validated, and the quick read uses it."""
    config = kith.root / "kith.toml"
    config.write_text("[retrieval]\nlimit = 1\n", encoding="utf-8")
    kith.monkeypatch.setenv("KITH_CONFIG", str(config))
    found = kith.json("retrieve", "--save", "demo", "Mira")
    assert found["edgeCount"] == 1
    config.write_text("[retrieval]\nlimit = 0\n", encoding="utf-8")
    code, out, err = kith("retrieve", "--save", "demo", "Mira")
    assert (code, out) == (2, "") and "retrieval.limit" in err


def test_retrieve_as_a_knower_takes_the_full_path(kith: Kith) -> None:
    found = kith.json("retrieve", "--save", "demo", "--as", "Mira", "Tomas")
    assert found == json.loads(full_path(kith, "retrieve_command", "retrieve", "--save", "demo", "--as", "Mira",
                                         "Tomas")[1])


def test_a_save_older_than_the_code_is_migrated_by_the_full_path_and_dumped(kith: Kith) -> None:
    path = kith.saves / "old.sqlite"
    conn = sqlite3.connect(path)
    for script in SCRIPTS[:2]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 2")
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [("application", "kith"), ("world", "w")])
    conn.execute("INSERT INTO nodes (id, name, type, summary, first_seen_turn, last_seen_turn) "
                 "VALUES ('npc-mira', 'Mira', 'individual', 'A thief.', 0, 0)")
    conn.commit()
    conn.close()
    dumped = kith.json("dump", "--save", "old")
    assert [node["name"] for node in dumped["nodes"]] == ["Mira"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
    conn.close()


def test_damage_missing_saves_and_other_files_are_one_clear_message(kith: Kith) -> None:
    code, out, err = kith("dump", "--save", "nothing")
    assert (code, out) == (2, "") and "there is no save 'nothing'" in err
    (kith.saves / "notes.sqlite").write_text("not a database at all", encoding="utf-8")
    code, out, err = kith("retrieve", "--save", "notes", "Mira")
    assert (code, out) == (2, "") and err.startswith("kith: notes.sqlite") and "Traceback" not in err
    with sqlite3.connect(kith.save_file()) as conn:
        conn.execute("UPDATE nodes SET aliases = 'not json' WHERE name = 'Mira'")
    conn.close()
    for words in (["dump"], ["retrieve", "Mira"]):
        code, out, err = kith(words[0], "--save", "demo", *words[1:])
        assert (code, out) == (2, "") and "demo is damaged" in err and "kith saves check demo" in err, err


def test_the_quick_reads_keep_the_full_paths_bounds() -> None:
    assert LONGEST_NAME == MAX_NAME_CHARS
    defaults = RetrievalConfig()
    assert RetrievalSettings() == RetrievalSettings(max_hops=defaults.max_hops, hub_threshold=defaults.hub_threshold,
                                                    max_fanout=defaults.max_fanout, limit=defaults.limit)


@pytest.mark.parametrize(("data", "quick"), [
    ({}, True),
    ({"saves_dir": "/x/saves", "world": "tiny"}, True),
    ({"saves_dir": Path("/x"), "content_dir": "c", "worlds_dir": "w"}, True),
    ({"saves_dir": 3}, False),
    ({"world": ["tiny"]}, False),
    ({"narrator": "offline"}, False),
    ({"llm": {"model": "m"}}, False),
])
def test_only_settings_that_name_nothing_but_folders_skip_validation(data: dict[str, Any], quick: bool) -> None:
    folders = SettingsSource(data).folders()
    assert (folders is not None) == quick
    if folders is not None:
        settings = load_settings(flags=data)
        assert folders == Folders(settings.saves_dir, settings.content_dir, settings.worlds_dir, settings.world)


def test_gathering_reads_file_environment_and_flags_in_order(tmp_path: Path) -> None:
    config = tmp_path / "kith.toml"
    config.write_text('saves_dir = "from-file"\nworld = "tiny"\n', encoding="utf-8")
    source = gather_settings(flags={"world": "skerry"}, env={"KITH_SAVES": "from-env"}, config_file=config)
    assert source.folders() == Folders(Path("from-env"), *load_settings(config_file=config).model_dump(
        include={"content_dir", "worlds_dir"}).values(), world="skerry")
