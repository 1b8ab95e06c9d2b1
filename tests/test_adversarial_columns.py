"""Every decoded column damaged in turn (issue 21), through ``saves check``, ``saves salvage``, the list and play.

Before, one bad byte in an attitude's history or a memory's tags made the game refuse the save while
``saves check`` said ok, ``saves salvage`` copied the row unchanged and ``graph attitude`` printed a
traceback. The table every one of them now shares (``game.store.decoded.TABLES``) drives this suite: a
played brinefall save with rows in every table has one value of one column damaged as its kind can be,
two ways each (text that is not UTF-8 or a BLOB where text was, a number that is text or a BLOB, JSON
that is not or JSON ``null``, a compressed text that does not decompress or is empty), and then

- ``saves check`` names the column;
- play either plays on, or refuses with the damaged-save message (never another exception), and a save
  play refuses on opening is marked damaged by ``saves list``; every one-shot reader (``READERS``: each
  ``kith graph`` command that reads, ``gossip --dry-run`` among them, and the list) prints a result or one
  ``kith:`` line;
- ``saves salvage`` writes a new save that checks ok and plays a turn.

Cases: two per column of ``TABLES`` (``len(CASES)``: 222), plus three through the command line (the issue's
two, and a memory's uses below 0).
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers.saves import CURRENT_VERSION, SCHEMA, SCRIPTS

from game.__main__ import main
from game.cli.saves import save_models
from game.config import Settings, load_settings
from game.engine.session import GameSession
from game.errors import SaveError
from game.features.identity.questions import PendingIdentity
from game.graph.metapaths import MetaPath
from game.graph.ports import GraphWrites
from game.store import decoded, layout, metapath_patterns
from game.store.check import check_save, promised_columns
from game.store.database import SaveDatabase
from game.store.salvage import salvage_save
from game.store.saves import list_saves

COMMANDS = "look\nhelp hob\ntalk to hob\nthreaten hob\n/memory Hob is my uncle\n/note keep it grim\nretry\n"
# The values each kind of column is damaged with, as SQL: the first as the issue found them (bad UTF-8,
# a word for a number, text that is not JSON); the second as a flipped type byte would leave them (a BLOB
# where text or a number was, JSON of another shape, an empty compressed value), which the graph's bulk
# readers once let through to a traceback far from the read (a sort, ``json.dumps``, ``.get``).
DAMAGE = {"text": ("CAST(x'ff80' AS TEXT)", "x'00ff'"), "integer": ("'seven'", "x'01'"), "real": ("'warm'", "x'01'"),
          "json": ("'not json'", "'null'"), "packed": ("x'00ff00'", "x''")}
# The row damaged, where the first row by key is not the telling one.
ROW = {"meta": "key = 'vocabulary'", "journal": "id = (SELECT min(id) FROM journal WHERE kind LIKE 'row:%' "
       "AND before IS NOT NULL)"}
DERIVED = {"node_names"}
"""Rebuilt by salvage from the rows it keeps, not copied: nothing of it is reported."""


def _rowids() -> set[tuple[str, str]]:
    """Columns that are a table's rowid (``INTEGER PRIMARY KEY``): SQLite itself keeps them whole numbers."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(";\n".join(SCRIPTS))
        return {(t, str(r[1])) for t in decoded.TABLES for r in conn.execute(f'PRAGMA table_info("{t}")')
                if r[5] == 1 and str(r[2]).upper() == "INTEGER"
                and "WITHOUT ROWID" not in str(conn.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                                                            (t,)).fetchone()[0]).upper()}
    finally:
        conn.close()


READERS = (("graph", "attitude", "--save", "game", "Hob"), ("graph", "memories", "--save", "game", "Hob"),
           ("graph", "pending", "--save", "game"), ("graph", "node", "--save", "game", "Hob"),
           ("graph", "dump", "--save", "game"), ("graph", "retrieve", "--save", "game", "talk to hob"),
           ("graph", "knows", "--save", "game", "Hob"), ("graph", "stats", "--save", "game"),
           ("graph", "neighbours", "--save", "game", "Hob"), ("graph", "path", "--save", "game", "Hob", "Wren"),
           ("graph", "history", "--save", "game", "Hob", "Wren"), ("graph", "map", "--save", "game"),
           ("graph", "patterns", "--save", "game"), ("graph", "gaps", "--save", "game"),
           ("graph", "gossip", "--dry-run", "--save", "game"), ("saves", "list"), ("saves", "list", "--json"))
