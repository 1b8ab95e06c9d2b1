"""``kith graph import`` (the bulk path) writes exactly what the same calls give one ``kith graph upsert`` at a time.

The import shares work across a whole file (relations resolved once, one commit); per-call upserts go
through the SQL reader and commit each call. Both runs here use real saves and the real CLI, and the
full dumps must agree: nodes, every edge version (IDs are random, so versions are compared in insertion
order) and every knower row.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.interrupt import interruptible
from helpers.saves import SCHEMA

from benchmarks.graph_bench import synthesize
from game.__main__ import main
from game.errors import SaveError
from game.graph.bulk import BulkLoad
from game.graph.file_vocabulary import FileVocabulary
from game.graph.vocabulary import Vocabulary
from game.store import bulk_commit, bulk_write
from game.store.database import SaveDatabase

# Lines that exercise every rule an import must keep: knownBy / toldBy / public knowers, inverse and
# symmetric relations written backwards, exclusions (DISTRUSTS ends TRUSTS), node updates and aliases,
# a wrong sign and an unknown knower (both rejected whole), closes (of a symmetric relation written
# backwards, of a name nobody has, one dated before the version began, one of a version made in the same
# line), and an edge to nobody (skipped).
SPECIAL: list[dict[str, Any]] = [
    {"turn": 0, "nodes": [{"name": "Mira Vell", "summary": "A harbour pilot."},
                          {"name": "Tomas Reed", "summary": "A net mender.", "aliases": ["Tom"]},
                          {"name": "Iska", "summary": "A listener at doors."},
                          {"name": "The Tide Guild", "type": "faction", "summary": "Owners of the quay."}]},
    {"turn": 1, "edges": [{"sourceName": "Mira Vell", "targetName": "Tom", "relation": "trusts",
                           "strength": 0.6, "fact": "Mira trusts Tomas with her boat."}]},
    {"turn": 2, "edges": [{"sourceName": "Mira Vell", "targetName": "Tomas Reed", "relation": "DISTRUSTS",
                           "strength": -0.4, "fact": "Mira caught Tomas lying.", "knownBy": ["Mira Vell", "Iska"]}]},
    {"turn": 3, "edges": [{"sourceName": "Tomas Reed", "targetName": "Mira Vell", "relation": "KIN_OF",
                           "strength": 0.5, "fact": "They are cousins.", "public": True}]},
    {"turn": 4, "edges": [{"sourceName": "Mira Vell", "targetName": "Tomas Reed", "relation": "KIN_OF",
                           "strength": 0.7, "fact": "They are cousins, and close.", "toldBy": "Iska"}]},
    {"turn": 5, "edges": [{"sourceName": "The Tide Guild", "targetName": "Tomas Reed", "relation": "EMPLOYS",
                           "strength": 0.3, "fact": "Tomas mends the guild's nets."}]},
    {"turn": 6, "edges": [{"sourceName": "Mira Vell", "targetName": "Iska", "relation": "LOVES",
                           "strength": -0.5, "fact": "A wrong sign: the whole line is refused."}]},
    {"turn": 6, "edges": [{"sourceName": "Iska", "targetName": "Mira Vell", "relation": "FEARS",
                           "strength": 0.2, "fact": "Nobody called Bram knows this.", "knownBy": ["Bram"]}]},
    {"turn": 7, "nodes": [{"name": "Tom", "aliases": ["Tommy"], "labels": ["sailor"]}],
     "edges": [{"sourceName": "Tommy", "targetName": "Nobody Known", "relation": "OWES", "strength": 0.1,
                "fact": "An edge to no one is skipped."}]},
    {"turn": 8, "closeEdges": [{"sourceName": "Tomas Reed", "targetName": "Mira Vell", "relation": "KIN_OF"}]},
    {"turn": 9, "edges": [{"sourceName": "Mira Vell", "targetName": "Tomas Reed", "relation": "TRUSTS",
                           "strength": 0.2, "fact": "Mira trusts Tomas again, a little."}]},
    {"turn": 10, "edges": [{"sourceName": "Mira Vell", "targetName": "Tomas Reed", "relation": "TRUSTS",
                            "strength": 0.2, "fact": "Mira trusts Tomas again, a little.", "public": True}]},
    {"turn": 4, "edges": [{"sourceName": "Mira Vell", "targetName": "Tomas Reed", "relation": "TRUSTS",
                           "strength": 0.9, "fact": "Written back in time: it would end turn 9's before it began."}]},
    {"turn": 11, "nodes": [{"name": "Anna Rook", "summary": "A rope maker.", "aliases": ["Red"]},
                           {"name": "Bill Rook", "summary": "Her brother.", "aliases": ["Red"]}]},
    {"turn": 12, "edges": [{"sourceName": "Red", "targetName": "Mira Vell", "relation": "KNOWS", "strength": 0.3,
                            "fact": "An ambiguous name: skipped, never guessed."},
                           {"sourceName": "Anna Rook", "targetName": "Bill Rook", "relation": "KIN_OF",
                            "strength": 0.8, "fact": "Sister and brother."}]},
    {"turn": 13, "closeEdges": [{"sourceName": "Bill Rook", "targetName": "Anna Rook", "relation": "kin of"},
                                {"sourceName": "Nobody Known", "targetName": "Iska", "relation": "FEARS"}]},
    {"turn": 2, "closeEdges": [{"sourceName": "Mira Vell", "targetName": "Tomas Reed", "relation": "TRUSTS"}]},
    {"turn": 14, "edges": [{"sourceName": "Iska", "targetName": "Mira Vell", "relation": "LOVES", "strength": 0.3,
                            "fact": "Iska is fond of Mira, for one turn."}],
     "closeEdges": [{"sourceName": "Iska", "targetName": "Mira Vell", "relation": "LOVES"},
                    {"sourceName": "Mira Vell", "targetName": "Tom", "relation": "DISTRUSTS"}]},
]


def _edge(**given: Any) -> dict[str, Any]:
    return {"sourceName": "Iska", "targetName": "Mira Vell", "relation": "TRUSTS", "strength": 0.4,
            "fact": "Iska trusts Mira with her letters.", **given}


# Values at the edges of what ``UpsertCall`` accepts: the import checks plain lines without pydantic and must
# accept, reject and word each exactly as pydantic does (a doubtful line is left to pydantic).
EDGE_CASES: list[dict[str, Any]] = [
    {"turn": 15, "edges": 5},  # not a list: refused in pydantic's words (it once crashed the import)
    {"turn": 15, "edges": {"sourceName": "Iska"}},
    {"turn": 15, "edges": [_edge(fact="Iska trusts Mira \ud800 with letters.")]},  # a lone surrogate: not text
    {"turn": 15, "edges": [_edge(targetName="Mira \udfff Vell")]},
    {"turn": 15, "edges": [_edge(strength=True)]},
    {"turn": 15, "edges": [_edge(strength="0.5")]},
    {"turn": 15, "edges": [_edge(strength=1.5)]},
    {"turn": 15, "edges": [_edge(strength=float("nan"))]},
    {"turn": 15, "edges": [_edge(fact="  a    b    c  ")]},
    {"turn": 15, "edges": [_edge(relation="TRUSTS\n")]},
    {"turn": 15, "edges": [_edge(relation="T" * 49)]},
    {"turn": 15, "closeEdges": [{"sourceName": "Iska", "targetName": "Mira Vell", "relation": "trusts!"}]},
    {"turn": 15, "edges": [_edge(sourceName="")]},
    {"turn": 15, "edges": [{**_edge(), "source_name": "Iska"}]},
    {"turn": 15, "edges": [_edge()], "extra": 1},
    {"turn": 15, "edges": [], "closeEdges": []},
    {"turn": 15, "edges": [_edge()] * 13},
    {"turn": 15, "edges": [_edge(strength=1, fact="  Iska   trusts\tMira,   completely.  ")]},
    {"turn": 16, "edges": [_edge(strength=0.5, public=1)]},
    {"turn": 17, "edges": [_edge(relation="trusts", strength=0.6, knownBy=None)]},
    {"turn": 18, "closeEdges": [{"sourceName": "Iska", "targetName": "Mira Vell", "relation": "trusts"}]},
    # An unchanged relation restated at an earlier turn: Anna has known it since turn 19, not 20 (her knower
    # row is rewritten), and Mira learns it.
    {"turn": 20, "edges": [{"sourceName": "Anna Rook", "targetName": "Iska", "relation": "KNOWS", "strength": 0.3,
                            "fact": "Anna buys rope news from Iska."}]},
    {"turn": 19, "edges": [{"sourceName": "Anna Rook", "targetName": "Iska", "relation": "KNOWS", "strength": 0.3,
                            "fact": "Anna buys rope news from Iska.", "knownBy": ["Anna Rook", "Mira Vell"]}]},
    # Only new names, so the import makes them without pydantic: a slug already taken (npc-anna-rook-2), a
    # type written "Faction ", spaces collapsed in a name and a summary.
    {"turn": 21, "nodes": [{"name": "Anna-Rook", "summary": "A namesake of Anna's, from upriver."},
                           {"name": "Tide   Guild", "type": "Faction ", "summary": "  A guild   of the tide.  "}]},
]
REJECTED = [7, 8, 13, 17, *range(len(SPECIAL) + 1, len(SPECIAL) + 18)]  # the bad lines, by number


def kith(saves: Path, *args: str) -> int:
    return main(["--saves-dir", str(saves), "graph", *args])


def full_dump(path: Path) -> dict[str, Any]:
    """Nodes, versions in insertion order with their IDs replaced by that order, and knower rows."""
    conn = sqlite3.connect(path)
    try:
        nodes = conn.execute("SELECT * FROM nodes ORDER BY id").fetchall()
        names = conn.execute("SELECT norm, node_id FROM node_names ORDER BY norm, node_id").fetchall()
        edges = conn.execute("SELECT id, source, target, relation, strength, fact, valid_at, invalid_at, evidence "
                             "FROM edges ORDER BY seq").fetchall()
        position = {row[0]: index for index, row in enumerate(edges)}
        knowings = sorted((position[edge_id], *rest) for edge_id, *rest in
                          conn.execute("SELECT edge_id, knower, how, source, confidence, since_turn FROM knowings"))
    finally:
        conn.close()
    return {"nodes": nodes, "names": names, "edges": [row[1:] for row in edges], "knowings": knowings}


def single_upserts(saves: Path, lines: list[dict[str, Any]], capsys: pytest.CaptureFixture[str],
                   tmp_path: Path) -> tuple[list[int], list[dict[str, Any]], dict[str, Any]]:
    """Each line as its own ``kith graph upsert`` into the save ``single``: the lines refused, their
    messages, and the counts an import's summary should add up to."""
    rejected = []
    messages = []
    counted: dict[str, Any] = {"nodes": {"created": 0, "updated": 0}, "edges": {"created": 0, "skipped": 0},
                               "closed": 0}
    for number, line in enumerate(lines, start=1):
        call = {key: value for key, value in line.items() if key != "turn"}
        one = tmp_path / "one.json"
        one.write_text(json.dumps(call), encoding="utf-8")
        if kith(saves, "upsert", "--save", "single", "--turn", str(line["turn"]), str(one)) != 0:
            rejected.append(number)
        [outcome] = json.loads(capsys.readouterr().out)
        if "error" in outcome:
            messages.append({"line": number, "error": outcome["error"]})
        if "error" not in outcome:
            for part, counts in (("nodes", ("created", "updated")), ("edges", ("created", "skipped"))):
                for count in counts:
                    counted[part][count] += outcome[part][count]
            counted["closed"] += sum(1 for c in outcome["closed"] if c.get("id") and not c.get("skipped"))
    return rejected, messages, counted


