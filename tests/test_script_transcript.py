"""``kith run --transcript``: play a command file, print the story, keep the game only when asked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers.saves import SCHEMA

from game.store.saves import list_saves

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
KITH = Path(sys.executable).parent / "kith"

COMMANDS = """\
# Make friends with the keeper, then look at the map.
x rail

> help edda
/graph
quit
look
"""


def transcript(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    commands = tmp_path / "commands.txt"
    commands.write_text(COMMANDS, encoding="utf-8")
    return subprocess.run(
        [str(KITH), "--content-dir", str(FIXTURES), "--saves-dir", str(tmp_path / "saves"), "run",
         "--transcript", "--world", "tiny", *extra, str(commands)],
        capture_output=True, text=True, timeout=60, check=False,
    )


def test_it_prints_the_opening_then_each_command_and_its_output(tmp_path: Path) -> None:
    done = transcript(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Wind hums in the iron stair.")
    blocks = done.stdout.split("\n> ")[1:]
    assert [b.splitlines()[0] for b in blocks] == ["x rail", "help edda", "/graph", "quit"]  # quit ends it
    assert "Flakes of rust come away on your fingers." in blocks[0]
    assert "Edda Marsh → Sam Reed (TRUSTS, since turn 2)" in blocks[2]
    assert not (tmp_path / "saves").exists()  # without --save the game was temporary


def test_with_a_save_the_game_is_kept_and_resumed(tmp_path: Path) -> None:
    first = transcript(tmp_path, "--save", "kept")
    assert first.returncode == 0, first.stderr
    assert [(s.name, s.turns) for s in list_saves(tmp_path / "saves", SCHEMA)] == [("kept", 2)]
    second = transcript(tmp_path, "--save", "kept")
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("The Lamp Room — resumed at turn 2.")
    assert [(s.name, s.turns) for s in list_saves(tmp_path / "saves", SCHEMA)] == [("kept", 4)]


def test_quitting_a_temporary_game_does_not_claim_it_was_saved(tmp_path: Path) -> None:
    """Without --save, `quit` said "Your game is saved as transcript at turn 2.": no such save exists."""
    done = transcript(tmp_path)
    assert done.returncode == 0, done.stderr
    quit_block = done.stdout.split("\n> quit\n")[1]
    assert "saved as" not in quit_block
    assert "not kept" in quit_block and "--save NAME" in quit_block
    kept = transcript(tmp_path, "--save", "kept")
    assert "Your game is saved as kept at turn 2." in kept.stdout.split("\n> quit\n")[1]
