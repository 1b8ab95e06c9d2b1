"""Every worked example in docs/graph-cli.md runs, in order, and prints what the page says it prints.

The page's ```` ```json file=NAME ```` (and ``jsonl``) blocks are written to files first; each ``$ kith ...``
line of a ```` ```console ```` block is run in-process and its output (stdout, then stderr) compared with the
lines under it. A ``# exit status N`` line states a non-zero exit code. Random parts are masked on both
sides: the six-character suffix of edge IDs and merge timestamps.
"""

from __future__ import annotations

import io
import re
import shlex
import sys
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from game.__main__ import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "graph-cli.md"
FENCE = re.compile(r"^```(\S*)(?: file=(\S+))?\n(.*?)^```\n", re.S | re.M)
EDGE_SUFFIX = re.compile(r"\b(edge-[a-z0-9-]+)-[a-z0-9]{6}\b")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[+-]\d\d:\d\d|Z)")
EXIT = re.compile(r"^# exit status (\d+)$")


@dataclass
class Example:
    command: str
    expected: str
    code: int


def mask(text: str) -> str:
    return TIMESTAMP.sub("<time>", EDGE_SUFFIX.sub(r"\1-??????", text)).rstrip()


def parse(markdown: str) -> Iterator[tuple[str, str] | Example]:
    """Files as ``(name, content)`` and console examples, in page order."""
    for match in FENCE.finditer(markdown):
        kind, name, body = match.group(1), match.group(2), match.group(3)
        if name:
            yield name, body
        elif kind == "console":
            command: str | None = None
            lines: list[str] = []
            code = 0
            for line in body.splitlines():
                if line.startswith("$ "):
                    if command is not None:
                        yield Example(command, "\n".join(lines), code)
                    command, lines, code = line[2:], [], 0
                elif (status := EXIT.match(line)) is not None:
                    code = int(status.group(1))
                else:
                    lines.append(line)
            if command is not None:
                yield Example(command, "\n".join(lines), code)


def run(command: str, saves: Path) -> tuple[int, str]:
    args = shlex.split(command)
    assert args[0] == "kith", f"examples run kith only: {command}"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(["--saves-dir", str(saves), *args[1:]])
        except SystemExit as exit_:  # argparse refusals
            code = int(exit_.code or 0)
    return code, out.getvalue() + err.getvalue()


def examples() -> list[tuple[str, str] | Example]:
    return list(parse(DOC.read_text(encoding="utf-8")))


def test_the_page_has_examples_of_every_command() -> None:
    commands = {shlex.split(e.command)[2] for e in examples() if isinstance(e, Example)}
    assert commands >= {"upsert", "import", "dump", "retrieve", "stats", "node", "neighbours", "path", "history",
                        "merge", "alias", "map", "rebuild", "enrich"}
    json_forms = {shlex.split(e.command)[2] for e in examples() if isinstance(e, Example) and "--json" in e.command}
    assert json_forms >= {"import", "stats", "node", "neighbours", "path", "history", "merge", "alias"}


def test_every_worked_example_prints_what_the_page_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    ran = 0
    for item in examples():
        if isinstance(item, Example):
            code, output = run(item.command, tmp_path / "saves")
            assert (code, mask(output)) == (item.code, mask(item.expected)), f"$ {item.command}"
            ran += 1
        else:
            name, content = item
            (tmp_path / name).write_text(content, encoding="utf-8")
    assert ran >= 20
