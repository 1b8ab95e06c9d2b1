"""``kith play`` in line mode: in-process with real saves, and as a real process with stdin piped."""

from __future__ import annotations

import io
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chat_server import ChatServer, Failure, Text
from helpers.interrupt import interruptible
from helpers.saves import SCHEMA

from game.cli.play import LineMode
from game.config import Settings, load_settings
from game.errors import SaveError
from game.store.saves import list_saves

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
KITH = Path(sys.executable).parent / "kith"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES, "world": "tiny"},
                         env={})


def play(settings: Settings, lines: str, **kwargs: str | bool | None) -> str:
    out = io.StringIO()
    code = LineMode(settings, stdin=io.StringIO(lines), stdout=out, **kwargs).run()  # type: ignore[arg-type]
    assert code == 0
    return out.getvalue()


def test_a_new_game_prints_the_opening_and_keeps_every_turn_on_disk(settings: Settings) -> None:
    shown = play(settings, "help edda\nx rail\n", save="lamp")
    assert shown.startswith("Kith · The Lamp Room · save lamp · new game · offline narrator\n")
    assert "Wind hums in the iron stair." in shown
    assert "> help edda\nYou steady the wick while Edda ties it." in shown
    assert "> x rail\nFlakes of rust come away on your fingers.\n" in shown
    assert shown.endswith("Your game is saved as lamp at turn 2.\n")
    saves = list_saves(settings.saves_dir, SCHEMA)
    assert [(s.name, s.world, s.turns) for s in saves] == [("lamp", "tiny", 2)]


def test_without_a_save_it_resumes_the_last_game_or_names_a_new_one(settings: Settings) -> None:
    first = play(settings, "help edda\n")
    name = list_saves(settings.saves_dir, SCHEMA)[0].name
    assert name.startswith("tiny-20") and f"save {name} · new game" in first
    again = play(settings, "undo\n")
    assert f"save {name} · turn 1 ·" in again
    assert "resumed at turn 1" in again
    assert "Undone “help edda”. You are back at turn 0." in again
    assert [(s.name, s.turns) for s in list_saves(settings.saves_dir, SCHEMA)] == [(name, 0)]


def test_meta_commands_print_plain_text(settings: Settings) -> None:
    shown = play(settings, "help\nsave snap\nquit\nlook\n", save="lamp")
    assert "Type what you do: look (l)" in shown  # the Markdown marks are gone
    assert "Saved a snapshot of turn 0 as snap." in shown
    assert shown.rstrip().endswith("Your game is saved as lamp at turn 0.")
    assert "> look" not in shown  # quit ends the loop


def test_new_refuses_an_existing_save(settings: Settings) -> None:
    play(settings, "", save="lamp")
    with pytest.raises(SaveError, match="already exists"):
        play(settings, "", save="lamp", new=True)


def run_kith(args: list[str], stdin: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KITH), *args], input=stdin, capture_output=True, text=True, timeout=60,
                          check=False, env=env)


