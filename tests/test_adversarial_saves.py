"""Adversarial saves (issue 8): kill -9 mid-write, a second process, truncated and bit-flipped files.

Whatever happens to a save, every command either works or prints one ``kith:`` line (a ``KithError``),
never a traceback; a save holds only whole turns; reading a damaged save never changes a byte of it.
Case counts (reported in the closing note): 4 kill modes x ``KILLS`` rounds, ``len(TRUNCATIONS)``
truncations and ``FLIPS`` single-bit flips, each run through ``READS`` plus opening and playing a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.play import play_session
from helpers.saves import SCHEMA

from game.__main__ import main
from game.config import Settings, load_settings
from game.engine.session import GameSession
from game.errors import KithError
from game.store import turn_log
from game.store.check import check_save
from game.store.database import SaveDatabase

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
ROOT = Path(__file__).resolve().parent.parent
WRITER = Path(__file__).with_name("kill_writer.py")
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
KILLS = 5
TRUNCATIONS = (0, 50, 100, 1024, 4096, 8192, -4096, -1)
FLIPS = 100
READS = (("saves", "list"), ("saves", "check", "game"), ("graph", "dump", "--save", "game"),
         ("graph", "stats", "--save", "game"), ("graph", "node", "--save", "game", "Edda"))


def settings_for(saves: Path) -> Settings:
    return load_settings(flags={"saves_dir": saves, "content_dir": FIXTURES}, env={})


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def play(saves: Path, *commands: str) -> None:
    session = await GameSession.open(settings_for(saves), save="game", world="tiny")
    try:
        await play_session(session, commands)
    finally:
        await session.close()


async def whole(path: Path, *, game: bool = True) -> int:
    """Assert the save at ``path`` is whole: healthy rows, contiguous turns, a scene for each. Its turn."""
    assert check_save(path, SCHEMA) == [], path.name
    db = await SaveDatabase.open(path, schema=SCHEMA)
    try:
        turn = await db.current_turn()
        if game:
            assert (await db.world_id()) == "tiny" and await db.graph.all_nodes(), f"{path.name} has its turn 0"
            assert all([await turn_log.scene_at(db, n) is not None for n in range(turn + 1)])
        return turn
    finally:
        await db.close()


def run_and_kill(saves: Path, mode: str, rng: random.Random) -> None:
    process = subprocess.Popen([sys.executable, str(WRITER), str(saves), mode], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=ENV, text=True, cwd=ROOT)
    assert process.stdout is not None
    process.stdout.readline()  # one step done, so kills land among steps, at any point of one
    time.sleep(rng.uniform(0.0, 0.4))
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stdout.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["new-game", "snapshot", "restart", "import"])
async def test_kill_9_in_the_middle_leaves_only_whole_saves(tmp_path: Path, mode: str) -> None:
    saves = tmp_path / "saves"
    if mode in {"snapshot", "restart"}:
        await (await GameSession.open(settings_for(saves), save="game", new=True, world="tiny")).close()
    rng = random.Random(f"kill-{mode}")
    for _round in range(KILLS):
        run_and_kill(saves, mode, rng)
        saves_now = sorted(p for p in saves.glob("*.sqlite"))
        for path in saves_now:
            if mode == "import":
                db = await SaveDatabase.open(path, schema=SCHEMA)
                try:
                    assert len(await db.graph.all_nodes()) in {0, 150}, "an import is all or nothing"
                finally:
                    await db.close()
                assert check_save(path, SCHEMA) == []
            else:
                await whole(path)
        if mode in {"snapshot", "restart"}:
            await play(saves, "help Edda")  # the game goes on after every kill
    # The next use of the folder sweeps what the killed processes were building.
    await (await GameSession.open(settings_for(saves), save="after", new=True, world="tiny")).close()
    assert [p.name for p in saves.iterdir() if p.name.startswith(".")] == []


def test_a_second_process_is_refused_while_a_game_is_open(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    asyncio.run(play_new(saves))
    before = digest(saves / "game.sqlite")
    holder = subprocess.Popen([sys.executable, "-m", "game", "--saves-dir", str(saves), "--content-dir",
                               str(FIXTURES), "play", "--plain", "--save", "game"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, text=True, cwd=ROOT)
    assert holder.stdout is not None and holder.stdin is not None
    try:
        holder.stdout.readline()  # the game is open once it speaks
        second = subprocess.run([sys.executable, "-m", "game", "--saves-dir", str(saves), "--content-dir",
                                 str(FIXTURES), "play", "--plain", "--save", "game"], input="undo\nquit\n",
                                capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=60)
        assert second.returncode == 2 and "open in another Kith process" in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1, second.stderr
    finally:
        holder.communicate("quit\n", timeout=60)
    assert holder.returncode == 0
    assert digest(saves / "game.sqlite") == before, "the refused process changed nothing"


async def play_new(saves: Path) -> None:
    session = await GameSession.open(settings_for(saves), save="game", new=True, world="tiny")
    try:
        await play_session(session, ["help Edda", "threaten Edda", "help Edda", "save snap"])
    finally:
        await session.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real played save: three turns with relations changed, and a snapshot."""
    saves = tmp_path_factory.mktemp("played") / "saves"
    asyncio.run(play_new(saves))
    return (saves / "game.sqlite").read_bytes()


