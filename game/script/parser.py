"""Reading a ``.regtest`` script: headers, tests, commands and the checks under each command.

The format follows Andrew Plotkin's RegTest, which interactive-fiction authors already know::

    ** world: brinefall          (headers before the first test apply to the file; inside a test, to it)
    ** content: ../worlds        (where worlds are found, relative to the script; default: settings)
    * test name                  (each test is a fresh game)
    Lines here check the opening.
    > a command
    text the output contains
    >{include} other test        (replays another test's commands and checks)

Lines are stripped; blank lines and lines starting with ``#`` are skipped. A test whose name starts with
``_`` or ``-`` is a helper: it runs only when named, so it can exist just to be included.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from game.errors import InputError
from game.reading import TooLarge, read_file_at_most
from game.script.checks import Check, CheckSyntaxError, parse_check

HEADER_KEYS = ("world", "seed", "narrator", "content")
NARRATOR_KINDS = ("offline", "openai", "auto")
MAX_INCLUDE_DEPTH = 50
"""Includes within includes, at most: deeper chains are a mistake (or an attack on the stack)."""
MAX_EXPANDED_STEPS = 10_000
"""Steps and includes in one test once every include is replayed: a test that includes another twice,
which includes another twice, ... doubles at each level, so the plan is bounded, not only the depth."""


@dataclass(frozen=True)
class Headers:
    """``**`` settings. ``None`` leaves a value to the enclosing level (file, then settings)."""

    world: str | None = None
    seed: int | None = None
    narrator: str | None = None
    content: str | None = None
    """The folder of worlds, as written (relative to the script): fixture worlds live outside content/."""

    def over(self, base: Headers) -> Headers:
        """These headers with ``base`` filling what they leave unset."""
        return Headers(
            world=self.world if self.world is not None else base.world,
            seed=self.seed if self.seed is not None else base.seed,
            narrator=self.narrator if self.narrator is not None else base.narrator,
            content=self.content if self.content is not None else base.content,
        )

    @property
    def replay(self) -> str | None:
        """The recorded session named by ``narrator: replay:FILE``, as written."""
        if self.narrator and self.narrator.startswith("replay:"):
            return self.narrator.removeprefix("replay:").strip()
        return None


@dataclass
class Step:
    """A command and the checks of its output. ``command`` None re-checks the previous output."""

    command: str | None
    line: int
    checks: list[Check] = field(default_factory=list)


@dataclass
class Include:
    """``>{include} name``: another test's commands, then this line's own checks."""

    name: str
    line: int
    checks: list[Check] = field(default_factory=list)


@dataclass
class TestCase:
    __test__ = False  # not a pytest test class, despite the name
    name: str
    line: int
    headers: Headers = field(default_factory=Headers)
    opening_checks: list[Check] = field(default_factory=list)
    items: list[Step | Include] = field(default_factory=list)

    @property
    def helper(self) -> bool:
        """Helpers (``_name``, ``-name``) run only when a pattern names them, as in RegTest."""
        return self.name.startswith(("_", "-"))


@dataclass
class Script:
    path: Path
    headers: Headers
    tests: list[TestCase]

    def find(self, name: str) -> TestCase | None:
        return next((test for test in self.tests if test.name == name), None)

    def headers_for(self, test: TestCase) -> Headers:
        return test.headers.over(self.headers)

    def plan(self, test: TestCase) -> list[Step]:
        """The test's steps with every include replaced by the included test's steps."""
        self.check_includes(test, {})
        return self._expand(test, (test.name,))

    def check_includes(self, test: TestCase, sizes: dict[str, tuple[int, int]]) -> int:
        """Refuse unknown, circular, too deep or too large includes before expanding anything.

        Returns the size of the test's plan (steps and includes, counted as expanded). ``sizes`` keeps
        the size and include depth of every test already measured, so a script of many tests is measured in
        one pass.
        """
        size, _depth = self._measure(test, (test.name,), sizes)
        if size > MAX_EXPANDED_STEPS:
            raise _error(self.path, test.line, f"test {test.name!r} expands to more than {MAX_EXPANDED_STEPS:,} "
                         "steps once its includes are replayed (do includes fan out, one test included twice "
                         "in each of several levels?)")
        return size

    def _measure(self, test: TestCase, nested: tuple[str, ...], sizes: dict[str, tuple[int, int]]
                 ) -> tuple[int, int]:
        """(steps and includes once expanded, capped; how deep its includes go) of ``test``."""
        if test.name in sizes:
            return sizes[test.name]
        size = depth = 0
        for item in test.items:
            size += 1
            if isinstance(item, Step):
                continue
            included = self.find(item.name)
            if included is None:
                raise _error(self.path, item.line, f"no test named {item.name!r} to include")
            if item.name in nested:
                chain = " -> ".join([*nested, item.name])
                raise _error(self.path, item.line, f"a test includes itself ({chain})")
            below = 0 if len(nested) > MAX_INCLUDE_DEPTH else self._measure(included, (*nested, item.name), sizes)[1]
            if len(nested) + below > MAX_INCLUDE_DEPTH:  # a measured test brings its depth along
                raise _error(self.path, item.line, f"includes nested more than {MAX_INCLUDE_DEPTH} deep "
                             f"(from {nested[0]!r} through {item.name!r})")
            included_size, _ = sizes[item.name]
            # Capped, so that the sizes of a fanning-out script stay small numbers while it is refused.
            size = min(size + included_size, MAX_EXPANDED_STEPS + 1)
            depth = max(depth, below + 1)
        sizes[test.name] = (size, depth)
        return size, depth

    def _expand(self, test: TestCase, nested: tuple[str, ...]) -> list[Step]:
        steps: list[Step] = []
        for item in test.items:
            if isinstance(item, Step):
                steps.append(item)
                continue
            included = self.find(item.name)
            assert included is not None, "check_includes ran first"
            steps.extend(self._expand(included, (*nested, item.name)))
            if item.checks:
                steps.append(Step(None, item.line, item.checks))
        return steps


def _error(path: Path, line: int, message: str) -> InputError:
    return InputError(f"{path}:{line}: {message}", title="Script")


def _header(path: Path, line: int, text: str, current: Headers) -> Headers:
    key, colon, value = text.partition(":")
    key, value = key.strip().lower(), value.strip()
    if not colon or not key:
        raise _error(path, line, "a header reads '** key: value'")
    if key not in HEADER_KEYS:
        raise _error(path, line, f"unknown header {key!r} (known: {', '.join(HEADER_KEYS)})")
    if not value:
        raise _error(path, line, f"the {key} header has no value")
    if key == "world":
        return replace(current, world=value)
    if key == "content":
        return replace(current, content=value)
    if key == "seed":
        try:
            return replace(current, seed=int(value))
        except ValueError:
            raise _error(path, line, f"seed {value!r} is not a whole number") from None
    if value not in NARRATOR_KINDS and not (value.startswith("replay:") and value[7:].strip()):
        raise _error(path, line, f"narrator {value!r}: use offline, openai, auto or replay:FILE")
    return replace(current, narrator=value)


def file_lines(text: str) -> list[str]:
    """The lines of a script or command file: split at ``\n`` only (a ``\r\n`` end is one break), a
    byte-order mark before the first line dropped.

    Not ``str.splitlines``: it also breaks at U+2028, U+2029, form feeds and other separators a pasted
    line may hold, which would split one command in two and shift every later line number.
    """
    return [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]


SCRIPT_LIMIT = 4 << 20
"""The most a script or command file may hold: tens of thousands of commands, and a bound on what
``/dev/zero`` or an endless pipe named as one can make Kith hold."""


def read_file_text(path: Path) -> str:
    """A script or command file as text, its line ends untouched (``read_text`` would also turn a lone
    ``\r`` into a line break). ``OSError``, ``UnicodeDecodeError`` and ``TooLarge`` are the caller's to word."""
    return read_file_at_most(path, SCRIPT_LIMIT).decode("utf-8")


