"""Save safety (issue 8): snapshots beside stale sidecars, foreign restores, long names, two processes,
one-transaction restart, read-only and full disks, FIFOs. Real files, real processes, real SQLite."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.saves import SCHEMA

from game.__main__ import main
from game.config import Settings, load_settings
from game.engine.events import Event, MetaOutput, TurnFailed
from game.engine.session import GameSession
from game.errors import SaveError
from game.store.database import SaveDatabase
from game.store.saves import list_saves, snapshot_name

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def make_settings(saves: Path) -> Settings:
    return load_settings(flags={"saves_dir": saves, "content_dir": FIXTURES}, env={})


async def say(session: GameSession, text: str) -> str:
    events: list[Event] = [event async for event in session.play_turn(text)]
    return "\n".join(e.text if isinstance(e, MetaOutput) else e.message for e in events
                     if isinstance(e, MetaOutput | TurnFailed))


def integrity(path: Path) -> tuple[str, int]:
    conn = sqlite3.connect(path)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        turns = conn.execute("SELECT count(*) FROM turns").fetchone()[0] if check == "ok" else -1
        return check, turns
    finally:
        conn.close()


def leave_a_stale_wal(path: Path) -> None:
    """A process writes a lot to ``path`` and dies without checkpointing: a -wal full of frames stays."""
    script = textwrap.dedent(f"""
        import os, sqlite3
        conn = sqlite3.connect({str(path)!r}, isolation_level=None)
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute("BEGIN")
        for n in range(1000, 1200):
            conn.execute("INSERT INTO turns (number, input, narration, npc_context, created_at) "
                         "VALUES (?, 'x', ?, '', 'now')", (n, 'story ' * 400))
        conn.execute("COMMIT")
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", script], check=True, env=ENV)
    assert Path(f"{path}-wal").stat().st_size > 100_000


@pytest.mark.parametrize("command", ["save snapA", "restart"])
async def test_a_snapshot_beside_a_stale_wal_comes_out_whole(tmp_path: Path, command: str) -> None:
    settings = make_settings(tmp_path / "saves")
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    try:
        await say(session, "help Edda")
        target = "snapA" if command.startswith("save") else "game-before-restart"
        if command.startswith("save"):
            await say(session, "save snapA")
        else:
            await session.snapshot(target)  # as restart keeps the game before it
        leave_a_stale_wal(settings.saves_dir / f"{target}.sqlite")
        await say(session, "help Edda")
        played = session.turn
        assert "Nothing" not in await say(session, command)
    finally:
        await session.close()
    assert integrity(settings.saves_dir / f"{target}.sqlite") == ("ok", played)


async def test_restore_refuses_a_graph_only_save_or_another_world(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "saves")
    graph_only = await SaveDatabase.open(settings.saves_dir / "graphonly.sqlite", schema=SCHEMA, create=True)
    await graph_only.close()
    other = await GameSession.open(settings, save="elsewhere", new=True, world="skerry")
    await other.close()
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    try:
        await say(session, "help Edda")
        nodes = [n.id for n in await session.all_nodes()]
        for name, reason in (("graphonly", "not a game"), ("elsewhere", "another world")):
            reply = await say(session, f"restore {name}")
            assert reason in reply and "left as it was" in reply
            assert session.turn == 1 and session.world.id == "tiny"
            assert [n.id for n in await session.all_nodes()] == nodes
    finally:
        await session.close()


@pytest.mark.parametrize("name", ["a" * 64, "b" * 49 + "-before-restart", "c" * 50 + "-before-restart"[:14]])
def test_snapshot_names_always_differ_and_fit(name: str) -> None:
    derived = snapshot_name(name, "before-restart")
    assert derived != name and len(derived) <= 64
    assert derived == snapshot_name(name, "before-restart"), "the same game always keeps the same snapshot"


async def test_restart_with_a_64_character_name_keeps_the_game(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "saves")
    name = "g" * 49 + "-before-restart"
    session = await GameSession.open(settings, save=name, new=True, world="tiny")
    try:
        await say(session, "help Edda")
        reply = await say(session, "restart")
        assert session.turn == 0 and "begins again" in reply
    finally:
        await session.close()
    turns = {info.name: info.turns for info in list_saves(settings.saves_dir, SCHEMA)}
    assert turns[name] == 0
    assert turns[snapshot_name(name, "before-restart")] == 1


async def test_restart_is_one_transaction(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "saves")
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    try:
        for _ in range(3):
            await say(session, "help Edda")
        # A damaged journal entry of turn 1: undoing turns 3 and 2 works, turn 1 cannot be undone.
        # Damaged from outside, as another program (or a bad disk) would, not through the session.
        other = sqlite3.connect(session.save_path)
        with other:
            other.execute("UPDATE journal SET before = '[' WHERE turn = 1 AND before IS NOT NULL")
            other.execute("INSERT INTO journal (turn, kind, key, before) VALUES (1, 'node', 'npc-edda-marsh', '[')")
        other.close()
        reply = await say(session, "restart")
        assert "damaged" in reply
        assert session.turn == 3 and [t.number for t in await session.turns()] == [1, 2, 3], (
            "nothing was undone: restart is all or nothing")
    finally:
        await session.close()


HOLDER = textwrap.dedent("""
    import asyncio, sys
    from pathlib import Path
    from game.config import load_settings
    from game.engine.session import GameSession

    async def main():
        settings = load_settings(flags={"saves_dir": Path(sys.argv[1]), "content_dir": Path(sys.argv[2])}, env={})
        session = await GameSession.open(settings, save="game", world="tiny")
        print("open", flush=True)
        sys.stdin.read()
        await session.close()

    asyncio.run(main())
""")


