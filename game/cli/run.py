"""``kith run``: play RegTest-style scripts headless and check them, or just play a list of commands.

    kith run SCRIPT... [-v] [--vital] [-l] [TEST-NAME-PATTERN...]
    kith run --transcript [--save NAME] COMMANDS-FILE

An argument naming an existing file (or ending in ``.regtest``) is a script; any other is a pattern
choosing tests by name. Exit status: 0 when every test passed, 1 when any failed or none matched.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

from game.cli.play import add_llm_flags, check_record, game_settings_flags
from game.config import Settings
from game.errors import InputError
from game.script.parser import Script, TestCase, load_script, select_tests
from game.script.report import format_result, summary
from game.script.runner import RunOptions, ScriptRunner, TestResult

SCRIPTS_FORM = "kith run SCRIPT... [-v] [--vital] [-l] [TEST-NAME-PATTERN...]"
TRANSCRIPT_FORM = "kith run --transcript [--save NAME] COMMANDS-FILE"
"""The two forms, exactly as docs/commands.md and docs/scripts.md show them (a test compares)."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run", help="run test scripts headless (or play a command list with --transcript)",
        usage=f"{SCRIPTS_FORM}\n       {TRANSCRIPT_FORM}",
        description="Each test of a script is a fresh game in a temporary folder; the output ends with "
                    "'N passed, N failed' and any failure exits 1. With --transcript, COMMANDS-FILE is "
                    "played and its story printed, checking nothing. See docs/scripts.md.",
    )
    # Any number here, so a missing file is refused by ``run_command`` naming the form it belongs to.
    parser.add_argument("targets", nargs="*", metavar="SCRIPT-OR-PATTERN",
                        help="script files, then test-name patterns (a glob, or text found in the name); "
                             "with --transcript, the one COMMANDS-FILE")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every command and its output")
    parser.add_argument("--vital", action="store_true", help="stop a test at its first failed check")
    parser.add_argument("-l", "--list", action="store_true", help="list the tests instead of running them")
    parser.add_argument("--transcript", action="store_true",
                        help="play COMMANDS-FILE, a plain command file (one per line, # comments), and print "
                             "the story")
    parser.add_argument("--save", metavar="NAME", help="with --transcript: keep the game in this save")
    parser.add_argument("--world", metavar="ID", help="world, unless a script's header names one")
    parser.add_argument("--seed", type=int, metavar="N", help="seed, unless a script's header sets one")
    add_llm_flags(parser)
    parser.set_defaults(handler=run_command, settings_flags=game_settings_flags)


def split_targets(targets: list[str]) -> tuple[list[Path], list[str]]:
    """Scripts (existing files, or anything ending in .regtest) and test-name patterns."""
    scripts: list[Path] = []
    patterns: list[str] = []
    for target in targets:
        path = Path(target)
        if path.is_file() or target.endswith(".regtest"):
            scripts.append(path)
        else:
            patterns.append(target)
    return scripts, patterns


def run_command(args: argparse.Namespace, settings: Settings) -> int:
    check_record(args, settings)
    if args.transcript:
        return _transcript(args, settings)
    if args.save:
        raise InputError("--save goes with --transcript; a test script always plays in a temporary game")
    if not args.targets:
        raise InputError(f"name a script to run: {SCRIPTS_FORM}")
    scripts, patterns = split_targets(args.targets)
    if not scripts:
        raise InputError(f"no script among {' '.join(args.targets)!s}: name a .regtest file first")
    loaded = [load_script(path) for path in scripts]
    chosen = [(script, test) for script in loaded for test in select_tests(script, patterns)]
    if not chosen:
        print("No tests match." if patterns else "No tests in the script.")
        return 1
    if args.list:
        _list(chosen, several=len(loaded) > 1)
        return 0
    record = getattr(args, "record", None)
    if record is not None and len(chosen) != 1:
        raise InputError(f"--record stores one test's model session; {len(chosen)} tests are chosen "
                         "(name one with a pattern)")
    options = RunOptions(args.verbose, args.vital, record)
    results = asyncio.run(run_tests(settings, chosen, options, _print, several=len(loaded) > 1))
    return 0 if all(r.passed for r in results) else 1


def _print(text: str) -> None:
    print(text, flush=True)


def _list(chosen: list[tuple[Script, TestCase]], several: bool) -> None:
    shown: Path | None = None
    for script, test in chosen:
        if several and script.path != shown:
            print(f"# {script.path}")
            shown = script.path
        print(test.name)


async def run_tests(settings: Settings, chosen: list[tuple[Script, TestCase]], options: RunOptions,
                    say: Callable[[str], None], several: bool = False) -> list[TestResult]:
    """Run the chosen tests in order, printing each as it goes, then the summary line."""
    runner = ScriptRunner(settings, options, say)
    results: list[TestResult] = []
    shown: Path | None = None
    for script, test in chosen:
        if several and script.path != shown:
            say(f"# {script.path}")
            shown = script.path
        say(f"* {test.name}")
        result = await runner.run_test(script, test)
        results.append(result)
        report = format_result(result, verbose=options.verbose)
        if report:
            say(report)
    say("")
    say(summary(results))
    return results


def _transcript(args: argparse.Namespace, settings: Settings) -> int:
    from game.script.transcript import play_transcript

    if len(args.targets) != 1:
        raise InputError(f"--transcript plays one command file: {TRANSCRIPT_FORM}")
    return asyncio.run(play_transcript(settings, Path(args.targets[0]), args.save, sys.stdout,
                                       record=getattr(args, "record", None)))