@pytest.fixture(params=["one-batch", "batches-of-3"])
def batches(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """An import's rows reach the save in batches while later lines are still read (``bulk_write``). With
    a batch every three versions, versions are closed, and knower rows rewritten, after they were sent."""
    if request.param == "batches-of-3":
        monkeypatch.setattr(bulk_write, "SEND_EVERY", 3)


@pytest.mark.parametrize("lines", [
    pytest.param(SPECIAL + EDGE_CASES, id="every-rule"),
    pytest.param(SPECIAL + EDGE_CASES + synthesize(400, seed=3).lines, id="synthetic-game"),
])
def test_import_writes_what_one_upsert_per_line_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      lines: list[dict[str, Any]], batches: None) -> None:
    saves = tmp_path / "saves"
    source = tmp_path / "all.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    imported = kith(saves, "import", "--json", "--save", "bulk", str(source))
    summary = json.loads(capsys.readouterr().out)
    assert imported == 1 and [e["line"] for e in summary["errors"]] == REJECTED

    rejected, messages, counted = single_upserts(saves, lines, capsys, tmp_path)
    assert rejected == REJECTED
    assert summary["errors"] == messages  # each refused in the same words
    assert {key: summary[key] for key in counted} == counted  # the import's summary adds up the same

    bulk, single = full_dump(saves / "bulk.sqlite"), full_dump(saves / "single.sqlite")
    assert bulk["edges"] and bulk["knowings"]
    assert bulk == single


