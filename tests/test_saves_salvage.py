"""``kith saves salvage NAME NEW`` over real, really damaged save files.

A played brinefall save is damaged one way per test (as a disk error, a bad tool or a hand edit would), and
salvage must write a NEW save that ``kith saves check`` calls ok and that plays on, listing what it left out,
without changing a byte of NAME. An undamaged save salvages into a faithful copy.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.saves import SCHEMA

from game.__main__ import main
from game.cli.saves import save_models
from game.store.salvage import salvage_save

COMMANDS = "look\nhelp hob\ntalk to hob\n"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A brinefall save three turns in (with a relation that changed at turn 2): copied by each test."""
    folder = tmp_path_factory.mktemp("played")
    commands = folder / "commands.txt"
    commands.write_text(COMMANDS)
    assert main(["--saves-dir", str(folder), "run", "--transcript", "--save", "harbour", str(commands)]) == 0
    return folder / "harbour.sqlite"


@pytest.fixture
def saves(tmp_path: Path, played: Path) -> Path:
    shutil.copy(played, tmp_path / "harbour.sqlite")
    return tmp_path


def kith(capsys: pytest.CaptureFixture[str], saves: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--saves-dir", str(saves), *args])
    out, err = capsys.readouterr()
    return code, out, err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def edit(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}
    finally:
        conn.close()


def plays_on(capsys: pytest.CaptureFixture[str], saves: Path, name: str) -> None:
    """``saves check`` calls it ok, and one more turn plays on it (and is saved)."""
    assert kith(capsys, saves, "saves", "check", name)[:2] == (0, "ok\n")
    turns = len(rows(saves / f"{name}.sqlite")["turns"])
    commands = saves / "more.txt"
    commands.write_text("look\n")
    code, out, err = kith(capsys, saves, "run", "--transcript", "--save", name, str(commands))
    assert code == 0, err
    assert "Traceback" not in out + err
    assert len(rows(saves / f"{name}.sqlite")["turns"]) == turns + 1
    assert kith(capsys, saves, "saves", "check", name)[:2] == (0, "ok\n")


def test_an_undamaged_save_salvages_into_a_faithful_copy(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = digest(saves / "harbour.sqlite")
    code, out, err = kith(capsys, saves, "saves", "salvage", "harbour", "again")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].startswith("Salvaged harbour into again (")
    assert out.splitlines()[-1].endswith("rows copied, 0 left out, 0 repaired.")
    assert digest(saves / "harbour.sqlite") == before
    dumps = [kith(capsys, saves, "graph", "dump", "--save", name)[1] for name in ("harbour", "again")]
    assert dumps[0] == dumps[1] and '"edges"' in dumps[0]
    assert rows(saves / "again.sqlite") == rows(saves / "harbour.sqlite"), "every table, turns included"
    assert sorted(p.name for p in saves.iterdir()) == ["again.sqlite", "harbour.sqlite"]
    plays_on(capsys, saves, "again")


def first_edge(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("SELECT id FROM edges ORDER BY seq LIMIT 1").fetchone()[0])
    finally:
        conn.close()


def changed_edge(path: Path) -> str:
    """The version of Hob's trust that the turn 2 closed (its successor opened at turn 2)."""
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("SELECT id FROM edges WHERE invalid_at IS NOT NULL ORDER BY seq").fetchone()[0])
    finally:
        conn.close()


# Each damage: (what to do to the save, the lines salvage must print for it).
Damage = Callable[[Path], list[str]]


def bad_evidence(path: Path) -> list[str]:
    """Where a relation was read is not the relation: it is kept, with its evidence emptied."""
    edge = first_edge(path)
    edit(path, f"UPDATE edges SET evidence = '[' WHERE id = '{edge}'")
    return [f"- edges {edge}: repaired (evidence was not valid JSON: now empty)"]


def bad_node_type(path: Path) -> list[str]:
    edit(path, "UPDATE nodes SET type = 'ghost' WHERE id = 'npc-maud-quaile'")
    return ["- nodes npc-maud-quaile: left out (type is 'ghost', not one of individual, group, faction)", "- edges edge-owes-", ": left out (points at a node that was lost)"]


def dropped_table(path: Path) -> list[str]:
    edit(path, "DROP TABLE npc_memories")
    return ["- npc_memories *: left out (the table is missing from the save)"]


