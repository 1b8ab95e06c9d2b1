"""Hostile and odd input to ``kith graph`` (issue 8): one clear ``kith:`` line or a refusal, never a
traceback, never a change to the save; and nothing a node holds reaches the terminal as an escape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.graph import edge_call, node_call
from helpers.saves import SCHEMA
from test_cli_graph import HARBOUR, Kith, digest, harbour

from game.cli.graph_write import INDEX_FROM_CALLS
from game.graph.models import MAX_TURN

ESCAPES = "\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x9b31m"


@pytest.fixture
def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kith:
    return Kith(tmp_path, capsys, monkeypatch)


def usage_error(kith: Kith, *args: str) -> str:
    """What argparse prints when it refuses an option value (it exits 2 before any command runs)."""
    with pytest.raises(SystemExit) as exit_info:
        kith(*args)
    assert exit_info.value.code == 2
    out, err = kith.capsys.readouterr()
    assert out == ""
    return err


def rejected(outcome: Any) -> str:
    assert isinstance(outcome, list) and len(outcome) == 1 and "error" in outcome[0], outcome
    return str(outcome[0]["error"])


# ------------------------------------------------------------------------------------- malformed files


def test_json_nested_200000_deep_is_a_clean_error_and_writes_nothing(kith: Kith) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    deep = "[" * 200_000 + "]" * 200_000
    code, out, err = kith("upsert", "--save", "demo", kith.file("deep.json", deep))
    assert (code, out) == (2, "")
    assert err.startswith("kith: ") and "nested too deeply" in err and "Traceback" not in err
    code, _, err = kith("import", "--save", "demo", kith.file("deep.jsonl", '{"turn": 1, "nodes": ' + deep + "}\n"))
    assert code == 2 and "nested too deeply" in err
    assert digest(kith.save_file()) == before


@pytest.mark.parametrize("turn", [str(2**63), str(MAX_TURN + 1), "9" * 40])
def test_a_turn_past_the_largest_is_refused_with_a_message(kith: Kith, turn: str) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    err = usage_error(kith, "upsert", "--save", "demo", "--turn", turn, kith.file("c.json", HARBOUR[0]))
    assert f"argument --turn: {turn} is too large: at most {MAX_TURN}" in err
    line = json.dumps({"turn": int(turn), **HARBOUR[0]})
    data = kith.json("import", "--save", "demo", "--json", kith.file("t.jsonl", line + "\n"), expect=1)
    assert data["errors"] == [{"line": 1, "error": f"turn: {turn} is past the largest turn ({MAX_TURN})"}]
    assert digest(kith.save_file()) == before


def test_the_largest_turn_itself_is_accepted(kith: Kith) -> None:
    kith.upsert("demo", HARBOUR, "--turn", str(MAX_TURN))
    assert {n["firstSeenTurn"] for n in kith.dump()["nodes"]} == {MAX_TURN}


def test_import_splits_lines_on_newlines_only(kith: Kith) -> None:
    # U+2028 and U+2029 are line breaks to str.splitlines but ordinary characters inside a JSON string.
    line = json.dumps({"turn": 1, "nodes": [node_call("Mira", summary="Sells\u2028nets\u2029at dawn.")]},
                      ensure_ascii=False)
    data = kith.json("import", "--save", "demo", "--json", kith.file("l.jsonl", line + "\r\n"))
    assert (data["lines"], data["accepted"]) == (1, 1)


def test_a_byte_order_mark_is_accepted_in_upsert_and_import(kith: Kith) -> None:
    kith.upsert("demo", "\ufeff" + json.dumps(HARBOUR[0]))
    line = json.dumps({"turn": 2, **HARBOUR[1]})
    data = kith.json("import", "--save", "demo", "--json", kith.file("b.jsonl", "\ufeff" + line + "\n"))
    assert data["accepted"] == 1
    code, out, _ = kith("upsert", "--save", "demo", "-", stdin="\ufeff" + json.dumps(HARBOUR[0]))
    assert code == 0, out


# -------------------------------------------------------------------------------------- strict fields


@pytest.mark.parametrize("value", [True, False, "0.5", None])
def test_strength_must_be_a_number_not_a_boolean(kith: Kith, value: Any) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    call = {"edges": [{**edge_call("Mira", "Oren", "KNOWS"), "strength": value}]}
    assert "strength" in rejected(kith.upsert("demo", [call], expect=1))
    assert digest(kith.save_file()) == before


@pytest.mark.parametrize("name", ["Mi\x00ra", "Mira\x1b[2J", "Mira\x9b31m", "\u202eariM", "Mi\x07ra"])
def test_control_characters_are_refused_in_names_aliases_and_labels(kith: Kith, name: str) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    for node in (node_call(name), node_call("Oren", aliases=[name]), node_call("Oren", labels=[name])):
        assert "control characters" in rejected(kith.upsert("demo", [{"nodes": [node]}], expect=1))
    assert digest(kith.save_file()) == before


def test_attributes_are_capped_in_keys_and_size(kith: Kith) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    many = {f"k{i}": i for i in range(33)}
    assert "at most 32 keys" in rejected(kith.upsert("demo", [{"nodes": [node_call("Oren", attributes=many)]}], expect=1))
    big = {"notes": "x" * 5000}
    assert "at most 4096 bytes" in rejected(kith.upsert("demo", [{"nodes": [node_call("Oren", attributes=big)]}], expect=1))
    assert digest(kith.save_file()) == before
    # The cap holds for what a node gathers over several calls, not only for one call.
    for i in range(3):
        kith.upsert("demo", [{"nodes": [node_call("Oren", attributes={f"part{i}": "y" * 1200})]}])
    assert "at most 4096 bytes" in rejected(
        kith.upsert("demo", [{"nodes": [node_call("Oren", attributes={"part3": "y" * 1200})]}], expect=1))
    assert len(kith.json("node", "--save", "demo", "--json", "Oren")["node"]["attributes"]) == 3


def test_deeply_nested_attributes_are_refused_so_every_reader_can_print_them(kith: Kith) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    deep: Any = "bottom"
    for _ in range(900):  # small enough for JSON and the 4 KiB cap, too deep for the serializer
        deep = [deep]
    assert "nested more than 16 levels" in rejected(
        kith.upsert("demo", [{"nodes": [node_call("Oren", attributes={"x": deep})]}], expect=1))
    assert digest(kith.save_file()) == before
    nested: Any = {"a": {"b": {"c": [1, 2, {"d": True}]}}}
    kith.upsert("demo", [{"nodes": [node_call("Oren", attributes={"x": nested})]}])
    assert kith.json("node", "--save", "demo", "--json", "Oren")["node"]["attributes"] == {"x": nested}


# ---------------------------------------------------------------------------------------------- map


def test_a_huge_map_is_refused_before_any_drawing(kith: Kith) -> None:
    harbour(kith)
    err = usage_error(kith, "map", "--save", "demo", "--width", "100000", "--height", "100000")
    assert "argument --width: at most 1000 columns (got 100000)" in err
    err = usage_error(kith, "map", "--save", "demo", "--width", "80", "--height", "100000")
    assert "argument --height: at most 1000 rows (got 100000)" in err
    code, out, _ = kith("map", "--save", "demo", "--width", "1000", "--height", "60", "--color", "never")
    assert code == 0 and "Mira" in out


# -------------------------------------------------------------------------------------------- output


def escaped_save(kith: Kith) -> None:
    """A save written before names were checked: escapes in a name, alias, label, summary and fact."""
    import asyncio

    from game.graph.models import Edge, Node
    from game.graph.ports import GraphWrites
    from game.store.database import SaveDatabase

    async def write() -> None:
        async with await SaveDatabase.open(kith.save_file(), schema=SCHEMA, create=True) as db:
            writes = GraphWrites()
            for node_id, name in (("npc-evil", f"Evil{ESCAPES}"), ("npc-mira", "Mira")):
                writes.nodes[node_id] = Node(
                    id=node_id, name=name, aliases=[f"al{ESCAPES}"], labels=[f"lab{ESCAPES}"], type="individual",
                    summary=f"Sum{ESCAPES}mary.", first_seen_turn=0, last_seen_turn=0,
                    attributes={"note": f"at{ESCAPES}tr"})
                writes.created_nodes.add(node_id)
            writes.edges["edge-x"] = Edge(id="edge-x", source="npc-evil", target="npc-mira", relation="TRUSTS",
                                          strength=0.5, fact=f"A fact{ESCAPES} to print.", valid_at=0)
            writes.created_edges.add("edge-x")
            await db.commit_graph(writes)

    kith.saves.mkdir(parents=True, exist_ok=True)
    asyncio.run(write())


@pytest.mark.parametrize("command", [
    ["node", "npc-evil"], ["node", "--json", "npc-evil"], ["neighbours", "npc-evil"], ["path", "npc-evil", "Mira"],
    ["history", "npc-evil", "Mira"], ["stats"], ["dump"], ["map", "--color", "never", "--width", "60"],
    ["map", "--color", "always", "--width", "60"], ["retrieve", "Mira"],
    # A name both nodes answer to: the refusal names them, without their escapes.
    ["node", f"al{ESCAPES}"], ["map", "--focus", f"al{ESCAPES}", "--width", "60"], ["alias", "Mira", f"Evil{ESCAPES}"],
])
def test_no_graph_output_carries_a_terminal_escape(kith: Kith, command: list[str]) -> None:
    escaped_save(kith)
    code, out, err = kith(*command[:1], "--save", "demo", *command[1:])
    for stream in (out, err):
        for bad in ("\x1b]", "\x1b[2J", "\x07", "\x9b", "\u202e"):
            assert bad not in stream, (command, stream)
    if command[0] == "node" and code == 0:
        assert "Evil" in out and "Sum" in out and "A fact" in out
    if code == 2:
        assert "Evil" in err


def test_a_long_upsert_reads_the_save_and_its_own_calls_like_a_short_one(kith: Kith) -> None:
    # Past INDEX_FROM_CALLS calls the command reads the save from memory: same rules, same results.
    harbour(kith)
    calls = [{"nodes": [node_call(f"Sailor {i}")],
              "edges": [edge_call(f"Sailor {i}", "the fox" if i % 2 else f"Sailor {i - 1}", "SERVES")]}
             for i in range(INDEX_FROM_CALLS + 50)]
    calls.append({"nodes": [node_call("Tomas", summary=None, labels=["priest"])],
                  "edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.7, "Mira trusts Tomas since the harbour fire.")]})
    results = kith.upsert("demo", calls)
    assert sum(r["nodes"]["created"] for r in results) == INDEX_FROM_CALLS + 50
    assert results[1]["edges"]["results"][0]["target"] == "npc-mira"  # an alias in the save
    assert results[2]["edges"]["results"][0]["target"] == "npc-sailor-1"  # a node an earlier call made
    assert results[-1]["nodes"]["results"][0]["status"] == "updated"
    assert results[-1]["edges"]["results"][0]["skipped"] == "unchanged relation"
    assert len(kith.dump()["nodes"]) == 4 + INDEX_FROM_CALLS + 50