def parse_script(text: str, path: Path | str = "<script>") -> Script:
    """Parse a whole script; ``InputError`` names the file and line of the first problem."""
    path = Path(path)
    file_headers = Headers()
    tests: list[TestCase] = []
    test: TestCase | None = None
    for number, raw in enumerate(file_lines(text), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("**"):
            if test is None:
                file_headers = _header(path, number, line[2:], file_headers)
            else:
                test.headers = _header(path, number, line[2:], test.headers)
            continue
        if line.startswith("*"):
            name = line[1:].strip()
            if not name:
                raise _error(path, number, "a test needs a name: '* name'")
            if any(t.name == name for t in tests):
                raise _error(path, number, f"test name used twice: {name!r}")
            test = TestCase(name, number)
            tests.append(test)
            continue
        if test is None:
            raise _error(path, number, "a command or check before the first test ('* name')")
        if line.startswith(">"):
            test.items.append(_command(path, number, line))
            continue
        try:
            check = parse_check(line, number)
        except CheckSyntaxError as error:
            raise _error(path, number, str(error)) from None
        (test.items[-1].checks if test.items else test.opening_checks).append(check)
    script = Script(path, file_headers, tests)
    sizes: dict[str, tuple[int, int]] = {}
    for each in tests:
        script.check_includes(each, sizes)  # a bad include is an error before anything runs
    return script


def _command(path: Path, number: int, text: str) -> Step | Include:
    match = re.match(r">\s*\{([a-z_]*)\}", text)
    if match is None:
        return Step(text[1:].strip(), number)
    if match.group(1) != "include":
        raise _error(path, number, f"unknown command type {{{match.group(1)}}} (only {{include}})")
    name = text[match.end():].strip()
    if not name:
        raise _error(path, number, "{include} needs the name of a test")
    return Include(name, number)


def load_script(path: Path) -> Script:
    try:
        text = read_file_text(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such script", title="Script") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a script", title="Script") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text", title="Script") from None
    except TooLarge as error:
        raise InputError(f"{path}: is {error.words}, more than a script holds", title="Script") from None
    return parse_script(text, path)


def matches(name: str, pattern: str) -> bool:
    """A glob (``undo-*``) matches the whole name; plain text matches anywhere in it. Case is ignored."""
    if any(char in pattern for char in "*?["):
        return fnmatch.fnmatchcase(name.casefold(), pattern.casefold())
    return pattern.casefold() in name.casefold()


def select_tests(script: Script, patterns: list[str]) -> list[TestCase]:
    """The tests some pattern matches; no pattern is ``*``, which leaves helpers out (as in RegTest)."""
    patterns = patterns or ["*"]
    return [
        test for test in script.tests
        if any(matches(test.name, p) and not (p == "*" and test.helper) for p in patterns)
    ]
