"""Reading RegTest-style scripts: headers, tests, commands, includes, selection, and errors with lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.errors import InputError
from game.script.checks import CountCheck, EdgeCheck, RegexCheck, StateCheck, TextCheck
from game.script.parser import (
    MAX_EXPANDED_STEPS,
    MAX_INCLUDE_DEPTH,
    Headers,
    Step,
    load_script,
    parse_script,
    select_tests,
)
from game.script.transcript import read_commands

SCRIPT = """\
# A comment line, skipped.
** world: brinefall
** seed: 7

* opening
The Brinefall
!Traceback

* talk to bram
** seed: 3
> look
/harbou?r
{count=2} gull
> ask bram about elin
{graph} Bram -> Elin: KIN_OF sign=+
{state} location = docks

* _setup
> look

* builds on setup
>{include} _setup
{state} turn = 1
> wait
"""


def test_headers_apply_per_file_and_a_test_may_override_them() -> None:
    script = parse_script(SCRIPT, "story.regtest")
    assert script.headers == Headers(world="brinefall", seed=7)
    talk = script.find("talk to bram")
    assert talk is not None
    assert script.headers_for(talk) == Headers(world="brinefall", seed=3)
    opening = script.find("opening")
    assert opening is not None
    assert script.headers_for(opening).seed == 7


def test_lines_before_any_command_check_the_opening() -> None:
    opening = parse_script(SCRIPT).find("opening")
    assert opening is not None
    assert [type(c) for c in opening.opening_checks] == [TextCheck, TextCheck]
    assert opening.opening_checks[1].inverse
    assert opening.items == []


def test_checks_attach_to_the_command_above_them() -> None:
    talk = parse_script(SCRIPT).find("talk to bram")
    assert talk is not None
    look, ask = talk.items
    assert isinstance(look, Step) and look.command == "look"
    assert [type(c) for c in look.checks] == [RegexCheck, CountCheck]
    assert isinstance(ask, Step) and ask.command == "ask bram about elin"
    assert [type(c) for c in ask.checks] == [EdgeCheck, StateCheck]
    assert ask.checks[0].line == 15


def test_include_replays_the_other_tests_commands_then_its_own_checks() -> None:
    script = parse_script(SCRIPT)
    test = script.find("builds on setup")
    assert test is not None
    plan = script.plan(test)
    assert [step.command for step in plan] == ["look", None, "wait"]
    assert isinstance(plan[1].checks[0], StateCheck)


def test_helpers_run_only_when_named_and_patterns_are_globs_or_substrings() -> None:
    script = parse_script(SCRIPT)
    assert [t.name for t in select_tests(script, [])] == ["opening", "talk to bram", "builds on setup"]
    assert [t.name for t in select_tests(script, ["BRAM"])] == ["talk to bram"]
    assert [t.name for t in select_tests(script, ["_set*"])] == ["_setup"]
    assert [t.name for t in select_tests(script, ["*"])] == ["opening", "talk to bram", "builds on setup"]
    assert select_tests(script, ["nothing-like-this"]) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("> look\n", "story.regtest:1: a command or check before the first test"),
        ("* a\n* a\n", "story.regtest:2: test name used twice: 'a'"),
        ("** colour: red\n", "story.regtest:1: unknown header 'colour'"),
        ("** seed: many\n", "story.regtest:1: seed 'many' is not a whole number"),
        ("** narrator: magic\n", "story.regtest:1: narrator 'magic'"),
        ("* a\n>{include} b\n", "story.regtest:2: no test named 'b' to include"),
        ("* a\n>{include} b\n* b\n>{include} a\n", "a test includes itself (a -> b -> a)"),
        ("* a\n>{char} x\n", "story.regtest:2: unknown command type {char}"),
        ("* a\n> look\n/[unclosed\n", "story.regtest:3: bad regular expression"),
        ("* a\n> look\n{status} x\n", "story.regtest:3: unknown check modifier {status}"),
        ("* a\n> look\n{graph} Bram -> : KIN_OF\n", "story.regtest:3: a graph check names both ends"),
        ("* a\n> look\n{graph} A -> B: KIN_OF sign=maybe\n", "sign=maybe: the sign is +, - or 0"),
        ("* a\n> look\n{state} mood = grim\n", "story.regtest:3: unknown state key 'mood'"),
        ("* a\n> look\n{count=x} gull\n", "{count=N} with a whole number"),
    ],
)
def test_a_bad_script_is_an_input_error_naming_file_and_line(text: str, message: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_script(text, "story.regtest")
    assert message in raised.value.message


def test_load_script_reports_a_missing_file_plainly(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such script"):
        load_script(tmp_path / "missing.regtest")
    (tmp_path / "ok.regtest").write_text("* one\n> look\n", encoding="utf-8")
    assert [t.name for t in load_script(tmp_path / "ok.regtest").tests] == ["one"]


def test_replay_narrator_header_keeps_the_file_name() -> None:
    script = parse_script("** narrator: replay: sessions/run1.jsonl\n* a\n> look\n")
    assert script.headers.replay == "sessions/run1.jsonl"
    assert Headers(narrator="offline").replay is None


@pytest.mark.timeout(30)
def test_an_include_chain_too_deep_is_refused_naming_the_line() -> None:
    """5,000 tests each including the next once overflowed Python's stack."""
    text = "".join(f"* t{i}\n>{{include}} t{i + 1}\n" for i in range(5000)) + "* t5000\n> look\n"
    with pytest.raises(InputError) as raised:
        parse_script(text, "deep.regtest")
    message = raised.value.message
    assert "deep.regtest:" in message and f"more than {MAX_INCLUDE_DEPTH} deep" in message
    assert len(message) < 300, "the chain is abbreviated, not printed 5,000 names long"