def test_a_file_vocabulary_answers_as_the_vocabulary_it_copies() -> None:
    vocabulary = Vocabulary.default()
    remembered = FileVocabulary.of(vocabulary)
    for written in ("trusts", "LED_BY", "works for", "KIN_OF", "SWORE_VENGEANCE_ON", "  distrusts "):
        for _ in range(2):  # the second answer comes from memory and must be the same
            assert remembered.normalize(written) == vocabulary.normalize(written)
            name = vocabulary.normalize(written).name
            assert remembered.excluded_by(name) == vocabulary.excluded_by(name)
    remembered.excluded_by("TRUSTS").append("LOVES")  # a caller changing its copy changes nothing remembered
    assert remembered.excluded_by("TRUSTS") == vocabulary.excluded_by("TRUSTS")


def test_import_from_standard_input_matches_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(json.dumps(line) + "\n" for line in SPECIAL)
    (tmp_path / "f.jsonl").write_text(text, encoding="utf-8")
    kith(tmp_path / "saves", "import", "--save", "a", str(tmp_path / "f.jsonl"))
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    kith(tmp_path / "saves", "import", "--save", "b", "-")
    capsys.readouterr()
    assert full_dump(tmp_path / "saves" / "a.sqlite") == full_dump(tmp_path / "saves" / "b.sqlite")