@contextlib.contextmanager
def held_by_another_process(saves: Path) -> Iterator[None]:
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(saves), str(FIXTURES)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, env=ENV, text=True)
    assert process.stdout is not None and process.stdin is not None
    try:
        assert process.stdout.readline().strip() == "open"
        yield
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()


def test_a_second_process_cannot_play_or_write_an_open_save_but_can_read_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saves = tmp_path / "saves"
    settings = make_settings(saves)

    async def play_one() -> None:
        first = await GameSession.open(settings, save="game", new=True, world="tiny")
        await say(first, "help Edda")
        await first.close()

    async def refused_here() -> str:
        with pytest.raises(SaveError, match="open in another Kith process"):
            await GameSession.open(settings, save="game")
        other = await GameSession.open(settings, save="other", new=True, world="tiny")
        try:
            return await say(other, "save game")
        finally:
            await other.close()

    async def reopened() -> tuple[int, set[str]]:
        again = await GameSession.open(settings, save="game")
        try:
            return again.turn, {n.name for n in await again.all_nodes()}
        finally:
            await again.close()

    asyncio.run(play_one())
    calls = tmp_path / "call.json"
    calls.write_text('{"nodes": [{"name": "Intruder", "summary": "Someone who should not be here."}]}')
    with held_by_another_process(saves):
        assert "not a snapshot of this game" in asyncio.run(refused_here())
        assert main(["--saves-dir", str(saves), "graph", "upsert", "--save", "game", str(calls)]) == 2
        assert "open in another Kith process" in capsys.readouterr().err
        assert main(["--saves-dir", str(saves), "graph", "dump", "--save", "game"]) == 0
        assert "Edda" in capsys.readouterr().out
        assert main(["--saves-dir", str(saves), "saves", "list"]) == 0
        assert "game" in capsys.readouterr().out
        assert main(["--saves-dir", str(saves), "saves", "delete", "game"]) == 2
        assert "open in another Kith process" in capsys.readouterr().err
    turn, names = asyncio.run(reopened())
    assert turn == 1 and "Intruder" not in names


async def test_leftovers_of_killed_processes_are_cleaned_up(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    settings = make_settings(saves)
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    await session.close()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    leftovers = [saves / f".x.sqlite.creating-{pid}", saves / f".x.sqlite.creating-{pid}-wal",
                 saves / f".snap.sqlite.snapshot-{pid}", saves / ".old.sqlite.snapshot"]
    for path in leftovers:
        path.write_bytes(b"half a save")
    alive = saves / f".y.sqlite.creating-{os.getpid()}"
    alive.write_bytes(b"still being built")
    reopened = await GameSession.open(settings, save="game")
    await reopened.close()
    assert not any(path.exists() for path in leftovers)
    assert alive.exists(), "a file another living process is building is left alone"


def run_kith(saves: Path, *args: str, stdin: str = "", timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "game", "--saves-dir", str(saves), "--content-dir", str(FIXTURES),
                           *args], input=stdin, capture_output=True, text=True, env=ENV, timeout=timeout, cwd=ROOT)


def test_a_fifo_in_the_saves_folder_hangs_nothing(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    os.mkfifo(saves / "x.sqlite")
    listed = run_kith(saves, "saves", "list", timeout=20)
    assert listed.returncode == 0 and "not a regular file" in listed.stdout
    dumped = run_kith(saves, "graph", "dump", "--save", "x", timeout=20)
    assert dumped.returncode == 2 and "not a regular file" in dumped.stderr
    assert "Traceback" not in dumped.stderr


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                                           capture_output=True).returncode != 0:
        pytest.skip("needs permission to mount a tmpfs")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=True)


def test_a_read_only_saves_folder_reads_and_refuses_writes_cleanly(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", "8m") as saves:
        played = run_kith(saves, "play", "--plain", "--new", "--save", "game", "--world", "tiny",
                          stdin="help Edda\nquit\n")
        assert played.returncode == 0, played.stderr
        subprocess.run(["mount", "-o", "remount,ro", str(saves)], check=True)
        listed = run_kith(saves, "saves", "list")
        assert listed.returncode == 0 and listed.stderr == "", listed.stderr
        assert listed.stdout.splitlines()[1].split()[:3] == ["game", "tiny", "1"]
        dumped = run_kith(saves, "graph", "dump", "--save", "game")
        assert dumped.returncode == 0 and "Edda" in dumped.stdout, dumped.stderr
        checked = run_kith(saves, "saves", "check", "game")
        assert (checked.returncode, checked.stdout.strip()) == (0, "ok"), checked.stderr
        again = run_kith(saves, "play", "--plain", "--save", "game", stdin="help Edda\nquit\n")
        for result in (again, run_kith(saves, "play", "--plain", "--new", "--save", "new", "--world", "tiny")):
            assert result.returncode == 2 and "read-only" in result.stderr, result.stderr
            assert "Traceback" not in result.stderr


def test_a_full_disk_while_creating_a_game_leaves_nothing_and_no_noise(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "full", "48k") as saves:
        result = run_kith(saves, "play", "--plain", "--new", "--save", "game", "--world", "tiny", stdin="quit\n")
        assert result.returncode == 2
        assert result.stderr.startswith("kith: ") and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "game" in result.stderr and "could not be created" in result.stderr
        assert list(saves.iterdir()) == []


async def test_one_process_may_reopen_the_game_it_is_playing(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "saves")
    first = await GameSession.open(settings, save="game", new=True, world="tiny")
    try:
        second = await GameSession.open(settings, save="game")  # as the TUI's load does before closing
        await second.close()
        await say(first, "help Edda")
        assert first.turn == 1
    finally:
        await first.close()
