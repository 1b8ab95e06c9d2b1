"""How a test run reads on the terminal: a line per test, each failure in full, one summary line."""

from __future__ import annotations

from collections.abc import Sequence

from game.script.runner import CheckFailure, TestResult

OUTPUT_LINES = 30


def _quoted(output: str, limit: int = OUTPUT_LINES) -> list[str]:
    lines = output.splitlines() or ["(no output)"]
    shown = [f"    | {line}".rstrip() for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(f"    | ... ({len(lines) - limit} more lines)")
    return shown


def format_failures(failures: Sequence[CheckFailure], with_output: bool = True) -> str:
    """Failures of one command: where, then each check and what it saw, then the output once."""
    first = failures[0]
    lines = [f"  FAILED at {first.where} (line {first.command_line})"]
    for failure in failures:
        negated = " (the check is negated)" if failure.check.inverse else ""
        lines.append(f"    line {failure.check.line}: {failure.check.text}")
        lines.append(f"      {failure.detail}{negated}")
    if with_output:
        lines.append("    output:")
        lines.extend(_quoted(first.output))
    return "\n".join(lines)


def format_result(result: TestResult, verbose: bool = False) -> str:
    """The test's failures after its ``* name`` line; nothing more for a test that passed.

    In verbose mode the output has just been printed above, so it is not repeated.
    """
    groups: list[list[CheckFailure]] = []
    for failure in result.failures:
        if groups and (groups[-1][0].where, groups[-1][0].command_line) == (failure.where, failure.command_line):
            groups[-1].append(failure)
        else:
            groups.append([failure])
    blocks = [format_failures(group, with_output=not verbose) for group in groups]
    if result.error is not None:
        blocks.append(f"  ERROR: {result.error}")
    return "\n".join(blocks)


def summary(results: Sequence[TestResult]) -> str:
    passed = sum(1 for r in results if r.passed)
    return f"{passed} passed, {len(results) - passed} failed"
