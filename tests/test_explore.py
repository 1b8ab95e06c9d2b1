"""``kith explore`` on a world with planted faults, and on Brinefall: what it finds, what it saves, and that
the same seed gives the same report. Real games throughout (offline, in temporary saves)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from game.__main__ import main
from game.config import load_settings
from game.explore.explorer import explore, reproduces
from game.explore.lanes import Options
from game.explore.progress import progress_bar
from game.script.parser import load_script
from game.world import load_world

WORLDS = Path(__file__).parent / "fixtures" / "explore-worlds"
SEED = 0


def kith(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def flawed(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], Path]:
    """One exploration of the flawed world (module-wide: it is the slow part), its exit code, report and
    the folder of saved failures."""
    failures = tmp_path_factory.mktemp("failures")
    capture = io.StringIO()
    with contextlib.redirect_stdout(capture):
        code = main(["--content-dir", str(WORLDS), "explore", "flawed", "--games", "12", "--turns", "30",
                     "--seed", str(SEED), "--json", "--save-failures", str(failures)])
    return code, json.loads(capture.getvalue()), failures


def test_the_report_has_exactly_the_documented_shape(flawed: tuple[int, dict[str, Any], Path]) -> None:
    _, report, _ = flawed
    assert list(report) == ["world", "games", "turns", "seed", "endings", "unreached", "faults"]
    assert (report["world"], report["games"], report["turns"], report["seed"]) == ("flawed", 12, 30, SEED)
    assert list(report["unreached"]) == ["places", "topics", "reactions", "beats", "revelations", "commands"]
    for ending in report["endings"]:
        assert list(ending) == ["id", "title", "reached", "commands"]
    for fault in report["faults"]:
        assert list(fault) == ["kind", "detail", "commands"]


def test_each_planted_fault_is_found_with_a_short_command_list(flawed: tuple[int, dict[str, Any], Path]) -> None:
    code, report, _ = flawed
    assert code == 1
    by_kind = {fault["kind"]: fault for fault in report["faults"]}
    assert by_kind["item-twice"]["commands"] == ["help Edda"]
    assert "a coil of rope" in by_kind["item-twice"]["detail"]
    lie = by_kind["denied-after-confession"]
    assert "Tobin Hale:wants-boat" in lie["detail"]
    assert len(lie["commands"]) <= 4 and lie["commands"][-1] == "ask Edda about Tobin"
    assert by_kind["fallback-reply"]["commands"] == ["pray"]
    assert by_kind["ending-cites-unfound"]["commands"] == ["ask Edda about ferry", "board the ferry"]
    assert "the toll book" in by_kind["ending-cites-unfound"]["detail"]
    assert "exception" not in by_kind


def test_reach_lists_the_ending_nothing_leads_to(flawed: tuple[int, dict[str, Any], Path]) -> None:
    _, report, _ = flawed
    endings = {ending["id"]: ending for ending in report["endings"]}
    assert endings["drowned"] == {"id": "drowned", "title": "Under the Water", "reached": False, "commands": []}
    assert endings["crossed"]["reached"] is True
    assert endings["crossed"]["commands"] == ["ask Edda about ferry", "board the ferry"]
    assert report["unreached"]["places"] == []
    # Marked explore = false, with a reason: the world says only a path no explorer guesses leads there.
    assert report["unreached"]["topics"] == [] and report["unreached"]["beats"] == []


def test_saved_failures_are_scripts_that_fail_while_the_fault_is_there(
        flawed: tuple[int, dict[str, Any], Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, report, failures = flawed
    scripts = sorted(failures.glob("*.regtest"))
    # One per fault, in the report's order, then one per ending no game reached (the planted "drowned").
    assert len(scripts) == len(report["faults"]) + 1
    for path, fault in zip(scripts, report["faults"], strict=False):
        assert fault["kind"] in path.name
    assert scripts[-1].name == f"{len(report['faults']) + 1:02d}-unreached-ending-drowned.regtest"
    for path in scripts:
        code, out, _ = kith(capsys, "run", str(path))
        assert code == 1, out
        assert "0 passed, 1 failed" in out
    _, out, _ = kith(capsys, "run", str(scripts[-1]))
    assert "ending is none" in out or "ending" in out


def test_replaying_a_saved_failure_reproduces_it(flawed: tuple[int, dict[str, Any], Path]) -> None:
    _, report, failures = flawed
    settings = load_settings().model_copy(update={"content_dir": WORLDS})
    world = load_world(WORLDS, "flawed")
    for path, fault in zip(sorted(failures.glob("*.regtest")), report["faults"], strict=False):
        script = load_script(path)
        commands = [step.command for step in script.plan(script.tests[0]) if step.command is not None]
        assert commands == fault["commands"]
        found = asyncio.run(reproduces(settings, world, SEED, commands, fault["kind"]))
        assert fault["detail"] in found


def test_the_same_seed_gives_the_same_report_in_any_process(tmp_path: Path) -> None:
    """Two processes with different string hashing (set order) print the same bytes."""
    args = [sys.executable, "-m", "game", "--content-dir", str(WORLDS), "explore", "flawed", "--games", "3",
            "--turns", "12", "--json", "--seed", "7"]
    outputs = []
    for hashing in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashing, "KITH_SAVES": str(tmp_path / "saves")}
        done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, check=False)
        assert done.returncode in (0, 1), done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["seed"] == 7
    assert not (tmp_path / "saves").exists()  # the explorer's games never touch the saves folder


def test_brinefall_on_a_small_budget_reaches_places_and_does_not_crash(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = kith(capsys, "explore", "brinefall", "--games", "2", "--turns", "25", "--json")
    report = json.loads(out)
    assert code in (0, 1), err
    world = load_world(load_settings().content_dir, "brinefall")
    assert len(report["unreached"]["places"]) < len(world.places) - 1  # somewhere beyond the landing
    assert [e["id"] for e in report["endings"]] == list(world.endings)
    assert not [f for f in report["faults"] if f["kind"] == "exception"]
    # What the world marks `explore = false` (a beat, a world command) is never listed; the unmarked is.
    assert "dusk-1" in report["unreached"]["beats"]
    assert "dusk-3" not in report["unreached"]["beats"]
    assert "ready-bell-from-ambry" not in report["unreached"]["commands"]
    assert "password" in report["unreached"]["commands"]


@pytest.mark.parametrize("args, message", [
    (("--turns", "0"), "--turns takes a number from 1"),
    (("--games", "-3"), "--games takes a number from 1"),
])
def test_a_budget_out_of_range_is_refused_in_one_line(args: tuple[str, ...], message: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = kith(capsys, "--content-dir", str(WORLDS), "explore", "flawed", *args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_a_failures_folder_that_is_a_file_is_refused_before_any_game(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "notes.txt"
    taken.write_text("mine", encoding="utf-8")
    code, out, err = kith(capsys, "--content-dir", str(WORLDS), "explore", "flawed", "--save-failures", str(taken))
    assert code == 2 and out == ""
    assert "that is a file, not a folder" in err
    assert taken.read_text(encoding="utf-8") == "mine"


def test_an_unknown_world_is_refused_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = kith(capsys, "--content-dir", str(WORLDS), "explore", "nowhere")
    assert code == 2
    assert "nowhere" in err and "Traceback" not in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_draws_only_on_a_terminal() -> None:
    assert progress_bar(io.StringIO()) is None
    screen = _Terminal()
    draw = progress_bar(screen)
    assert draw is not None
    draw(3, 12)
    assert "3/12 games" in screen.getvalue()
    draw(-1, 12)
    assert screen.getvalue().endswith("\r")


def test_two_processes_play_the_same_games_as_one() -> None:
    """The lanes decide the games; how many processes play them changes only how long it takes."""
    settings = load_settings().model_copy(update={"content_dir": WORLDS})
    world = load_world(WORLDS, "flawed")
    options = Options(turns=15, games=6, seed=3)
    alone = asyncio.run(explore(settings, world, options, workers=1)).report()
    shared = asyncio.run(explore(settings, world, options, workers=2, content_dir=WORLDS)).report()
    assert alone == shared
