"""A feature's table missing from a save: empty only in a save older than the table's migration.

Tables added by later migrations (identity questions, tellings, contexts, attitudes, memories, notes, undo
steps, meta-path patterns) are read as empty in a save written before they existed, which is right: the
save simply has none yet. In a save whose schema version promises the table, its absence is damage (a
hand or a tool dropped it), and every command that reads it says so in one line naming the save and
``kith saves check``, instead of showing nothing as if nothing were there. The save is never changed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import aiosqlite
import pytest
from helpers.saves import CURRENT_VERSION, SCHEMA, migration_of, older_save

from game.__main__ import main
from game.features.identity import questions as pending
from game.store.saves import read_save_info

CONTENT = Path(__file__).parent.parent / "content"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Brinefall save two turns in: every feature's table holds rows."""
    folder = tmp_path_factory.mktemp("played")
    commands = folder / "commands.txt"
    commands.write_text("talk to hob\nhelp hob\n", encoding="utf-8")
    assert main(["--saves-dir", str(folder / "saves"), "--content-dir", str(CONTENT), "run", "--transcript",
                 "--save", "g", "--world", "brinefall", str(commands)]) == 0
    return folder / "saves" / "g.sqlite"


def without(played: Path, tmp_path: Path, table: str) -> Path:
    """A copy of ``played`` in its own saves folder, ``table`` dropped by hand (the schema version kept)."""
    saves = tmp_path / "saves"
    saves.mkdir()
    path = shutil.copy(played, saves / "g.sqlite")
    with sqlite3.connect(path) as conn:
        conn.execute(f"DROP TABLE {table}")
    conn.close()
    return Path(path)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kith(capsys: pytest.CaptureFixture[str], saves: Path, *words: str) -> tuple[int, str, str]:
    code = main(["--saves-dir", str(saves), "--content-dir", str(CONTENT), *words])
    out, err = capsys.readouterr()
    return code, out, err


def transcript(tmp_path: Path, *lines: str) -> str:
    commands = tmp_path / "commands.txt"
    commands.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(commands)


def assert_damage_named(code: int, err: str, table: str) -> None:
    assert code == 2, err
    assert err.startswith("kith: g is damaged") and f"no such table: {table}" in err, err
    assert "kith saves check g" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


# Each table, and a command that reads it (besides opening a game, which reads most of them).
READERS = [
    ("pending_identities", ["graph", "pending", "--save", "g"]),
    ("pending_identities", ["graph", "pending", "--save", "g", "--json"]),
    ("pending_identities", "play"),
    ("metapath_patterns", ["graph", "patterns", "--save", "g"]),
    ("undo_steps", ["undo"]),
    ("turn_context", ["/mind hob"]),
    ("attitudes", ["graph", "attitude", "--save", "g", "hob"]),
    ("npc_memories", ["graph", "memories", "--save", "g", "hob"]),
    ("npc_said", ["graph", "memories", "--save", "g", "hob"]),
    ("notes", "play"),
]


@pytest.mark.parametrize(("table", "reader"), READERS)
def test_a_missing_table_a_current_save_promises_is_damage_every_reader_names(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str,
        reader: list[str] | str) -> None:
    path = without(played, tmp_path, table)
    before = digest(path)
    if isinstance(reader, str):  # opening the game and playing on
        code, _out, err = kith(capsys, path.parent, "run", "--transcript", "--save", "g", transcript(tmp_path, "look"))
        assert_damage_named(code, err, table)
    elif reader[0] == "graph":
        code, _out, err = kith(capsys, path.parent, *reader)
        assert_damage_named(code, err, table)
    else:  # an in-game command: the game says so in the story and goes on
        code, out, err = kith(capsys, path.parent, "run", "--transcript", "--save", "g",
                              transcript(tmp_path, *reader))
        said = out.split(f"> {reader[0]}\n", 1)[1].strip().splitlines()[0]
        assert code == 0 and "Traceback" not in out + err
        assert said.startswith(f"g is damaged (no such table: {table}); kith saves check g lists"), said
    assert digest(path) == before, "reading a damaged save never changes it"


def test_the_saves_list_marks_a_save_missing_its_tellings_as_damaged(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = without(played, tmp_path, "swipes")
    before = digest(path)
    code, out, err = kith(capsys, path.parent, "saves", "list")
    assert code == 0 and not err
    [row] = out.strip().splitlines()[1:]
    assert "g is damaged (no such table: swipes)" in row and "kith saves check g" in row
    code, out, _ = kith(capsys, path.parent, "saves", "list", "--json")
    [entry] = json.loads(out)
    assert code == 0 and "no such table: swipes" in entry["error"]
    assert digest(path) == before


def test_the_saves_list_marks_a_save_missing_a_column_its_version_promises(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    path = Path(shutil.copy(played, saves / "g.sqlite"))
    with sqlite3.connect(path) as conn:
        conn.executescript("DROP INDEX turns_pending; ALTER TABLE turns DROP COLUMN extraction")
    conn.close()
    info = read_save_info(path, SCHEMA)
    assert info.error is not None and "no such column: extraction" in info.error


def test_an_old_save_without_the_tables_lists_and_reads_as_empty(played: Path, tmp_path: Path) -> None:
    """A save from before tellings and questions were kept is not damaged: it has none yet."""
    at = migration_of("CREATE TABLE swipes")
    old = older_save(played, tmp_path / "old.sqlite", at)
    info = read_save_info(old, SCHEMA)
    assert info.error is None and info.turns == 2
    assert (info.prompt_tokens, info.completion_tokens) == (0, 0)
    before_fast = older_save(played, tmp_path / "older.sqlite", migration_of("ADD COLUMN extraction"))
    info = read_save_info(before_fast, SCHEMA)
    assert info.error is None and info.fast == 0


async def test_identity_questions_of_a_save_older_than_them_are_none(played: Path, tmp_path: Path) -> None:
    old = older_save(played, tmp_path / "old.sqlite", migration_of("CREATE TABLE pending_identities"))
    async with aiosqlite.connect(old) as conn:
        assert await pending.read(conn) == []
    current = without(played, tmp_path, "pending_identities")
    async with aiosqlite.connect(current) as conn:
        with pytest.raises(sqlite3.OperationalError, match="no such table: pending_identities"):
            await pending.read(conn)
    assert migration_of("CREATE TABLE pending_identities") < CURRENT_VERSION