def test_an_import_into_a_new_save_leaves_only_the_save(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A new save is filled under a temporary name and named when whole: nothing else stays in the folder."""
    source = tmp_path / "f.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in SPECIAL), encoding="utf-8")
    kith(tmp_path / "saves", "import", "--save", "fresh", str(source))
    capsys.readouterr()
    assert sorted(path.name for path in (tmp_path / "saves").iterdir()) == ["fresh.sqlite"]
    assert full_dump(tmp_path / "saves" / "fresh.sqlite")["edges"]


def test_an_unpublished_commit_gives_the_connection_back_as_it_was(tmp_path: Path) -> None:
    """The one commit of a save being built goes without a journal and without waiting for the disk;
    after it the save is a whole WAL-mode file again, and every later commit journals and waits again."""

    async def go() -> tuple[tuple[Any, ...], tuple[Any, ...], int]:
        async with await SaveDatabase.open(tmp_path / "s.sqlite", schema=SCHEMA, create=True) as db:
            settings = "SELECT * FROM pragma_synchronous, pragma_journal_mode"
            [before] = await db.conn.execute_fetchall(settings)
            loader = await bulk_commit.bulk_loader(db, await db.vocabulary(), random.Random(1))
            for line in SPECIAL[:6]:
                assert not isinstance(await loader.load_line({k: v for k, v in line.items() if k != "turn"},
                                                             line["turn"]), str)
            await bulk_commit.commit_load(db, loader.load, unpublished=True)
            [after] = await db.conn.execute_fetchall(settings)
            return tuple(before), tuple(after), len(await db.graph.all_edges())

    before, after, edges = asyncio.run(go())
    assert before == after and before[0] != 0 and before[1] == "wal" and edges == 5
    conn = sqlite3.connect(tmp_path / "s.sqlite")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        conn.close()


def test_an_import_into_a_graph_already_imported_writes_what_upserts_would(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], batches: None) -> None:
    """A second file into a save the first filled: versions the save already had are closed in place, knower
    rows of theirs are rewritten, and with fewer new versions than stored the indexes are kept up row by row."""
    saves = tmp_path / "saves"
    game = synthesize(300, seed=5).lines
    first, second = SPECIAL + game, EDGE_CASES + [{**line, "turn": line["turn"] + 20} for line in game[-40:]]
    for name, part in (("first", first), ("second", second)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in part), encoding="utf-8")
        kith(saves, "import", "--json", "--save", "bulk", str(tmp_path / f"{name}.jsonl"))
    capsys.readouterr()
    single_upserts(saves, first + second, capsys, tmp_path)
    bulk, single = full_dump(saves / "bulk.sqlite"), full_dump(saves / "single.sqlite")
    assert len(bulk["edges"]) > len(full_dump_of(first, tmp_path, capsys)["edges"])  # the second file added some
    assert bulk == single
    assert schema(saves / "bulk.sqlite") == schema(saves / "single.sqlite")  # every index is there again


def full_dump_of(lines: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    source = tmp_path / "only.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    kith(tmp_path / "saves", "import", "--save", "only", str(source))
    capsys.readouterr()
    return full_dump(tmp_path / "saves" / "only.sqlite")


def schema(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").fetchall()
    finally:
        conn.close()


def test_a_fact_json_cannot_carry_to_sqlite_is_written_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          batches: None) -> None:
    """A NUL inside a fact would end the text in SQLite's JSON reader: such a batch goes row by row instead."""
    lines = [SPECIAL[0],
             {"turn": 1, "edges": [_edge(fact="Iska keeps a letter\u0000 sealed for Mira."),
                                   _edge(relation="FEARS", strength=-0.2, fact="Iska fears the seal.")]},
             {"turn": 2, "closeEdges": [{"sourceName": "Iska", "targetName": "Mira Vell", "relation": "TRUSTS"}]}]
    saves = tmp_path / "saves"
    (tmp_path / "nul.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert kith(saves, "import", "--save", "bulk", str(tmp_path / "nul.jsonl")) == 0
    capsys.readouterr()
    single_upserts(saves, lines, capsys, tmp_path)
    bulk = full_dump(saves / "bulk.sqlite")
    assert bulk == full_dump(saves / "single.sqlite")
    assert bulk["edges"][0][4] == "Iska keeps a letter\u0000 sealed for Mira." and bulk["edges"][0][6] == 2


def test_a_load_that_breaks_a_rule_of_the_tables_writes_nothing(tmp_path: Path) -> None:
    """The save's own checks are off while a load's rows go in, so the load is checked whole before the commit:
    a version whose end is no node is refused in SQLite's words, and the save is left as it was."""
    path = tmp_path / "s.sqlite"
    source = tmp_path / "f.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in SPECIAL[:6]), encoding="utf-8")
    assert kith(tmp_path, "import", "--save", str(path), str(source)) == 0
    before = full_dump(path)

    async def go() -> None:
        async with await SaveDatabase.open(path, schema=SCHEMA) as db:
            load = BulkLoad()
            load.edges["edge-fears-000001"] = ["edge-fears-000001", "npc-iska", "npc-nobody", "FEARS", -0.5,
                                               "Iska fears a person who does not exist.", 20, None, "[]"]
            load.created_edges.add("edge-fears-000001")
            await bulk_commit.commit_load(db, load)

    with pytest.raises(SaveError, match=r"FOREIGN KEY constraint failed.*npc-nobody.*nothing was saved"):
        asyncio.run(go())
    assert full_dump(path) == before
    assert schema(path) == schema_of_new_save(tmp_path)


def schema_of_new_save(tmp_path: Path) -> list[tuple[str, str]]:
    async def make() -> None:
        async with await SaveDatabase.open(tmp_path / "empty.sqlite", schema=SCHEMA, create=True):
            pass

    asyncio.run(make())
    return schema(tmp_path / "empty.sqlite")


def test_an_import_that_stops_half_way_leaves_the_save_as_it_was(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows already sent are part of the one transaction: an interruption after some batches rolls them back,
    and the indexes dropped for the load are there again."""
    monkeypatch.setattr(bulk_write, "SEND_EVERY", 10)
    path = tmp_path / "s.sqlite"
    source = tmp_path / "f.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in SPECIAL[:3]), encoding="utf-8")
    assert kith(tmp_path, "import", "--save", str(path), str(source)) == 0
    before, shape = full_dump(path), schema(path)

    async def go() -> int:
        sent = 0
        async with await SaveDatabase.open(path, schema=SCHEMA) as db:
            loader = await bulk_commit.bulk_loader(db, await db.vocabulary(), random.Random(1))
            lines = synthesize(200, seed=8).lines
            async with bulk_commit.load_stream(db, loader.load, versions=10_000) as stream:
                assert stream is not None
                for line in lines:
                    await loader.load_line({k: v for k, v in line.items() if k != "turn"}, line["turn"] + 5)
                    if stream.due():
                        await stream.send()
                        sent += 1
                    if sent == 3:
                        raise KeyboardInterrupt
        return sent

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(go())
    assert full_dump(path) == before
    assert schema(path) == shape


@pytest.mark.slow
@pytest.mark.parametrize("into", ["a new save", "an existing save"])
def test_ctrl_c_during_an_import_leaves_every_save_as_it_was(tmp_path: Path, into: str) -> None:
    """Ctrl-C while a long file is going in: the one transaction is rolled back (a new save never gets its
    name), the command says so, and exits 130."""
    import os
    import signal
    import subprocess
    import sys
    import time

    saves = tmp_path / "saves"
    first = tmp_path / "first.jsonl"
    first.write_text("".join(json.dumps(line) + "\n" for line in SPECIAL[:6]), encoding="utf-8")
    if into == "an existing save":
        assert kith(saves, "import", "--save", "s", str(first)) == 0
    before = full_dump(saves / "s.sqlite") if into == "an existing save" else None
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps({**line, "turn": line["turn"] + 20}) + "\n"
                           for line in synthesize(150_000, seed=4).lines), encoding="utf-8")
    root = Path(__file__).resolve().parent.parent
    process = interruptible([sys.executable, "-m", "game", "--saves-dir", str(saves), "graph", "import", "--save",
                             "s", str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)})

    def written() -> int:  # the batches going in: the new save's temporary file, or the existing save's WAL
        return sum(path.stat().st_size for path in saves.glob("*") if path.name != "s.sqlite" and path.is_file()) \
            if saves.is_dir() else 0

    deadline = time.monotonic() + 60
    while written() < 2_000_000 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the import ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in err
    assert "interrupted; nothing from" in err and "the save is as it was" in err
    if before is None:
        assert not saves.exists() or not list(saves.iterdir()), "no save, and nothing half made, is left"
    else:
        assert full_dump(saves / "s.sqlite") == before
        conn = sqlite3.connect(saves / "s.sqlite")
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            conn.close()