def bad_scene(path: Path) -> list[str]:
    edit(path, "UPDATE scenes SET state = '{\"location\": ' WHERE turn = 2")
    return ["- scenes 2: left out (state is not valid JSON)",
            "- scenes 2: repaired (the scene was lost: turn 1's scene stands in)"]


def bad_timings(path: Path) -> list[str]:
    """A turn whose timings do not decode keeps its story: only the timings are emptied."""
    edit(path, "UPDATE turns SET timings = '{oops' WHERE number = 2")
    return ["- turns 2: repaired (timings was not valid JSON: now empty)"]


def two_open_versions(path: Path) -> list[str]:
    edge = changed_edge(path)
    edit(path, f"UPDATE edges SET invalid_at = NULL WHERE id = '{edge}'")
    return [f"- edges {edge}: repaired (closed at turn 2: a later version of npc-hob-tarrant -> npc-wren-tallis "
            "(TRUSTS) was open too)"]


@pytest.mark.parametrize("damage", [bad_evidence, bad_node_type, dropped_table, bad_scene, bad_timings,
                                    two_open_versions])
def test_each_kind_of_damage_is_left_out_and_the_rest_plays_on(saves: Path, capsys: pytest.CaptureFixture[str],
                                                                damage: Damage) -> None:
    expected = damage(saves / "harbour.sqlite")
    code, out, _ = kith(capsys, saves, "saves", "check", "harbour")
    assert code == 1
    assert out.splitlines()[-1] == "run `kith saves salvage harbour NEW` to copy what can be read into a new save"
    before = digest(saves / "harbour.sqlite")
    code, out, err = kith(capsys, saves, "saves", "salvage", "harbour", "rescued")
    assert (code, err) == (0, ""), err
    for line in expected:
        assert line in out, out
    assert out.splitlines()[-1].startswith("Salvaged harbour into rescued (")
    assert digest(saves / "harbour.sqlite") == before, "salvage never writes the damaged save"
    plays_on(capsys, saves, "rescued")