"""Every command that reads a save without playing it (``gossip --dry-run`` reads the cooldown's log)."""
CASES = [(table, column, damage) for table, columns in decoded.TABLES.items() for column in columns
         if (table, column) not in _rowids() for damage in DAMAGE[columns[column].kind]]


def settings_for(saves: Path) -> Settings:
    return load_settings(flags={"saves_dir": saves}, env={})


async def _fill_the_rest(path: Path) -> None:
    """Rows of the tables a short offline game leaves empty, written by the store's own writers."""
    db = await SaveDatabase.open(path, schema=SCHEMA)
    try:
        await layout.save_layout(db, {"npc-hob-tarrant": (1.5, -2.0), "npc-wren-tallis": (0.0, 0.0)})
        question = PendingIdentity("4-1", 4, "npc-fenn-orrick", "Fenn Orrick", "npc-hob-tarrant", "Hob Tarrant", 0.5,
                                   "a ferryman named in passing")
        await db.commit_graph(GraphWrites(), rows=[question.write()])
        await metapath_patterns.replace(db, [metapath_patterns.KeptPattern(
            MetaPath(("KIN_OF", "TRUSTS"), 0.5, "discovered"), 3, 0.25, 4)])
    finally:
        await db.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A brinefall game with a row in every table: turns told and told again, a note, a merge, a map
    layout, an identity question and a kept pattern."""
    saves = tmp_path_factory.mktemp("played")
    commands = saves / "commands.txt"
    commands.write_text(COMMANDS)
    assert main(["--saves-dir", str(saves), "run", "--transcript", "--save", "game", str(commands)]) == 0
    assert main(["--saves-dir", str(saves), "graph", "merge", "--save", "game", "npc-dace-merrow",
                 "npc-isolde-kett"]) == 0
    asyncio.run(_fill_the_rest(saves / "game.sqlite"))
    conn = sqlite3.connect(saves / "game.sqlite")
    try:
        empty = [t for t in decoded.TABLES if conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] == 0]
    finally:
        conn.close()
    assert empty == [], "every table has a row to damage"
    assert check_save(saves / "game.sqlite", SCHEMA, save_models()) == []
    return (saves / "game.sqlite").read_bytes()


def test_the_table_describes_every_column_of_the_schema() -> None:
    """A column a migration adds fails here until ``game.store.decoded`` says how it is read, so check,
    salvage, the list and the readers cannot forget it."""
    schema = {t: c for t, c in promised_columns(CURRENT_VERSION, SCHEMA).items() if not t.startswith("sqlite_")}
    assert {t: list(c) for t, c in decoded.TABLES.items()} == schema
    assert set(schema) >= decoded.OPENED


def damage(path: Path, table: str, column: str, value: str) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        keys = decoded.key_columns(conn, table)
        where = ROW.get(table)
        if where is None:
            first = conn.execute(f'SELECT {", ".join(keys)} FROM "{table}" ORDER BY {", ".join(keys)} '
                                 "LIMIT 1").fetchone()
            where = " AND ".join(f'"{k}" = ?' for k in keys)
            values: tuple[object, ...] = tuple(first)
        else:
            values = ()
        changed = conn.execute(f'UPDATE "{table}" SET "{column}" = {value} '
                               f"WHERE {where}", values).rowcount
        assert changed == 1
        conn.commit()
    finally:
        conn.close()


async def play(saves: Path, name: str, *commands: str) -> None:
    session = await GameSession.open(settings_for(saves), save=name)
    try:
        for command in commands:
            async for _event in session.play_turn(command):
                pass
    finally:
        await session.close()


@pytest.mark.slow
@pytest.mark.parametrize(("table", "column", "value"), CASES, ids=[f"{t}.{c}={v}" for t, c, v in CASES])
def test_each_decoded_column_damaged_is_named_by_check_refused_cleanly_and_salvaged(
        played: bytes, tmp_path: Path, table: str, column: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    path = saves / "game.sqlite"
    path.write_bytes(played)
    damage(path, table, column, value)

    problems = check_save(path, SCHEMA, save_models())
    assert any(f": {column} " in problem for problem in problems), problems

    try:
        asyncio.run(play(saves, "game", "look", "/mind Hob", "undo"))
    except SaveError as error:  # anything but a SaveError fails the test: a traceback for the player
        assert "is damaged" in error.message and "kith saves check game" in error.message, error.message
        opened = asyncio.run(_opens(saves))
        if not opened:
            assert [s.error for s in list_saves(saves, SCHEMA) if s.name == "game"] != [None], \
                "a save play refuses to open is marked damaged in the list"

    for words in READERS:  # the one-shot readers: a result, or one ``kith:`` line naming the save
        capsys.readouterr()
        code = main(["--saves-dir", str(saves), *words])
        err = capsys.readouterr().err
        assert code == 0 or (code == 2 and err.startswith("kith: ") and len(err.splitlines()) == 1), err

    still = check_save(path, SCHEMA, save_models())  # play rewrites some values as it opens (the world's vocabulary)
    report = salvage_save(path, saves / "rescued.sqlite", SCHEMA, save_models())
    assert table in DERIVED or not still or any(item.table == table for item in report.items), report.items
    assert check_save(saves / "rescued.sqlite", SCHEMA, save_models()) == []
    asyncio.run(play(saves, "rescued", "look"))
    assert check_save(saves / "rescued.sqlite", SCHEMA, save_models()) == []


async def _opens(saves: Path) -> bool:
    try:
        session = await GameSession.open(settings_for(saves), save="game")
    except SaveError:
        return False
    await session.close()
    return True


@pytest.fixture
def issue_saves(tmp_path: Path, played: bytes) -> Path:
    saves = tmp_path / "saves"
    saves.mkdir()
    (saves / "game.sqlite").write_bytes(played)
    return saves


@pytest.mark.parametrize(("statement", "reader", "column"), [
    ("UPDATE attitudes SET history = substr(history, 1, length(history) - 1) WHERE npc_id = 'npc-hob-tarrant'",
     "attitude", "attitudes npc-hob-tarrant: history is not valid JSON"),
    ("UPDATE npc_memories SET tags = 'not json' WHERE npc = 'npc-hob-tarrant' AND seq = 2",
     "memories", "npc_memories npc-hob-tarrant:2: tags is not valid JSON"),
    # A whole number, but not a count: the strength of a memory divides by 1 + uses (a ZeroDivisionError).
    ("UPDATE npc_memories SET uses = -1 WHERE npc = 'npc-hob-tarrant' AND seq = 2",
     "memories", "npc_memories npc-hob-tarrant:2: uses is -1, and a count is never below 0"),
])
def test_the_issue_cases_through_the_command_line(issue_saves: Path, statement: str, reader: str, column: str,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    saves = issue_saves
    conn = sqlite3.connect(saves / "game.sqlite")
    conn.execute(statement)
    conn.commit()
    conn.close()
    base = ["--saves-dir", str(saves)]
    capsys.readouterr()
    assert main([*base, "saves", "check", "game"]) == 1
    assert f"- {column}\n" in capsys.readouterr().out

    assert main([*base, "saves", "list"]) == 0
    assert f"game is damaged ({column}); `kith saves check game` lists what is wrong" in capsys.readouterr().out

    assert main([*base, "graph", reader, "--save", "game", "Hob"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kith: game is damaged (") and "`kith saves check game`" in err
    assert len(err.splitlines()) == 1, err

    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("look\n"))
    assert main([*base, "play", "--plain", "--save", "game"]) == 2
    assert capsys.readouterr().err.startswith("kith: game is damaged (")

    assert main([*base, "saves", "salvage", "game", "rescued"]) == 0
    where, _, what = column.partition(": ")
    mended = "now 0" if "count" in what else "now empty"
    assert f"- {where}: repaired ({what.replace(' is ', ' was ', 1)}: {mended})\n" in capsys.readouterr().out
    assert main([*base, "saves", "check", "rescued"]) == 0
    assert capsys.readouterr().out == "ok\n"
    assert main([*base, "graph", reader, "--save", "rescued", "Hob"]) == 0
    commands = saves / "more.txt"
    commands.write_text("look\n")
    assert main([*base, "run", "--transcript", "--save", "rescued", str(commands)]) == 0
    shutil.rmtree(saves)
