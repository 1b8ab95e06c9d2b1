"""The committed model playthrough ``tests/scripts/llm-tiny.regtest`` and its recording: it replays from
any folder, a recording that was altered (or a world that changed under it) fails with a message that
says which exchange differs and how, never a traceback, and the generator still makes the same recording.
The ``** content:`` header that lets a script name a fixture world is tested here too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.recordings import load_generator, recorded_requests

from game.__main__ import main
from game.config import Settings
from game.errors import InputError
from game.script.parser import Headers, parse_script
from game.script.runner import ScriptRunner

TESTS = Path(__file__).parent
SCRIPT = TESTS / "scripts" / "llm-tiny.regtest"
RECORDING = TESTS / "scripts" / "llm-tiny.jsonl"
WORLDS = TESTS / "fixtures" / "worlds"


def _copy(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The script, its recording and the tiny world, laid out in tmp_path as they are in tests/."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    shutil.copy(SCRIPT, scripts / SCRIPT.name)
    shutil.copy(RECORDING, scripts / RECORDING.name)
    shutil.copytree(WORLDS / "tiny", tmp_path / "fixtures" / "worlds" / "tiny")
    return scripts / SCRIPT.name, scripts / RECORDING.name, tmp_path / "fixtures" / "worlds" / "tiny"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["--config", "/dev/null", "run", *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _edit_exchange(recording: Path, number: int, **request: object) -> None:
    lines = recording.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[number])
    record["request"].update(request)
    lines[number] = json.dumps(record, ensure_ascii=False)
    recording.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_the_committed_playthrough_replays_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # the content header is relative to the script, not to where kith runs
    code, out = _run(capsys, str(SCRIPT))
    assert code == 0, out
    assert out.splitlines()[-1] == "1 passed, 0 failed"


def test_an_altered_request_fails_naming_the_exchange_and_the_difference(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script, recording, _ = _copy(tmp_path)
    # Exchange 5 is the narration of the second turn, "help Edda with the wick".
    _edit_exchange(recording, 5, lastUser="help Edda with the lamp", digest="0" * 16)
    code, out = _run(capsys, str(script))
    assert code == 1
    assert "Traceback" not in out
    assert "FAILED at > help Edda with the wick" in out
    assert "FAILED at > greet the keeper" not in out  # the turns before the change still replay
    assert ("Replay llm-tiny.jsonl: exchange 5 was recorded for a different request. Its last user message "
            "was 'help Edda with the lamp'; now it is 'help Edda with the wick'.") in out
    assert "FAILED at > go up" not in out  # the {vital} check stopped the test at the first mismatch
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_a_changed_world_under_the_recording_is_a_different_prompt(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script, _, world = _copy(tmp_path)
    characters = world / "characters.toml"
    text = characters.read_text(encoding="utf-8")
    characters.write_text(text.replace("who does not want to retire", "who longs to retire"), encoding="utf-8")
    code, out = _run(capsys, str(script))
    assert code == 1 and "Traceback" not in out
    # The summary reaches the model with the first narration request: the SCENE section of the context says
    # who each person on stage is.
    assert "FAILED at > greet the keeper" in out
    assert "exchange 1 was recorded for a different request" in out
    assert "The prompt text differs (a changed prompt, world or graph); record the session again." in out


def test_a_damaged_or_missing_recording_is_reported_not_raised(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script, recording, _ = _copy(tmp_path)
    lines = recording.read_text(encoding="utf-8").splitlines()
    recording.write_text("\n".join([*lines[:3], lines[3][:40], *lines[4:]]) + "\n", encoding="utf-8")
    code, out = _run(capsys, str(script))
    assert code == 1 and "Traceback" not in out
    assert "llm-tiny.jsonl, line 4: not JSON" in out

    recording.unlink()
    code, out = _run(capsys, str(script))
    assert code == 1 and "Traceback" not in out
    assert "the replay file" in out and "llm-tiny.jsonl does not exist" in out


def test_the_generator_makes_the_committed_recording_again(tmp_path: Path) -> None:
    generator = load_generator("make_recording.py")
    fresh = tmp_path / "fresh.jsonl"
    output = generator.record(fresh)
    assert output.splitlines()[-1] == "1 passed, 0 failed"
    # Same requests, in the same order: the committed file is what the generator makes today.
    assert recorded_requests(fresh) == recorded_requests(RECORDING)
    steps = [request["step"] for request in recorded_requests(fresh)]
    assert steps.count("narrate") == 6 and steps.count("world-ir") == 5 and steps.count("extract") == 5

    # A script whose commands drift from the scripted replies is refused before anything is recorded.
    drifted = tmp_path / "drifted.regtest"
    drifted.write_text(SCRIPT.read_text(encoding="utf-8").replace("> go up", "> climb"), encoding="utf-8")
    with pytest.raises(generator.RecordingFailed, match="change TURNS"):
        generator.record(tmp_path / "never.jsonl", drifted)
    assert not (tmp_path / "never.jsonl").exists()

    # A session that fails its checks leaves the recording it would replace untouched.
    wrong = tmp_path / "wrong.regtest"
    wrong.write_text(SCRIPT.read_text(encoding="utf-8").replace("Mind the rail", "Mind the gap"), encoding="utf-8")
    kept = tmp_path / "kept.jsonl"
    kept.write_text("the previous recording\n", encoding="utf-8")
    with pytest.raises(generator.RecordingFailed, match="did not pass its checks"):
        generator.record(kept, wrong)
    assert kept.read_text(encoding="utf-8") == "the previous recording\n"


def test_the_content_header_names_the_folder_of_worlds(tmp_path: Path) -> None:
    script = parse_script("** content: ../worlds\n** world: tiny\n* a\n** content: elsewhere\n> look\n* b\n> look\n",
                          tmp_path / "a.regtest")
    assert script.headers == Headers(world="tiny", content="../worlds")
    assert script.headers_for(script.tests[0]).content == "elsewhere"
    assert script.headers_for(script.tests[1]) == Headers(world="tiny", content="../worlds")
    with pytest.raises(InputError, match="known: world, seed, narrator, content"):
        parse_script("** contents: x\n* a\n", tmp_path / "b.regtest")
    with pytest.raises(InputError, match="the content header has no value"):
        parse_script("** content:\n* a\n", tmp_path / "c.regtest")


async def test_a_content_folder_without_the_world_fails_the_test_clearly(tmp_path: Path) -> None:
    (tmp_path / "worlds").mkdir()
    shutil.copytree(WORLDS / "tiny", tmp_path / "worlds" / "tiny")
    good = parse_script("** content: worlds\n** world: tiny\n* t\nWind hums\n> look\n", tmp_path / "good.regtest")
    runner = ScriptRunner(Settings(saves_dir=tmp_path / "saves"))
    result = await runner.run_test(good, good.tests[0])
    assert result.passed, (result.error, result.failures)
    missing = parse_script("** content: nowhere\n** world: tiny\n* t\n> look\n", tmp_path / "bad.regtest")
    result = await runner.run_test(missing, missing.tests[0])
    assert not result.passed
    assert result.error is not None and f"no world 'tiny' in {tmp_path / 'nowhere'}" in result.error