def test_a_node_left_out_takes_its_relations_and_knowers_with_it(saves: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bad_node_type(saves / "harbour.sqlite")
    assert kith(capsys, saves, "saves", "salvage", "harbour", "rescued")[0] == 0
    kept = rows(saves / "rescued.sqlite")
    assert all("npc-maud-quaile" not in (e[3], e[4]) for e in kept["edges"])
    assert all(k[1] != "npc-maud-quaile" for k in kept["knowings"])
    assert all(n[1] != "npc-maud-quaile" for n in kept["node_names"])
    assert len(kept["nodes"]) == len(rows(saves / "harbour.sqlite")["nodes"]) - 1


def test_a_lost_turn_keeps_its_place_and_the_later_turns(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(saves / "harbour.sqlite", "DELETE FROM turns WHERE number = 2")
    code, out, _ = kith(capsys, saves, "saves", "salvage", "harbour", "rescued")
    assert code == 0 and "- turns 2: repaired (the turn was lost: kept as an empty turn)" in out
    turns = {r[0]: r for r in rows(saves / "rescued.sqlite")["turns"]}
    assert sorted(turns) == [1, 2, 3]
    assert "was lost when the save was damaged" in str(turns[2][2])
    assert turns[3] == {r[0]: r for r in rows(saves / "harbour.sqlite")["turns"]}[3]
    plays_on(capsys, saves, "rescued")
    # Undo walks back over the kept place: turn 4, then 3, then the lost 2 (what its journal kept).
    commands = saves / "undo.txt"
    commands.write_text("undo\nundo\nundo\n")
    assert kith(capsys, saves, "run", "--transcript", "--save", "rescued", str(commands))[0] == 0
    assert sorted(r[0] for r in rows(saves / "rescued.sqlite")["turns"]) == [1]
    assert kith(capsys, saves, "saves", "check", "rescued")[:2] == (0, "ok\n")


def test_corrupted_pages_are_read_around(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Garbage over one page in the middle of a big table: the rows before and after it are kept."""
    path = saves / "harbour.sqlite"
    edit(path, *(f"INSERT INTO journal (turn, kind, key, before) VALUES (0, 'merge', 'row-{i:04d}{'x' * 600}', "
                 "NULL)" for i in range(300)))
    data = bytearray(path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    page = data.index(b"row-0150") // page_size
    data[page * page_size: (page + 1) * page_size] = b"\xde\xad" * (page_size // 2)
    path.write_bytes(bytes(data))
    code, out, _ = kith(capsys, saves, "saves", "check", "harbour")
    assert code == 1 and "integrity:" in out
    before = digest(path)
    code, out, err = kith(capsys, saves, "saves", "salvage", "harbour", "rescued")
    assert (code, err) == (0, ""), err
    assert "- journal after row " in out and ": left out (rows on damaged pages: database disk image is malformed)" in out
    assert digest(path) == before
    keys = [str(r[3])[:8] for r in rows(saves / "rescued.sqlite")["journal"] if str(r[3]).startswith("row-")]
    assert "row-0000" in keys and "row-0299" in keys and "row-0150" not in keys
    # Only the rows on the damaged page are lost (a 4 KB page holds six of them), not the rows jumped over.
    assert 300 - 8 <= len(keys) < 300
    plays_on(capsys, saves, "rescued")


def test_garbage_over_the_middle_of_the_file_still_salvages(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A page in the middle of the relations' table overwritten with junk (which pages those are depends on
    how the game's rows fall, so they are looked up rather than taken at a fixed offset)."""
    path = saves / "harbour.sqlite"
    conn = sqlite3.connect(path)
    try:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [row[0] for row in conn.execute("SELECT pageno FROM dbstat WHERE name = 'edges' AND pagetype = 'leaf' "
                                                "ORDER BY pageno")]
    finally:
        conn.close()
    assert len(pages) >= 2, pages  # rows on both sides of the damage
    data = bytearray(path.read_bytes())
    start = (pages[len(pages) // 2] - 1) * size
    data[start: start + size] = (bytes(range(256)) * (size // 256 + 1))[:size]
    path.write_bytes(bytes(data))
    assert kith(capsys, saves, "saves", "check", "harbour")[0] == 1
    before = digest(path)
    code, _, err = kith(capsys, saves, "saves", "salvage", "harbour", "rescued")
    assert (code, err) == (0, ""), err
    assert digest(path) == before
    plays_on(capsys, saves, "rescued")


def test_an_existing_new_save_is_refused_and_nothing_changes(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(saves / "harbour.sqlite", saves / "taken.sqlite")
    bad_evidence(saves / "harbour.sqlite")
    hashes = {p.name: digest(p) for p in saves.iterdir()}
    code, out, err = kith(capsys, saves, "saves", "salvage", "harbour", "taken")
    assert (code, out) == (2, "")
    assert err == ("kith: a save named 'taken' already exists; choose another name or delete it first\n")
    assert {p.name: digest(p) for p in saves.iterdir()} == hashes


@pytest.mark.parametrize(("args", "said"), [
    (("harbour", "no/slash"), "is not a save name"),
    (("ghost", "new"), "there is no save 'ghost'"),
])
def test_bad_arguments_exit_2(saves: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, str],
                              said: str) -> None:
    code, _, err = kith(capsys, saves, "saves", "salvage", *args)
    assert code == 2 and said in err and "Traceback" not in err
    assert sorted(p.name for p in saves.iterdir()) == ["harbour.sqlite"]


def test_nothing_rescued_exits_1_and_writes_nothing(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(saves / "harbour.sqlite", "DROP TABLE scenes")
    code, out, err = kith(capsys, saves, "saves", "salvage", "harbour", "rescued")
    assert code == 1 and out == ""
    assert err == "kith: nothing could be rescued from harbour: no scene of the game could be read; no save was written\n"
    assert sorted(p.name for p in saves.iterdir()) == ["harbour.sqlite"]


def test_a_file_that_is_not_a_save_exits_1(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (saves / "junk.sqlite").write_bytes(b"not a database at all" * 100)
    code, _, err = kith(capsys, saves, "saves", "salvage", "junk", "rescued")
    assert code == 1 and err.startswith("kith: nothing could be rescued from junk: ")
    assert not (saves / "rescued.sqlite").exists()


def test_an_interrupted_salvage_leaves_no_half_save(saves: Path) -> None:
    """Ctrl-C while rows are copied: no NEW, and no temporary file left beside the saves."""
    def interrupted(_state: dict[str, object]) -> object:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        salvage_save(saves / "harbour.sqlite", saves / "rescued.sqlite", SCHEMA, {("scenes", "state"): interrupted})
    assert sorted(p.name for p in saves.iterdir()) == ["harbour.sqlite"]
    report = salvage_save(saves / "harbour.sqlite", saves / "rescued.sqlite", SCHEMA, save_models())
    assert report.items == [] and report.path == saves / "rescued.sqlite"


def test_an_old_save_is_salvaged_at_its_own_version_and_upgrades_when_played(
        saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """NEW keeps NAME's schema version, so its first opening migrates it as NAME's would have."""
    from helpers.saves import CURRENT_VERSION, SCRIPTS

    old = saves / "old.sqlite"
    conn = sqlite3.connect(old)
    for script in SCRIPTS[:5]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 5")
    conn.execute("ATTACH ? AS played", (str(saves / "harbour.sqlite"),))
    for table in ("meta", "nodes", "edges", "knowings"):
        conn.execute(f"INSERT INTO main.{table} SELECT * FROM played.{table}")
    conn.execute("INSERT INTO main.scenes SELECT * FROM played.scenes WHERE turn = 0")
    conn.execute("UPDATE main.edges SET invalid_at = NULL, evidence = '[\"turn-0\"' WHERE valid_at > 0")
    conn.commit()
    conn.execute("DETACH played")
    conn.close()
    code, out, _ = kith(capsys, saves, "saves", "salvage", "old", "rescued")
    assert code == 0 and ": repaired (evidence was not valid JSON: now empty)" in out
    version = sqlite3.connect(saves / "rescued.sqlite")
    assert version.execute("PRAGMA user_version").fetchone()[0] == 5
    version.close()
    plays_on(capsys, saves, "rescued")
    version = sqlite3.connect(saves / "rescued.sqlite")
    assert version.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
    version.close()


def test_a_killed_salvage_leaves_a_hidden_file_the_next_command_sweeps(saves: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """kill -9 skips every cleanup: the half-built NEW has a hidden temporary name that is never a save."""
    import subprocess
    import sys

    from game.store.connection import temporary_name

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    half = temporary_name(saves / "rescued.sqlite", "salvage").name.rsplit("-", 1)[0] + f"-{dead.stdout.strip()}"
    (saves / half).write_bytes(b"half a save")
    code, out, _ = kith(capsys, saves, "saves", "list")
    assert code == 0 and "rescued" not in out
    assert sorted(p.name for p in saves.iterdir()) == ["harbour.sqlite"]


def test_garbage_over_any_one_page_salvages_or_says_why_not(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each page of the file in turn: NEW is written and checks ok, or exit 1 says why; NAME never changes."""
    original = (saves / "harbour.sqlite").read_bytes()
    page_size = int.from_bytes(original[16:18], "big")
    outcomes = []
    for page in range(1, len(original) // page_size):
        name = f"p{page}"
        data = bytearray(original)
        data[page * page_size:(page + 1) * page_size] = bytes((i * 7 + page) % 256 for i in range(page_size))
        (saves / f"{name}.sqlite").write_bytes(bytes(data))
        code, out, err = kith(capsys, saves, "saves", "salvage", name, f"{name}-new")
        assert "Traceback" not in out + err
        assert (saves / f"{name}.sqlite").read_bytes() == bytes(data), "NAME is never written"
        if code == 0:
            assert kith(capsys, saves, "saves", "check", f"{name}-new")[:2] == (0, "ok\n"), out
        else:
            assert code == 1 and err.startswith(f"kith: nothing could be rescued from {name}: "), err
            assert not (saves / f"{name}-new.sqlite").exists()
        outcomes.append(code)
    assert not [p.name for p in saves.iterdir() if p.name.startswith(".")], "no temporary file is left"
    assert outcomes.count(0) > len(outcomes) * 3 // 4, "most single-page damage is salvaged"


def test_of_two_open_versions_the_later_stays_open(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = saves / "harbour.sqlite"
    earlier = changed_edge(path)
    two_open_versions(path)
    assert kith(capsys, saves, "saves", "salvage", "harbour", "rescued")[0] == 0
    conn = sqlite3.connect(saves / "rescued.sqlite")
    versions = conn.execute("SELECT id, valid_at, invalid_at FROM edges WHERE source = 'npc-hob-tarrant' "
                            "AND target = 'npc-wren-tallis' AND relation = 'TRUSTS' ORDER BY seq").fetchall()
    conn.close()
    assert [(v[0] == earlier, v[1], v[2]) for v in versions] == [(True, 0, 2), (False, 2, None)]
