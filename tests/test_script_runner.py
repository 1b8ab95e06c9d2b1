"""Running scripts over real games: the tiny fixture world, the offline narrator, real save files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from game.config import Settings, load_settings
from game.script.parser import parse_script
from game.script.report import format_result, summary
from game.script.runner import RunOptions, ScriptRunner, TestResult

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})


async def run(settings: Settings, text: str, options: RunOptions | None = None,
              said: list[str] | None = None) -> dict[str, TestResult]:
    script = parse_script(text, "inline.regtest")
    runner = ScriptRunner(settings, options, said.append if said is not None else None)
    return {test.name: await runner.run_test(script, test) for test in script.tests}


async def test_checks_before_any_command_read_the_opening(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* opening
Wind hums in the iron stair.
/^The Iron Stair$
* wrong opening
The lamp is already lit.
""")
    assert results["opening"].passed
    failure, = results["wrong opening"].failures
    assert failure.where == "the opening"
    assert failure.detail == "not found in the output"
    assert "Wind hums" in failure.output


async def test_graph_checks_follow_a_relationship_change_and_its_undo(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* undo across trust
{graph} !Edda -> Sam: TRUSTS
> help edda
You steady the wick
{graph} Edda Marsh -> Sam Reed: TRUSTS sign=+ strength>=0.5
{state} turn = 1
> threaten edda
{graph} Edda -> Sam: DISTRUSTS sign=-
> undo
Undone “threaten edda”
{graph} Edda -> Sam: TRUSTS sign=+
{state} turn = 1
> undo
{graph} !Edda -> Sam: TRUSTS
{state} turn = 0
""")
    result = results["undo across trust"]
    assert result.passed, format_result(result)
    assert result.checks == 10 and result.commands == 4


async def test_every_test_is_a_fresh_game(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* first
> help edda
{graph} Edda -> Sam: TRUSTS
* second
{graph} !Edda -> Sam: TRUSTS
{state} turn = 0
""")
    assert all(r.passed for r in results.values()), [format_result(r) for r in results.values()]


async def test_meta_output_counts_as_the_commands_output(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* meta
> help
undo takes back the last turn
> /graph
No character or faction relationships yet.
> save snap
Saved a snapshot of turn 0 as snap.
> x rail
> restore snap
again to restore it
> restore snap
Restored snap: you are back at turn 0.
{state} turn = 0
""")
    assert results["meta"].passed, format_result(results["meta"])


async def test_state_checks_read_the_scene(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* scene
{state} location = stair
{state} inventory has coin
{state} !inventory has matches
> take matches
> talk to edda
> up
{state} location = lamp
{state} inventory has matches
> light lamp
The Lamp Burns
{state} ending = lit
{state} flags.lamp_lit
""")
    assert results["scene"].passed, format_result(results["scene"])


async def test_a_failure_names_the_command_the_check_and_what_was_there(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* failing
> help edda
{graph} Edda -> Sam: TRUSTS sign=-
{state} location = lamp
> look
""")
    result = results["failing"]
    assert not result.passed
    assert [f.where for f in result.failures] == ["> help edda", "> help edda"]
    report = format_result(result)
    assert "FAILED at > help edda (line 3)" in report
    assert "line 4: {graph} Edda -> Sam: TRUSTS sign=-" in report
    assert "open TRUSTS does not meet sign=-: Edda Marsh -> Sam Reed: TRUSTS sign=+ strength=0.6" in report
    assert "location is 'stair'" in report
    assert "| You steady the wick" in report
    assert report.count("output:") == 1  # two failures of one command share its output
    assert result.commands == 2  # not vital: the test went on


async def test_vital_stops_the_test_at_its_failure(settings: Settings) -> None:
    text = """\
** world: tiny
* stops
> look
nothing like this
> look
also not there
"""
    relaxed = (await run(settings, text))["stops"]
    assert (len(relaxed.failures), relaxed.commands) == (2, 2)
    stopped = (await run(settings, text, RunOptions(vital=True)))["stops"]
    assert (len(stopped.failures), stopped.commands) == (1, 1)
    marked = (await run(settings, text.replace("nothing like", "{vital} nothing like")))["stops"]
    assert (len(marked.failures), marked.commands) == (1, 1)


async def test_include_replays_another_test_with_its_checks(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* _befriend edda
> help edda
You steady the wick
* then threaten
>{include} _befriend edda
{graph} Edda -> Sam: TRUSTS sign=+
> threaten edda
{graph} Edda -> Sam: DISTRUSTS sign=-
* include that fails
>{include} _befriend edda
{state} turn = 5
""")
    assert results["then threaten"].passed, format_result(results["then threaten"])
    failure, = results["include that fails"].failures
    assert failure.where == "the include at line 11"
    assert failure.detail == "turn is 1"


async def test_quit_ends_the_test_and_later_commands_are_an_error(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* quits
> quit
Your game is saved as test at turn 0.
> look
""")
    result = results["quits"]
    assert result.failures == []
    assert result.error == "the game quit at line 3; 1 later command was not played"


async def test_a_test_that_cannot_start_fails_alone(settings: Settings) -> None:
    results = await run(settings, """\
** world: tiny
* no such world
** world: atlantis
> look
* fine
> look
""")
    assert results["no such world"].error is not None
    assert "atlantis" in results["no such world"].error
    assert results["fine"].passed
    assert summary(list(results.values())) == "1 passed, 1 failed"


async def test_scripts_play_offline_whatever_the_settings_say(tmp_path: Path) -> None:
    online = load_settings(flags={"saves_dir": tmp_path, "content_dir": FIXTURES, "narrator": "openai",
                                  "llm": {"base_url": "http://127.0.0.1:9/v1", "model": "nothing"}}, env={})
    results = await run(online, "** world: tiny\n* offline\n> x rail\nFlakes of rust\n")
    assert results["offline"].passed, format_result(results["offline"])


async def test_verbose_prints_commands_outputs_and_failures_as_they_happen(settings: Settings) -> None:
    said: list[str] = []
    await run(settings, "** world: tiny\n* talk\n> x rail\nno such words\n", RunOptions(verbose=True), said)
    assert said[0].startswith("Wind hums")
    assert said[1:3] == ["> x rail", "Flakes of rust come away on your fingers."]
    assert said[3] == "*** no such words  (line 4): not found in the output"


@pytest.mark.slow
def test_kith_run_exit_status_and_summary(tmp_path: Path) -> None:
    script = tmp_path / "mixed.regtest"
    script.write_text("** world: tiny\n* good\n> x rail\nFlakes of rust\n* bad\n> x rail\nGold leaf\n",
                      encoding="utf-8")
    kith = Path(sys.executable).parent / "kith"
    base = [str(kith), "--content-dir", str(FIXTURES), "--saves-dir", str(tmp_path / "saves"), "run"]
    failed = subprocess.run([*base, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert failed.returncode == 1, failed.stderr
    assert failed.stdout.splitlines()[-1] == "1 passed, 1 failed"
    assert "* bad\n  FAILED at > x rail (line 6)\n    line 7: Gold leaf\n" in failed.stdout
    passed = subprocess.run([*base, str(script), "good"], capture_output=True, text=True, timeout=60, check=False)
    assert passed.returncode == 0
    assert passed.stdout.splitlines()[-1] == "1 passed, 0 failed"
    assert not (tmp_path / "saves").exists()  # tests play in temporary folders