def use(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every read, then a game opened and played: each works or ends in one clean ``kith:`` line."""
    path = saves / "game.sqlite"
    before = digest(path)
    for words in READS:
        code = main(["--saves-dir", str(saves), "--content-dir", str(FIXTURES), *words])
        _out, err = capsys.readouterr()
        assert code in {0, 1, 2}
        assert code != 2 or (err.startswith("kith: ") and len(err.strip().splitlines()) == 1), err
    assert digest(path) == before, "reading a damaged save never changes it"
    with contextlib.suppress(KithError):  # a refusal is fine; any other exception fails the test
        asyncio.run(play(saves, "help Edda", "undo"))


def damaged_copy(tmp_path: Path, data: bytes) -> Path:
    saves = tmp_path / "saves"
    shutil.rmtree(saves, ignore_errors=True)
    saves.mkdir()
    (saves / "game.sqlite").write_bytes(data)
    return saves


@pytest.mark.parametrize("offset", TRUNCATIONS)
def test_a_truncated_save_is_refused_cleanly(played: bytes, offset: int, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    use(damaged_copy(tmp_path, played[:offset]), capsys)


@pytest.mark.slow
def test_random_bit_flips_give_a_clean_message_or_work(played: bytes, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(8)
    outcomes = {"works": 0, "refused": 0}
    for _case in range(FLIPS):
        data = bytearray(played)
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
        saves = damaged_copy(tmp_path, bytes(data))
        use(saves, capsys)
        try:
            outcomes["works" if check_save(saves / "game.sqlite", SCHEMA) == [] else "refused"] += 1
        except KithError:
            outcomes["refused"] += 1
    # use() above holds the assertions (one clean line or a working game); this only reports the mix.
    print(f"{FLIPS} single-bit flips: {outcomes}")


@pytest.mark.parametrize("damage", [
    "UPDATE edges SET evidence = '['",
    "UPDATE nodes SET aliases = CAST(x'80ff' AS TEXT)",
    "UPDATE scenes SET state = '{\"location\": 5, \"cast\": \"nobody\"}'",
    "UPDATE scenes SET state = '[1, 2]'",
    "UPDATE nodes SET attributes = 'not json'",
    # The indexes on the fast path's marks read the column: a hand that drops it drops them first.
    "DROP INDEX edges_fast_read; DROP INDEX edges_fast_closed; ALTER TABLE edges DROP COLUMN evidence",
    "UPDATE journal SET before = '{' WHERE before IS NOT NULL",
    "UPDATE turns SET timings = '[' ",
])
def test_damaged_rows_give_one_message_naming_the_save(played: bytes, damage: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    saves = damaged_copy(tmp_path, played)
    conn = sqlite3.connect(saves / "game.sqlite")
    conn.executescript(damage)
    conn.commit()
    conn.close()
    assert main(["--saves-dir", str(saves), "saves", "check", "game"]) == 1
    assert "problem" in capsys.readouterr().out
    use(saves, capsys)
    code = main(["--saves-dir", str(saves), "--content-dir", str(FIXTURES), "graph", "dump", "--save", "game"])
    err = capsys.readouterr().err
    assert code == 0 or "game" in err


@pytest.mark.parametrize("version", [5, 1, 0, -1, 99])
def test_a_format_number_play_refuses_is_refused_by_check_alike_and_nothing_is_written(
        played: bytes, version: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``user_version`` set by another hand (issue 21): 5 or 1 on a save whose tables are of the current
    format (upgrading would create tables that exist), 0 or -1 (below every Kith format; -1 once ran the
    last migration over the save before the refusal), 99 (a newer Kith). ``saves check`` refuses exactly
    what play refuses, with the same one line, and neither writes a byte; ``saves salvage`` rescues every
    one but the newer Kith's into a save of the format its tables are."""
    import sqlite3

    saves = damaged_copy(tmp_path, played)
    path = saves / "game.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    before = digest(path)
    base = ["--saves-dir", str(saves), "--content-dir", str(FIXTURES)]
    assert main([*base, "saves", "check", "game"]) == 2
    checked = capsys.readouterr().err
    with pytest.raises(KithError) as refused:
        asyncio.run(play(saves, "look"))
    assert checked == f"kith: {refused.value.message}\n"
    assert "left untouched" in checked and len(checked.splitlines()) == 1
    assert digest(path) == before, "nothing is written to a refused save"
    assert sorted(p.name for p in saves.iterdir()) == ["game.sqlite"]
    assert main([*base, "saves", "list"]) == 0
    assert "left untouched" in capsys.readouterr().out, "the list marks it as play would refuse it"

    # The remedy: the rows are whole, so salvage reads them at the format the tables show (not a newer one's).
    if version == 99:
        assert main([*base, "saves", "salvage", "game", "rescued"]) == 1
        assert "newer Kith" in capsys.readouterr().err and not (saves / "rescued.sqlite").exists()
        return
    assert "`kith saves salvage game NEW`" in checked
    assert main([*base, "saves", "salvage", "game", "rescued"]) == 0
    shown = capsys.readouterr().out
    assert f"- meta format: repaired (its format number was {version}; its tables are format " in shown
    assert digest(path) == before, "salvage only reads the damaged save"
    assert main([*base, "saves", "check", "rescued"]) == 0
    commands = tmp_path / "more.txt"
    commands.write_text("look\n")
    assert main([*base, "run", "--transcript", "--save", "rescued", str(commands)]) == 0


async def test_a_turn_the_save_refuses_names_the_save_as_typed(tmp_path: Path) -> None:
    """"Save: G could not be written" capitalised the save's name (issue 21): names are shown as typed."""
    import sqlite3

    from game.engine.events import TurnFailed

    saves = tmp_path / "saves"
    await (await GameSession.open(settings_for(saves), save="g", new=True, world="tiny")).close()
    conn = sqlite3.connect(saves / "g.sqlite")
    conn.execute("CREATE TRIGGER no_turns BEFORE INSERT ON turns BEGIN SELECT RAISE(ABORT, 'the disk says no'); END")
    conn.commit()
    conn.close()
    session = await GameSession.open(settings_for(saves), save="g")
    try:
        failed = [e async for e in session.play_turn("help Edda") if isinstance(e, TurnFailed)]
    finally:
        await session.close()
    assert [(e.title, e.message) for e in failed] == [
        ("Save", "g could not be written (the disk says no); nothing was saved. You can try again.")]