def test_includes_nested_as_deep_as_allowed_still_run() -> None:
    depth = MAX_INCLUDE_DEPTH
    text = "".join(f"* t{i}\n>{{include}} t{i + 1}\n" for i in range(depth)) + f"* t{depth}\n> look\n"
    script = parse_script(text)
    assert [step.command for step in script.plan(script.tests[0])] == ["look"]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("commands", [1, 0])
def test_includes_that_fan_out_are_refused_before_expanding(commands: int) -> None:
    """Each test including the one below twice doubles the plan: 40 levels would be 2**40 steps."""
    text = "".join(f"* t{i}\n>{{include}} t{i + 1}\n>{{include}} t{i + 1}\n" for i in range(40))
    text += "* t40\n" + "> look\n" * commands
    with pytest.raises(InputError) as raised:
        parse_script(text, "wide.regtest")
    assert f"more than {MAX_EXPANDED_STEPS:,} steps" in raised.value.message
    assert "wide.regtest:" in raised.value.message


def test_a_deep_chain_written_bottom_up_is_refused_too() -> None:
    """Tests measured before the ones that include them bring their depth along."""
    text = f"* t{MAX_INCLUDE_DEPTH + 1}\n> look\n"
    text += "".join(f"* t{i}\n>{{include}} t{i + 1}\n" for i in reversed(range(MAX_INCLUDE_DEPTH + 1)))
    with pytest.raises(InputError, match=f"more than {MAX_INCLUDE_DEPTH} deep"):
        parse_script(text, "deep.regtest")


# Characters Python's ``str.splitlines`` also breaks at: a script or command file breaks at "\n" only.
NOT_LINE_BREAKS = ["\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85"]


@pytest.mark.parametrize("char", NOT_LINE_BREAKS)
def test_a_script_line_ends_only_at_a_newline(tmp_path: Path, char: str) -> None:
    path = tmp_path / "odd.regtest"
    path.write_bytes(f"* odd\n> say one{char}two\nsaid{char}so\n> bogus {{x\n".encode())
    script = load_script(path)
    test = script.find("odd")
    assert test is not None
    step = test.items[0]
    assert isinstance(step, Step) and step.command == f"say one{char}two"
    assert [type(c) for c in step.checks] == [TextCheck] and step.checks[0].line == 3
    assert len(test.items) == 2, "the lines after it keep their numbers and meaning"


def test_a_script_with_windows_line_ends_and_a_byte_order_mark_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "windows.regtest"
    path.write_bytes(("\ufeff" + SCRIPT.replace("\n", "\r\n")).encode())
    assert repr(load_script(path).tests) == repr(parse_script(SCRIPT, path).tests)  # checks compare by repr
    assert load_script(path).headers == Headers(world="brinefall", seed=7), "the first line is a header"


def test_an_error_names_the_line_counted_in_newlines(tmp_path: Path) -> None:
    path = tmp_path / "bad.regtest"
    path.write_bytes("\ufeff* t\r\n> look\u2028around\r\n{count=x} gull\r\n".encode())
    with pytest.raises(InputError, match=r"bad\.regtest:3"):
        load_script(path)


@pytest.mark.parametrize("char", NOT_LINE_BREAKS)
def test_a_command_file_line_ends_only_at_a_newline(tmp_path: Path, char: str) -> None:
    path = tmp_path / "commands.txt"
    path.write_bytes(f"\ufeff# a comment\r\n> say one{char}two\r\nlook\n\n".encode())
    assert read_commands(path) == [f"say one{char}two", "look"]
