"""``kith run`` as a command: choosing scripts and tests, listing, refusing bad input on one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.__main__ import main

SCRIPT = """\
** seed: 1
* undo-trust
> look
* undo-kinship
> look
* _helper
> look
* save-restore
> save snap
"""


def kith(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "engine.regtest"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def test_list_names_tests_and_leaves_helpers_out(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = kith(capsys, "run", str(script), "-l")
    assert code == 0
    assert out.splitlines() == ["undo-trust", "undo-kinship", "save-restore"]


def test_patterns_are_globs_or_substrings(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert kith(capsys, "run", "-l", str(script), "undo-*")[1].splitlines() == ["undo-trust", "undo-kinship"]
    assert kith(capsys, "run", "-l", str(script), "restore", "_helper")[1].splitlines() == [
        "_helper", "save-restore"]


def test_several_scripts_are_listed_under_their_paths(script: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.regtest"
    other.write_text("* other-one\n> look\n", encoding="utf-8")
    code, out, _ = kith(capsys, "run", "-l", str(script), str(other), "o")
    assert code == 0
    assert out.splitlines() == [f"# {script}", "undo-trust", "undo-kinship", "save-restore",
                                f"# {other}", "other-one"]


def test_a_pattern_matching_nothing_fails(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = kith(capsys, "run", str(script), "no-such-test")
    assert code == 1
    assert "No tests match." in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "missing.regtest"], "missing.regtest: no such script"),
        (["run", "just-a-pattern"], "no script among just-a-pattern"),
        (["run", "--save", "x", "SCRIPT"], "--save goes with --transcript"),
        (["run", "--transcript", "a.txt", "b.txt"], "--transcript plays one command file"),
        (["run", "--transcript", "missing.txt"], "missing.txt: no such command file"),
    ],
)
def test_bad_invocations_are_one_line_errors(args: list[str], message: str, script: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = kith(capsys, *[str(script) if a == "SCRIPT" else a for a in args])
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_a_broken_script_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.regtest"
    bad.write_text("* one\n> look\n{graph} Bram -> Elin: KIN_OF sign=sideways\n", encoding="utf-8")
    code, _, err = kith(capsys, "run", str(bad))
    assert code == 2
    assert f"{bad}:3: sign=sideways: the sign is +, - or 0" in err


ROOT = Path(__file__).resolve().parent.parent


def documented_forms(text: str) -> list[str]:
    """The ``kith run`` lines of the first code block that shows them (docs/commands.md, docs/scripts.md)."""
    block = text.split("\n```\nkith run ", 1)[1].split("\n```", 1)[0]
    return [f"kith run {block.splitlines()[0]}", *block.splitlines()[1:]]


@pytest.mark.parametrize("columns", ["60", "100"])
def test_run_help_shows_both_documented_forms_the_transcript_one_with_its_commands_file(
        columns: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", columns)  # the help is laid out for the terminal: any width keeps the words
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    shown = capsys.readouterr().out
    usage = [line.removeprefix("usage: ").strip() for line in shown.split("\n\n", 1)[0].splitlines()]
    for doc in ("docs/commands.md", "docs/scripts.md"):
        assert documented_forms((ROOT / doc).read_text(encoding="utf-8")) == usage, doc
    assert usage[1] == "kith run --transcript [--save NAME] COMMANDS-FILE"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"| `{usage[1]}` |" in readme
    # The options say what the form means: --transcript plays the COMMANDS-FILE given.
    transcript = next(line for line in shown.splitlines() if line.strip().startswith("--transcript"))
    assert "COMMANDS-FILE" in transcript
    assert "COMMANDS-FILE" in shown.split("positional arguments:", 1)[1].split("options:", 1)[0]


def test_transcript_without_a_commands_file_says_which_file_it_wants(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = kith(capsys, "run", "--transcript")
    assert code == 2 and "COMMANDS-FILE" in err and "Traceback" not in err