@pytest.mark.slow
def test_kith_play_plain_over_a_pipe(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    base = ["--content-dir", str(FIXTURES), "--saves-dir", str(saves)]
    done = run_kith([*base, "play", "--plain", "--world", "tiny", "--save", "piped"], "x rail\nhelp edda\n")
    assert done.returncode == 0, done.stderr
    assert "> x rail\nFlakes of rust come away on your fingers.\n\n> help edda\n" in done.stdout
    assert done.stdout.endswith("Your game is saved as piped at turn 2.\n")
    # ``kith`` alone is ``kith play``; on a pipe it is line mode, and it resumes the last game.
    again = run_kith(base, "undo\n")
    assert again.returncode == 0, again.stderr
    assert "save piped · turn 2" in again.stdout
    assert "Undone “help edda”" in again.stdout
    # Errors are one line, without a traceback.
    refused = run_kith([*base, "play", "--new", "--save", "piped"], "")
    assert refused.returncode == 2
    assert refused.stderr.strip() == "kith: a save named 'piped' already exists; load it, or choose another name"


def read_until(process: subprocess.Popen[bytes], marker: str, seen: bytearray, start: int = 0,
               timeout: float = 20.0) -> int:
    """Read the process's stdout into ``seen`` until ``marker`` appears after ``start``; its position."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while seen.find(marker.encode(), start) < 0:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"timed out waiting for {marker!r}; got:\n{seen.decode(errors='replace')}"
        ready, _, _ = select.select([process.stdout], [], [], remaining)
        if ready:
            chunk = os.read(process.stdout.fileno(), 4096)
            assert chunk, f"kith exited before {marker!r}; got:\n{seen.decode(errors='replace')}"
            seen.extend(chunk)
    return seen.find(marker.encode(), start)


def llm_env(server: ChatServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KITH_"))}
    env.update({"OPENAI_BASE_URL": server.base_url, "KITH_MODEL": "test-model", "OPENAI_API_KEY": "sk-local"})
    return env


@pytest.mark.slow
def test_ctrl_c_during_a_turn_cancels_it_and_at_the_prompt_quits(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    slow = "Edda looks up from the wick and begins a very long story about the winter the lamp went out. " * 3
    with ChatServer() as server:
        server.push(Text(slow, chunk_size=6, pause=0.05))
        process = interruptible(
            [str(KITH), "--content-dir", str(FIXTURES), "--saves-dir", str(saves), "play", "--plain",
             "--world", "tiny", "--save", "slow"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=llm_env(server),
        )
        assert process.stdin is not None
        seen = bytearray()
        try:
            read_until(process, "> ", seen)
            process.stdin.write(b"ask edda about the lamp\n")
            process.stdin.flush()
            read_until(process, "Edda looks up", seen)
            process.send_signal(signal.SIGINT)
            cancelled = read_until(process, "(Cancelled: nothing of that turn was saved.)", seen)
            read_until(process, "\n> ", seen, start=cancelled)
            process.send_signal(signal.SIGINT)  # at the prompt: leave
            rest, err = process.communicate(timeout=20)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        shown = (seen + rest).decode()
    assert process.returncode == 0, err.decode()
    assert "Your game is saved as slow at turn 0." in shown
    assert b"Traceback" not in err
    assert [(s.name, s.turns) for s in list_saves(saves, SCHEMA)] == [("slow", 0)]


@pytest.mark.slow
def test_a_narrator_failure_is_one_line_and_the_game_goes_on(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    config = tmp_path / "kith.toml"
    config.write_text("[llm]\nretries = 0\n", encoding="utf-8")  # fail at once, not after backing off
    with ChatServer() as server:
        server.push(Failure(503, "the model is overloaded"))
        done = run_kith(["--config", str(config), "--content-dir", str(FIXTURES), "--saves-dir", str(saves),
                         "play", "--plain", "--world", "tiny", "--save", "broken"],
                        "ask edda about the lamp\nsave snap\n", env=llm_env(server))
    assert done.returncode == 0, done.stderr
    after = done.stdout.split("> ask edda about the lamp\n", 1)[1]
    failure_line = after.strip().splitlines()[0]
    assert failure_line.startswith("Narrator: ") and "HTTP 503" in failure_line
    assert "Nothing of this turn was saved" in failure_line
    assert "Traceback" not in done.stdout + done.stderr
    assert "Saved a snapshot of turn 0 as snap." in after
    listed = {s["name"]: s["turns"] for s in json.loads(run_kith(
        ["--saves-dir", str(saves), "saves", "list", "--json"], "").stdout)}
    assert listed == {"broken": 0, "snap": 0}


@pytest.mark.slow
def test_record_without_a_model_is_refused_before_any_save_exists(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KITH_"))}
    done = run_kith(["--content-dir", str(FIXTURES), "--saves-dir", str(tmp_path / "saves"), "play", "--plain",
                     "--world", "tiny", "--record", str(tmp_path / "session.jsonl")], "look\n", env=env)
    assert done.returncode == 2
    assert done.stderr.startswith("kith: --record stores a model session, and no model is configured")
    assert not (tmp_path / "saves").exists()


@pytest.mark.slow
def test_plain_keeps_line_mode_on_a_terminal(tmp_path: Path) -> None:
    import pty

    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [str(KITH), "--content-dir", str(FIXTURES), "--saves-dir", str(tmp_path / "saves"), "play", "--plain",
         "--world", "tiny", "--save", "tty"],
        stdin=terminal, stdout=terminal, stderr=terminal, close_fds=True,
    )
    os.close(terminal)
    seen = bytearray()

    def until(marker: bytes) -> None:
        deadline = time.monotonic() + 20
        while marker not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            ready, _, _ = select.select([controller], [], [], 0.5)
            if ready:
                try:
                    seen.extend(os.read(controller, 4096))
                except OSError:  # the terminal closes when kith exits
                    break

    try:
        until(b"> ")
        os.write(controller, b"x rail\n")
        until(b"Flakes of rust")
        os.write(controller, b"quit\n")
        until(b"Your game is saved as tty at turn 1.")
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
    assert b"\x1b[?1049h" not in seen  # no full-screen app: line mode, as asked


@pytest.mark.slow
def test_bytes_that_are_not_utf8_are_replaced_not_fatal(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(KITH), "--content-dir", str(FIXTURES), "--saves-dir", str(tmp_path / "saves"), "play", "--plain",
         "--world", "tiny", "--save", "bytes"],
        input=b"x r\xffail\nx rail\n", capture_output=True, timeout=60, check=False,
        env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:surrogateescape"},
    )
    out = done.stdout.decode("utf-8", "replace")
    assert done.returncode == 0, done.stderr
    assert "> x r\ufffdail\n" in out
    assert "could not be completed" not in out
    assert "> x rail\nFlakes of rust" in out
