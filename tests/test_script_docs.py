"""The worked examples in docs/scripts.md, docs/commands.md and docs/explore.md, run as written.

Each document is played in its own empty folder: blocks fenced as ```` ```LANG file=NAME ```` are written
there first, then every ``$ command`` line of the ```` ```console ```` blocks runs in order (through the
shell, with the checkout's ``kith`` first on PATH and stderr merged into stdout). Each must exit 0 (an
example that shows a failure ends with ``; echo "exit $?"``), and the output shown under it must appear in
the real output, line by line, in order; ``…`` stands for any text, runs of spaces compare as one, and
other output lines may come in between.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).parent.parent / "docs"
FENCE = re.compile(r"^```(\S*)(?:[ \t]+file=(\S+))?[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def blocks(text: str) -> list[tuple[str, str | None, str]]:
    return [(m.group(1), m.group(2), m.group(3)) for m in FENCE.finditer(text)]


def console_steps(body: str) -> list[tuple[str, list[str]]]:
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def squeeze(line: str) -> str:
    """Runs of spaces as one: a table's column widths follow its longest value, which examples vary."""
    return re.sub(r"[ \t]+", " ", line).strip()


def pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(squeeze(part)) for part in expected.split("…")))


def assert_shown(command: str, expected: list[str], actual: str) -> None:
    lines = [squeeze(line) for line in actual.splitlines()]
    at = 0
    for want in (squeeze(w) for w in expected):
        if not want or want == "…":
            continue
        wanted = pattern(want)
        while at < len(lines) and not wanted.fullmatch(lines[at]):
            at += 1
        assert at < len(lines), f"$ {command}\nexpected a line like:\n  {want}\nin the output:\n{actual}"
        at += 1


def sandbox_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KITH_"))}
    empty = folder / ".kith.toml"
    empty.write_text("", encoding="utf-8")
    env.update({
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "KITH_CONFIG": str(empty), "KITH_SAVES": str(folder / "saves"), "COLUMNS": "100",
    })
    return env


@pytest.mark.slow
@pytest.mark.parametrize("document", ["scripts.md", "commands.md", "explore.md"])
def test_worked_examples(document: str, tmp_path: Path) -> None:
    found = blocks((DOCS / document).read_text(encoding="utf-8"))
    for _, name, body in found:
        if name is not None:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)  # a world's file: worlds/jetty/world.toml
            (tmp_path / name).write_text(body, encoding="utf-8")
    env = sandbox_env(tmp_path)
    ran = 0
    for language, _, body in found:
        if language != "console":
            continue
        for command, expected in console_steps(body):
            done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
            shown = done.stdout
            assert done.returncode == 0, f"$ {command}\nexited {done.returncode}:\n{shown}"
            assert "Traceback" not in shown, f"$ {command}\n{shown}"
            assert_shown(command, expected, shown)
            ran += 1
    assert ran >= 4


def test_the_matcher_can_fail() -> None:
    with pytest.raises(AssertionError, match="expected a line like"):
        assert_shown("kith", ["2 passed, 0 failed"], "* one\n\n1 passed, 1 failed\n")
    assert_shown("kith", ["* one", "…", "1 passed, … failed"], "* one\n* two\n\n1 passed, 1 failed\n")
