"""``kith graph ...`` driven in-process through ``game.__main__.main`` over real save files.

The JSON forms are a contract (docs/graph-cli.md): these tests pin their shapes, the exit codes, and that
bad input of every kind leaves saves untouched and creates nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.graph import edge_call, node_call
from helpers.saves import SCHEMA

from game.__main__ import main
from game.graph.ports import GraphWrites
from game.store.database import SaveDatabase, TurnRecord


class Kith:
    """Runs ``kith --saves-dir <tmp>/saves graph ...`` in-process and captures what it prints."""

    def __init__(self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = tmp_path
        self.saves = tmp_path / "saves"
        self.capsys = capsys
        self.monkeypatch = monkeypatch
        monkeypatch.chdir(tmp_path)

    def __call__(self, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            self.monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = main(["--saves-dir", str(self.saves), "graph", *args])
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *args: str, expect: int = 0) -> Any:
        code, out, err = self(*args)
        assert code == expect, err
        return json.loads(out)

    def file(self, name: str, content: Any) -> str:
        path = self.root / name
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return str(path)

    def upsert(self, save: str, calls: Any, *extra: str, expect: int = 0) -> Any:
        return self.json("upsert", "--save", save, *extra, self.file("calls.json", calls), expect=expect)

    def dump(self, save: str = "demo") -> Any:
        return self.json("dump", "--save", save)

    def save_file(self, name: str = "demo") -> Path:
        return self.saves / f"{name}.sqlite"


@pytest.fixture
def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kith:
    return Kith(tmp_path, capsys, monkeypatch)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


HARBOUR = [
    {"nodes": [node_call("Mira", aliases=["the Fox"], summary="A thief of the docks."),
               node_call("Tomas", summary="A priest with a ledger."),
               node_call("Oren", summary="A boatman."),
               node_call("Harbour Watch", type="faction", summary="The town's paid guard.")]},
    {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.7, "Mira trusts Tomas since the harbour fire."),
               edge_call("Harbour Watch", "Tomas", "HAS_MEMBER", 0.5, "Tomas wears the Watch's grey coat."),
               edge_call("Oren", "Mira", "FEARS", -0.6, "Oren fears Mira since she cut his nets.")]},
]


def harbour(kith: Kith, save: str = "demo", turn: int = 1) -> Any:
    return kith.upsert(save, HARBOUR, "--turn", str(turn))


def play_turns(path: Path, turns: int) -> None:
    async def go() -> None:
        async with await SaveDatabase.open(path, schema=SCHEMA) as db:
            for number in range(1, turns + 1):
                await db.commit_turn(TurnRecord(number, f"wait {number}", "Time passes.", ""), GraphWrites(), {})

    asyncio.run(go())


# ------------------------------------------------------------------------------------------------ upsert


def test_upsert_creates_the_save_and_prints_one_result_per_call(kith: Kith) -> None:
    results = harbour(kith)
    assert kith.save_file().exists()
    assert len(results) == 2
    first, second = results
    assert set(first) == {"nodes", "edges", "closed"}
    assert first["nodes"]["created"] == 4 and first["nodes"]["updated"] == 0
    assert first["nodes"]["results"][0] == {"id": "npc-mira", "name": "Mira", "status": "created"}
    assert second["edges"]["created"] == 3 and second["edges"]["skipped"] == 0
    member = second["edges"]["results"][1]
    assert set(member) == {"id", "source", "target", "relation", "fact"}
    assert (member["source"], member["target"], member["relation"]) == ("npc-tomas", "npc-harbour-watch", "MEMBER_OF")
    assert re.fullmatch(r"edge-member-of-[a-z0-9]{6}", member["id"])


def test_upsert_accepts_one_call_object_and_standard_input(kith: Kith) -> None:
    harbour(kith)
    call = {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.1, "Mira doubts Tomas after the sermon.")]}
    code, out, _ = kith("upsert", "--save", "demo", "--turn", "4", "-", stdin=json.dumps(call))
    assert code == 0
    (result,) = json.loads(out)
    assert result["edges"]["results"][0]["supersedes"]
    versions = [e for e in kith.dump()["edges"] if e["relation"] == "TRUSTS"]
    assert [(e["validAt"], e.get("invalidAt")) for e in versions] == [(1, 4), (4, None)]


def test_upsert_defaults_to_the_saves_current_turn(kith: Kith) -> None:
    harbour(kith, turn=0)
    play_turns(kith.save_file(), 3)
    results = kith.upsert("demo", {"edges": [edge_call("Oren", "Tomas", "OWES", 0.2, "Oren owes Tomas a boat fare.")]})
    edge_id = results[0]["edges"]["results"][0]["id"]
    (edge,) = [e for e in kith.dump()["edges"] if e["id"] == edge_id]
    assert (edge["validAt"], edge["evidenceTurnIds"]) == (3, ["turn-3"])


def test_unchanged_and_missing_endpoint_edges_are_skipped(kith: Kith) -> None:
    harbour(kith)
    results = kith.upsert("demo", {"edges": [
        edge_call("Mira", "Tomas", "TRUSTS", 0.7, "Mira trusts Tomas since the harbour fire."),
        edge_call("Mira", "The Docks", "VISITS", 0.1, "Mira visits the docks at night."),
    ]}, "--turn", "2")
    skipped = [r["skipped"] for r in results[0]["edges"]["results"]]
    assert skipped == ["unchanged relation", "missing endpoint node"]
    assert results[0]["edges"] == {"created": 0, "skipped": 2, "results": results[0]["edges"]["results"]}


def test_calls_of_one_upsert_read_each_others_writes(kith: Kith) -> None:
    results = kith.upsert("demo", [
        {"nodes": [node_call("Bram"), node_call("Elin")]},
        {"edges": [edge_call("Bram", "Elin", "KIN_OF", 0.8, "Bram and Elin are brother and sister.")]},
        {"edges": [edge_call("Elin", "Bram", "sibling of", 0.8, "Bram and Elin are brother and sister.")]},
        {"closeEdges": [{"sourceName": "Bram", "targetName": "Elin", "relation": "KIN_OF"}]},
    ], "--turn", "5")
    assert results[1]["edges"]["created"] == 1
    assert results[2]["edges"]["results"][0]["skipped"] == "unchanged relation"
    assert results[3]["closed"][0]["reason"] == "closed"
    (edge,) = kith.dump()["edges"]
    assert (edge["validAt"], edge["invalidAt"]) == (5, 5)


def test_a_rejected_call_writes_nothing_and_exits_1(kith: Kith) -> None:
    harbour(kith)
    before = kith.dump()
    results = kith.upsert("demo", [
        {"nodes": [node_call("Veyra", summary="A smuggler queen.")]},
        {"nodes": [node_call("Quill", summary="A scribe."), node_call("The Docks", type="place")]},
        {"nodes": [node_call(f"Extra {i}") for i in range(9)]},
        {"edges": [{**edge_call("Mira", "Tomas", "TRUSTS"), "strength": 3}]},
        {"edges": [{**edge_call("Mira", "Tomas", "TRUSTS"), "mood": "grim"}]},
        {},
    ], "--turn", "2", expect=1)
    assert "error" not in results[0]
    assert [set(r) for r in results[1:]] == [{"error"}] * 5
    assert "nodes[1].type" in results[1]["error"]
    assert "at most 8" in results[2]["error"]
    assert "edges[0].strength" in results[3]["error"]
    assert "edges[0].mood: unknown field" in results[4]["error"]
    after = kith.dump()
    assert [n["name"] for n in after["nodes"]] == [n["name"] for n in before["nodes"]] + ["Veyra"]
    assert after["edges"] == before["edges"]


@pytest.mark.parametrize("garbage", ['{"nodes": [', "not json at all", "", '{"nodes": []} trailing'])
def test_unreadable_json_exits_2_and_creates_nothing(kith: Kith, garbage: str) -> None:
    code, out, err = kith("upsert", "--save", "demo", kith.file("bad.json", garbage))
    assert (code, out) == (2, "")
    assert "not valid JSON" in err and "nothing was written" in err
    assert not kith.saves.exists()


def test_unreadable_json_leaves_an_existing_save_untouched(kith: Kith) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    code, _, err = kith("upsert", "--save", "demo", kith.file("bad.json", "[{]"))
    assert code == 2 and "not valid JSON" in err
    assert digest(kith.save_file()) == before


def test_input_that_is_not_text_or_not_there_is_refused(kith: Kith) -> None:
    (kith.root / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = kith("upsert", "--save", "demo", str(kith.root / "binary.json"))
    assert code == 2 and "not UTF-8" in err
    code, _, err = kith("upsert", "--save", "demo", str(kith.root / "nowhere.json"))
    assert code == 2 and "no such file" in err
    assert not kith.saves.exists()


def test_a_foreign_sqlite_file_is_refused_untouched(kith: Kith) -> None:
    foreign = kith.root / "other.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.commit()
    conn.close()
    before = digest(foreign)
    for args in (["upsert", "--save", str(foreign), kith.file("c.json", HARBOUR)],
                 ["import", "--save", str(foreign), kith.file("c.jsonl", '{"turn": 0, "nodes": [{"name": "A", "summary": "abcd"}]}')],
                 ["dump", "--save", str(foreign)], ["stats", "--save", str(foreign)]):
        code, out, err = kith(*args)
        assert code == 2 and out == ""
        assert "not a Kith save" in err
    assert digest(foreign) == before
    assert sorted(p.name for p in kith.root.iterdir() if p.suffix == ".sqlite" or "sqlite" in p.name) == ["other.sqlite"]


@pytest.mark.parametrize("name", ["bad name", "a.b", "x" * 65, "naïve", "..", "semi;colon", ""])
def test_a_malformed_save_name_is_refused_before_anything_happens(kith: Kith, name: str) -> None:
    code, out, err = kith("upsert", "--save", name, kith.file("c.json", HARBOUR))
    assert code == 2 and out == ""
    assert "is not a save name" in err
    assert not kith.saves.exists()


def test_a_save_may_be_given_as_a_path(kith: Kith) -> None:
    kith.upsert("elsewhere/story.sqlite", HARBOUR)
    assert (kith.root / "elsewhere" / "story.sqlite").exists()
    assert len(kith.dump("elsewhere/story.sqlite")["nodes"]) == 4
    assert not kith.saves.exists()


@pytest.mark.parametrize("command", [
    ["dump"], ["retrieve", "Mira"], ["stats"], ["node", "Mira"], ["neighbours", "Mira"], ["path", "Mira", "Oren"],
    ["history", "Mira", "Oren"], ["merge", "Mira", "Oren"], ["alias", "Mira", "Fox"],
])
def test_reading_commands_refuse_a_missing_save_and_create_nothing(kith: Kith, command: list[str]) -> None:
    code, out, err = kith(command[0], "--save", "ghost", *command[1:])
    assert code == 2 and out == ""
    assert "there is no save 'ghost'" in err
    assert not kith.saves.exists()


def test_a_negative_turn_is_refused(kith: Kith) -> None:
    with pytest.raises(SystemExit) as exit_info:
        kith("upsert", "--save", "demo", "--turn", "-1", kith.file("c.json", HARBOUR))
    assert exit_info.value.code == 2
    assert not kith.saves.exists()


# ------------------------------------------------------------------------------------------------ import


def jsonl(*lines: Any) -> str:
    return "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"


def test_import_loads_one_call_per_line_at_each_lines_turn(kith: Kith) -> None:
    path = kith.file("world.jsonl", jsonl(
        {"turn": 0, **HARBOUR[0]},
        "",
        {"turn": 0, **HARBOUR[1]},
        {"turn": 3, "edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.1, "Mira trusts Tomas less: she caught him lying.")]},
        {"turn": 5, "closeEdges": [{"sourceName": "Oren", "targetName": "Mira", "relation": "FEARS"}]},
    ))
    summary = kith.json("import", "--save", "demo", "--json", path)
    assert summary == {"lines": 4, "accepted": 4, "rejected": 0, "nodes": {"created": 4, "updated": 0},
                       "edges": {"created": 4, "skipped": 0}, "closed": 1, "errors": []}
    edges = kith.dump()["edges"]
    trusts = [(e["validAt"], e.get("invalidAt")) for e in edges if e["relation"] == "TRUSTS"]
    assert trusts == [(0, 3), (3, None)]
    # The bulk commit checks endpoints itself; the save must still pass SQLite's own check.
    conn = sqlite3.connect(kith.save_file())
    try:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    assert [(e["validAt"], e.get("invalidAt")) for e in edges if e["relation"] == "FEARS"] == [(0, 5)]


def test_import_reports_rejected_lines_by_number_and_keeps_the_rest(kith: Kith) -> None:
    path = kith.file("world.jsonl", jsonl(
        {"turn": 0, **HARBOUR[0]},
        {"nodes": [node_call("Quill")]},
        {"turn": -2, "nodes": [node_call("Quill")]},
        {"turn": 1, "nodes": [node_call("Lamp", type="item")]},
        [1, 2],
        {"turn": 1, "edges": [edge_call("Mira", "Oren", "KNOWS", 0.2, "Mira and Oren share a mooring.")]},
    ))
    code, out, err = kith("import", "--save", "demo", "--json", path)
    assert code == 1, err
    summary = json.loads(out)
    assert (summary["lines"], summary["accepted"], summary["rejected"]) == (6, 2, 4)
    assert [e["line"] for e in summary["errors"]] == [2, 3, 4, 5]
    assert "turn: missing" in summary["errors"][0]["error"]
    assert "nodes[0].type" in summary["errors"][2]["error"]
    assert len(kith.dump()["edges"]) == 1
    code, out, _ = kith("import", "--save", "demo", path)
    assert code == 1
    assert "Imported 2 of 6 line(s)" in out and "line 4: nodes[0].type" in out


def test_import_of_a_line_that_is_not_json_writes_nothing(kith: Kith) -> None:
    path = kith.file("world.jsonl", jsonl({"turn": 0, **HARBOUR[0]}, '{"turn": 1, "nodes": ['))
    code, out, err = kith("import", "--save", "demo", path)
    assert (code, out) == (2, "")
    assert "line 2: not valid JSON" in err and "nothing was imported" in err
    assert not kith.saves.exists()


def test_import_continues_an_existing_graph(kith: Kith) -> None:
    harbour(kith)
    path = kith.file("more.jsonl", jsonl(
        {"turn": 2, "nodes": [node_call("the fox", summary=None, labels=["thief"])]},
        {"turn": 2, "edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.7, "Mira trusts Tomas since the harbour fire.")]},
    ))
    summary = kith.json("import", "--save", "demo", "--json", path)
    assert summary["nodes"] == {"created": 0, "updated": 1}
    assert summary["edges"] == {"created": 0, "skipped": 1}
    mira = next(n for n in kith.dump()["nodes"] if n["name"] == "Mira")
    assert (mira["labels"], mira["lastSeenTurn"]) == (["thief"], 2)


# ------------------------------------------------------------------------------------------------ dump / retrieve


def test_dump_lists_every_node_and_every_version_in_camel_case(kith: Kith) -> None:
    harbour(kith)
    kith.upsert("demo", {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.2, "Mira trusts Tomas less now.")]}, "--turn", "3")
    data = kith.dump()
    assert set(data) == {"nodes", "edges"}
    assert set(data["nodes"][0]) == {"id", "name", "aliases", "type", "labels", "summary", "firstSeenTurn",
                                     "lastSeenTurn", "attributes"}
    closed = [e for e in data["edges"] if "invalidAt" in e]
    assert len(data["edges"]) == 4 and len(closed) == 1
    assert set(closed[0]) == {"id", "source", "target", "relation", "strength", "fact", "validAt", "invalidAt",
                              "evidenceTurnIds"}


def test_retrieve_prints_context_seeds_matches_and_count(kith: Kith) -> None:
    harbour(kith)
    found = kith.json("retrieve", "--save", "demo", "Where", "is", "the", "fox?")
    assert set(found) == {"npcContext", "seedNodes", "matchedNodes", "edgeCount"}
    assert [n["name"] for n in found["seedNodes"]] == ["Mira"]
    assert found["seedNodes"][0]["firstSeenTurn"] == 1  # whole node objects, camelCase
    assert [n["name"] for n in found["matchedNodes"]] == ["Mira", "Tomas", "Oren", "Harbour Watch"]
    assert found["edgeCount"] == 3
    lines = found["npcContext"].splitlines()
    assert lines[0] == "## Known NPC relationships (from graph retrieval)"
    assert len([x for x in lines if x.startswith("- ")]) == found["edgeCount"]
    assert "- [-] **Oren** → **Mira** (FEARS): Oren fears Mira since she cut his nets." in lines


def test_retrieve_falls_back_to_the_cast_and_finds_nothing_politely(kith: Kith) -> None:
    harbour(kith)
    found = kith.json("retrieve", "--save", "demo", "--cast", "Oren", "--cast", "Harbour Watch", "I wait.")
    assert [n["name"] for n in found["seedNodes"]] == ["Oren"]
    nothing = kith.json("retrieve", "--save", "demo", "--cast", "Nobody", "I look at the sea.")
    assert nothing == {"npcContext": "", "seedNodes": [], "matchedNodes": [], "edgeCount": 0}


def test_cjk_names_round_trip_through_the_cli(kith: Kith) -> None:
    kith.upsert("demo", [
        {"nodes": [node_call("林瑶", summary="茶馆的老板娘。"), node_call("王小明", summary="年轻的船夫。")]},
        {"edges": [edge_call("林瑶", "王小明", "TRUSTS", 0.8, "林瑶一直信任王小明。")]},
    ])
    code, out, _ = kith("retrieve", "--save", "demo", "我想问王小明一件事")
    assert code == 0
    assert "林瑶" in out  # not escaped
    found = json.loads(out)
    assert [n["id"] for n in found["seedNodes"]] == ["npc-王小明"]
    assert found["npcContext"].endswith("- [+] **林瑶** → **王小明** (TRUSTS): 林瑶一直信任王小明。")
    code, out, _ = kith("node", "--save", "demo", "林瑶")
    assert code == 0 and "林瑶 (npc-林瑶) · individual" in out


# ------------------------------------------------------------------------------------------------ inspection


def test_stats_counts_versions_hubs_vocabulary_and_merges(kith: Kith) -> None:
    harbour(kith)
    kith.upsert("demo", {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.1, "Mira trusts Tomas a little less."),
                                   edge_call("Oren", "Tomas", "rows for", 0.3, "Oren rows for Tomas on feast days.")]},
                "--turn", "2")
    stats = kith.json("stats", "--save", "demo", "--json")
    assert stats["nodes"] == {"total": 4, "individual": 3, "group": 0, "faction": 1}
    assert stats["edges"] == {"versions": 5, "open": 4, "closed": 1, "relations": 4}
    assert stats["outOfVocabulary"] == {"versions": 1, "share": 0.2, "relations": {"ROWS_FOR": 1}}
    assert stats["degree"]["buckets"] == {"0": 0, "1": 1, "2-5": 3, "6-10": 0, "11-30": 0, "31+": 0}
    assert stats["degree"]["max"] == 3
    assert stats["topHubs"][0] == {"id": "npc-tomas", "name": "Tomas", "degree": 3}
    assert stats["merges"] == {"count": 0, "log": []}
    code, out, _ = kith("stats", "--save", "demo")
    assert code == 0
    assert "out of vocabulary: 1 of 5 versions (20.0%)" in out and "ROWS_FOR ×1" in out
    assert "top hubs:       Tomas (npc-tomas) 3" in out


def test_node_shows_a_node_by_name_alias_or_id(kith: Kith) -> None:
    harbour(kith)
    for name in ("Mira", "THE FOX", "npc-mira"):
        data = kith.json("node", "--save", "demo", "--json", name)
        assert data["node"]["id"] == "npc-mira"
    assert data["degree"] == 2
    assert {e["relation"] for e in data["edges"]} == {"TRUSTS", "FEARS"}
    assert data["closedVersions"] == 0
    assert [n["name"] for n in data["neighbours"]] == ["Oren", "Tomas"]
    code, out, _ = kith("node", "--save", "demo", "the fox")
    assert code == 0
    assert out.startswith("Mira (npc-mira) · individual\n  aliases:    the Fox\n")
    assert "[+] Mira -[TRUSTS]-> Tomas (+0.70): Mira trusts Tomas since the harbour fire." in out


def test_an_unknown_or_ambiguous_name_is_refused_with_a_hint(kith: Kith) -> None:
    harbour(kith)
    kith.upsert("demo", {"nodes": [node_call("Tom Reed", aliases=["Tom"]), node_call("Tom Hale", aliases=["Tom"])]})
    code, _, err = kith("node", "--save", "demo", "Nobody")
    assert code == 2 and "there is no node named 'Nobody'" in err
    code, _, err = kith("node", "--save", "demo", "tom")
    assert code == 2 and "npc-tom-reed (Tom Reed)" in err and "npc-tom-hale (Tom Hale)" in err


def test_a_name_beats_an_alias_and_ids_come_first_by_the_one_rule(kith: Kith) -> None:
    harbour(kith)
    # "Mira" is Mira's name and, after this, Oren's alias: the CLI picks the node it is the name of.
    kith.upsert("demo", {"nodes": [node_call("Oren", aliases=["Mira"], summary=None)]})
    assert kith.json("node", "--save", "demo", "--json", "mira")["node"]["id"] == "npc-mira"
    assert kith.json("node", "--save", "demo", "--json", "npc-oren")["node"]["id"] == "npc-oren"


def test_neighbours_render_paths_with_their_real_directions(kith: Kith) -> None:
    harbour(kith)
    code, out, _ = kith("neighbours", "--save", "demo", "Oren")
    assert code == 0
    assert out.splitlines() == [
        "Oren (npc-oren) within 2 hop(s): 2 path(s)",
        "  Oren -[FEARS]-> Mira",
        "  Oren -[FEARS]-> Mira -[TRUSTS]-> Tomas",
    ]
    code, out, _ = kith("neighbours", "--save", "demo", "Harbour Watch", "--hops", "3")
    assert "  Harbour Watch <-[MEMBER_OF]- Tomas <-[TRUSTS]- Mira <-[FEARS]- Oren" in out.splitlines()
    data = kith.json("neighbours", "--save", "demo", "Oren", "--hops", "1", "--json")
    assert data["node"] == {"id": "npc-oren", "name": "Oren", "type": "individual"}
    (path,) = data["paths"]
    assert path["nodes"] == ["npc-oren", "npc-mira"]
    assert (path["relations"], path["directions"], path["text"]) == (["FEARS"], ["forward"], "Oren -[FEARS]-> Mira")
    assert data["truncated"] == 0


def test_path_finds_the_shortest_route_over_open_relations(kith: Kith) -> None:
    harbour(kith)
    code, out, _ = kith("path", "--save", "demo", "Oren", "Harbour Watch")
    assert code == 0
    assert out.strip() == "Oren -[FEARS]-> Mira -[TRUSTS]-> Tomas -[MEMBER_OF]-> Harbour Watch   (3 hops)"
    data = kith.json("path", "--save", "demo", "--json", "Harbour Watch", "Mira")
    assert (data["found"], data["hops"]) == (True, 2)
    assert data["path"]["text"] == "Harbour Watch <-[MEMBER_OF]- Tomas <-[TRUSTS]- Mira"
    assert data["path"]["directions"] == ["backward", "backward"]
    # Closing a relation cuts the path.
    kith.upsert("demo", {"closeEdges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS"}]})
    code, out, _ = kith("path", "--save", "demo", "Oren", "Harbour Watch")
    assert code == 1 and "No path between Oren and Harbour Watch" in out
    data = kith.json("path", "--save", "demo", "--json", "Oren", "Harbour Watch", expect=1)
    assert (data["found"], data["hops"], data["path"]) == (False, None, None)


def test_history_lists_every_version_between_two_nodes_with_turns(kith: Kith) -> None:
    harbour(kith)
    kith.upsert("demo", {"edges": [edge_call("Tomas", "Mira", "DISTRUSTS", -0.3, "Tomas suspects Mira of theft.")]},
                "--turn", "2")
    kith.upsert("demo", {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.2, "Mira trusts Tomas less after the theft.")]},
                "--turn", "4")
    data = kith.json("history", "--save", "demo", "--json", "Mira", "Tomas")
    assert [(v["relation"], v["validAt"], v.get("invalidAt")) for v in data["versions"]] == [
        ("TRUSTS", 1, 4), ("DISTRUSTS", 2, None), ("TRUSTS", 4, None),
    ]
    code, out, _ = kith("history", "--save", "demo", "Tomas", "Mira")
    assert code == 0
    assert "History between Tomas (npc-tomas) and Mira (npc-mira): 3 version(s)" in out
    assert re.search(r"turns 1–4 +\[\+\] \+0\.70  Mira trusts Tomas since the harbour fire\.", out)
    assert re.search(r"turns 4–now +\[·\] \+0\.20", out)
    code, out, _ = kith("history", "--save", "demo", "Oren", "Harbour Watch")
    assert "No relation has ever been recorded" in out


# ------------------------------------------------------------------------------------------------ identity


def test_merge_repoints_edges_logs_and_leaves_nothing_dangling(kith: Kith) -> None:
    harbour(kith)
    play_turns(kith.save_file(), 2)
    kith.upsert("demo", [
        {"nodes": [node_call("Red Mira", summary="A woman seen on the quay at night.", labels=["smuggler"])]},
        {"edges": [edge_call("Red Mira", "Oren", "KNOWS", 0.4, "Red Mira knows Oren from the quay."),
                   edge_call("Red Mira", "Tomas", "TRUSTS", 0.9, "Red Mira trusts Tomas with her cargo."),
                   edge_call("Mira", "Red Mira", "KNOWS", 0.5, "Mira has seen Red Mira at the quay.")]},
    ])
    data = kith.json("merge", "--save", "demo", "--json", "Mira", "Red Mira", "--evidence", "the same thief, seen at night")
    assert data["kept"]["id"] == "npc-mira" and data["merged"]["id"] == "npc-red-mira"
    assert data["merge"] | {"at": None} == {
        "keptId": "npc-mira", "mergedId": "npc-red-mira", "mergedName": "Red Mira", "strategy": "manual",
        "evidence": "the same thief, seen at night", "turn": 2, "at": None,
    }
    assert "Red Mira" in data["kept"]["aliases"] and "smuggler" in data["kept"]["labels"]
    dump = kith.dump()
    ids = {n["id"] for n in dump["nodes"]}
    assert "npc-red-mira" not in ids
    assert all(e["source"] in ids and e["target"] in ids for e in dump["edges"])
    open_trusts = [e for e in dump["edges"] if e["relation"] == "TRUSTS" and "invalidAt" not in e]
    assert len(open_trusts) == 1  # the duplicate the merge made was healed
    self_loops = [e for e in dump["edges"] if e["source"] == e["target"] and "invalidAt" not in e]
    assert self_loops == []
    stats = kith.json("stats", "--save", "demo", "--json")
    assert stats["merges"]["count"] == 1 and stats["merges"]["log"][0]["strategy"] == "manual"
    # The merged name now resolves to the kept node, in commands and in upserts.
    assert kith.json("node", "--save", "demo", "--json", "red mira")["node"]["id"] == "npc-mira"
    again = kith.upsert("demo", {"nodes": [node_call("Red Mira", summary=None)]})
    assert again[0]["nodes"]["results"][0]["id"] == "npc-mira"


def test_merge_uses_the_default_evidence_and_prints_a_summary(kith: Kith) -> None:
    harbour(kith)
    kith.upsert("demo", {"nodes": [node_call("Tomas the Priest")]})
    code, out, _ = kith("merge", "--save", "demo", "npc-tomas", "Tomas the Priest")
    assert code == 0
    assert out.startswith("Merged Tomas the Priest (npc-tomas-the-priest) into Tomas (npc-tomas): ")
    assert kith.json("stats", "--save", "demo", "--json")["merges"]["log"][0]["evidence"] == "kith graph merge"


def test_a_merged_id_is_never_given_to_a_new_node(kith: Kith) -> None:
    harbour(kith)
    kith.upsert("demo", {"nodes": [node_call("Tom")]})
    kith("merge", "--save", "demo", "Tomas", "Tom")
    kith.upsert("demo", {"nodes": [node_call("Tom", summary="A different Tom, a fisher boy.")]}, "--turn", "3")
    node = kith.json("node", "--save", "demo", "--json", "Tom")["node"]
    # "Tom" is now Tomas's alias, so the upsert updates Tomas; a new node named like the merged one ...
    assert node["id"] == "npc-tomas"
    kith.upsert("demo", {"nodes": [node_call("Tom!", summary="Yet another Tom.")]}, "--turn", "3")
    # The bulk path resolves IDs against an in-memory index loaded from the save: same rule.
    kith("import", "--save", "demo", kith.file("more.jsonl", jsonl({"turn": 3, "nodes": [node_call("Tom?")]})))
    ids = {n["id"] for n in kith.dump()["nodes"]}
    # ... never takes the merged ID, which the merge log still names.
    assert "npc-tom" not in ids and {"npc-tom-2", "npc-tom-3"} <= ids


def test_merge_refuses_the_same_node_and_unknown_names(kith: Kith) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    code, _, err = kith("merge", "--save", "demo", "Mira", "the fox")
    assert code == 2 and "already the same node" in err
    code, _, err = kith("merge", "--save", "demo", "Mira", "Nobody")
    assert code == 2 and "no node named 'Nobody'" in err
    assert digest(kith.save_file()) == before


def test_alias_adds_a_name_that_then_resolves_everywhere(kith: Kith) -> None:
    harbour(kith)
    code, out, _ = kith("alias", "--save", "demo", "Tomas", "Father Tomas")
    assert code == 0 and "Tomas (npc-tomas) is also known as Father Tomas" in out
    found = kith.json("retrieve", "--save", "demo", "I greet Father Tomas.")
    assert [n["id"] for n in found["seedNodes"]] == ["npc-tomas"]
    result = kith.upsert("demo", {"nodes": [node_call("father tomas", summary=None, labels=["priest"])]})
    assert result[0]["nodes"]["results"][0] == {"id": "npc-tomas", "name": "Tomas", "status": "updated"}
    data = kith.json("alias", "--save", "demo", "--json", "Tomas", "FATHER TOMAS")
    assert data["added"] is False and data["node"]["aliases"] == ["Father Tomas"]


def test_alias_refuses_another_nodes_name_or_a_blank(kith: Kith) -> None:
    harbour(kith)
    code, _, err = kith("alias", "--save", "demo", "Tomas", "the fox")
    assert code == 2
    assert "already a name of Mira (npc-mira)" in err and "kith graph merge" in err
    code, _, err = kith("alias", "--save", "demo", "Tomas", "   ")
    assert code == 2 and "blank" in err
    tomas = kith.json("node", "--save", "demo", "--json", "Tomas")["node"]
    assert tomas["aliases"] == []


def test_a_merge_in_an_authored_save_never_ends_a_relation_before_it_began(kith: Kith) -> None:
    # Nothing has been played (current turn 0), but the author wrote the graph at turn 6.
    kith.upsert("demo", [{"nodes": [node_call("Mira"), node_call("Red Mira")]},
                         {"edges": [edge_call("Mira", "Red Mira", "KNOWS", 0.5, "Mira has seen Red Mira at the quay.")]}],
                "--turn", "6")
    data = kith.json("merge", "--save", "demo", "--json", "Mira", "Red Mira")
    assert data["merge"]["turn"] == 6
    (edge,) = kith.dump()["edges"]
    assert (edge["source"], edge["target"], edge["validAt"], edge["invalidAt"]) == ("npc-mira", "npc-mira", 6, 6)
    assert data["closed"] == [edge["id"]]


@pytest.mark.slow
def test_the_installed_kith_command_round_trips_through_real_processes(tmp_path: Path) -> None:
    import subprocess
    import sys

    kith_bin = Path(sys.executable).with_name("kith")
    save = str(tmp_path / "real.sqlite")
    env = {"PATH": str(kith_bin.parent), "LC_ALL": "C", "HOME": str(tmp_path)}
    written = subprocess.run([str(kith_bin), "graph", "upsert", "--save", save, "--turn", "2", "-"],
                             input=json.dumps(HARBOUR), capture_output=True, text=True, env=env,
                             encoding="utf-8", timeout=60, check=False)
    assert written.returncode == 0, written.stderr
    assert [r["nodes"]["created"] for r in json.loads(written.stdout)] == [4, 0]
    found = subprocess.run([str(kith_bin), "graph", "retrieve", "--save", save, "--cast", "Oren", "Hello", "there"],
                           capture_output=True, text=True, env=env, encoding="utf-8", timeout=60, check=False)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["edgeCount"] == 2
    refused = subprocess.run([str(kith_bin), "graph", "upsert", "--save", save, "-"], input="{oops",
                             capture_output=True, text=True, env=env, encoding="utf-8", timeout=60, check=False)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.startswith("kith: standard input is not valid JSON")


def test_a_wholly_rejected_upsert_leaves_the_save_file_byte_for_byte(kith: Kith) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    code, out, _ = kith("upsert", "--save", "demo", kith.file("bad.json", (
        '[{"edges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS", "strength": NaN,'
        ' "fact": "Mira trusts Tomas with everything."}]},'
        ' {"nodes": [{"name": "Quill", "summary": "A scribe.", "labels": ["a", "b", "c", "d", "e", "f"]}]}]'
    )))
    assert code == 1
    assert [("error" in r) for r in json.loads(out)] == [True, True]
    assert digest(kith.save_file()) == before


def test_merging_nodes_caps_the_united_labels_at_five(kith: Kith) -> None:
    kith.upsert("demo", {"nodes": [node_call("Mira", labels=["thief", "smuggler", "orphan"]),
                                   node_call("Red Mira", labels=["sailor", "liar", "thief", "singer"])]})
    data = kith.json("merge", "--save", "demo", "--json", "Mira", "Red Mira")
    assert data["kept"]["labels"] == ["thief", "smuggler", "orphan", "sailor", "liar"]


def test_a_merge_heals_a_symmetric_relation_written_in_both_directions(kith: Kith) -> None:
    kith.upsert("demo", [
        {"nodes": [node_call("Bram"), node_call("Elin"), node_call("Little Elin")]},
        {"edges": [edge_call("Bram", "Elin", "KIN_OF", 0.8, "Bram and Elin are brother and sister."),
                   edge_call("Little Elin", "Bram", "KIN_OF", 0.6, "Little Elin is Bram's sister.")]},
    ], "--turn", "1")
    kith.upsert("demo", {"edges": [edge_call("Little Elin", "Bram", "KIN_OF", 0.7, "Little Elin and Bram share a mother.")]},
                "--turn", "2")
    kith.json("merge", "--save", "demo", "--json", "Elin", "Little Elin")
    open_kin = [e for e in kith.dump()["edges"] if e["relation"] == "KIN_OF" and "invalidAt" not in e]
    # KIN_OF ignores direction: Bram-Elin is one relation, so only its newest version stays open.
    assert [(e["fact"], e["validAt"]) for e in open_kin] == [("Little Elin and Bram share a mother.", 2)]
    found = kith.json("retrieve", "--save", "demo", "Bram")
    assert found["edgeCount"] == 1
