"""Playing a script's tests: each test a fresh game in a temporary saves folder, every check judged.

The opening is the output of a virtual first command, so checks written before any ``>`` check it.
Graph and state checks read the session as the command left it (after an undo, the state undone to).
"""

from __future__ import annotations

import tempfile
import traceback
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from game.config import Settings
from game.engine.events import Event, QuitRequested
from game.engine.transcript import plain
from game.errors import ConfigError, InputError, KithError
from game.script.checks import Check, CheckContext
from game.script.parser import Headers, Script, Step, TestCase
from game.script.plain import collect_text
from game.text import escape_control

if TYPE_CHECKING:
    from game.engine.session import GameSession
    from game.narrator.base import Narrator
    from game.registry import Registry

Say = Callable[[str], None]


@dataclass(frozen=True)
class CheckFailure:
    """A check that did not pass: where, which, what it saw, and the output it was judged against."""

    where: str  # "> look", "the opening" or "the include at line 12"
    command_line: int
    check: Check
    detail: str
    output: str


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class, despite the name
    script: Path
    name: str
    failures: list[CheckFailure] = field(default_factory=list)
    error: str | None = None
    checks: int = 0
    commands: int = 0

    @property
    def passed(self) -> bool:
        return not self.failures and self.error is None


@dataclass(frozen=True)
class RunOptions:
    verbose: bool = False
    vital: bool = False
    record: Path | None = None
    """Store the model exchanges of the (single) test run in this file, for ``narrator: replay:FILE``."""
    registry: Registry | None = None
    """The games' features (Kith's own when None): a test plays a saved script with a feature of its own."""


class _StopTest(Exception):
    """A vital check failed: the rest of the test is not played."""


def script_settings(settings: Settings, headers: Headers, saves_dir: Path, base_dir: Path | None = None) -> Settings:
    """The settings a test plays under: its headers over the caller's, a private saves folder.

    ``base_dir`` (the script's folder) anchors a relative ``content`` header, so a script finds its
    fixture worlds from any working directory."""
    update: dict[str, object] = {"saves_dir": saves_dir}
    if headers.world is not None:
        update["world"] = headers.world
    if headers.content is not None:
        content = Path(headers.content)
        update["content_dir"] = base_dir / content if base_dir is not None and not content.is_absolute() else content
    if headers.seed is not None:
        update["seed"] = headers.seed
    # Offline unless the script says otherwise, whatever kith.toml says: a test must not depend on the
    # machine it runs on. A replay is built apart and handed to the session, so it needs no endpoint.
    narrator = headers.narrator or "offline"
    update["narrator"] = "offline" if headers.replay else narrator
    return settings.model_copy(update=update)


def _make_replay(settings: Settings, script: Script, replay: str) -> Narrator:
    from game.engine.opening import choose_world_id
    from game.narrator.factory import make_narrator
    from game.world import load_world

    path = Path(replay)
    if not path.is_absolute():
        path = script.path.parent / path
    if not path.is_file():
        raise KithError(f"{script.path}: the replay file {path} does not exist", title="Script")
    world = load_world(settings.content_dir, choose_world_id(settings, None))
    return make_narrator(settings, world, replay=path)


def check_recordable(settings: Settings) -> None:
    """Refuse ``--record`` before a game is opened (and a save created) when no model would be asked."""
    if not settings.uses_llm:
        raise ConfigError("--record stores a model session, and no model is configured: give --base-url and "
                          "--model (or set [llm] in kith.toml).")


async def attach_recorder(session: GameSession, record: Path) -> None:
    """Tell the session's turns with a model narrator that stores every exchange in ``record``.

    The world is known only once the save is open (a resumed game names its own), so the recording
    narrator replaces the one the session started with.
    """
    from game.narrator.factory import make_narrator

    await session.swap_narrator(make_narrator(session.settings, session.world, record=record))


async def open_test_session(settings: Settings, script: Script, test: TestCase, saves_dir: Path,
                            record: Path | None = None, registry: Registry | None = None) -> GameSession:
    from game.engine.session import GameSession

    headers = script.headers_for(test)
    test_settings = script_settings(settings, headers, saves_dir, script.path.parent)
    if record is not None and (headers.replay or test_settings.narrator == "offline"):
        raise InputError(f"--record keeps a model session, and {test.name!r} is told by the "
                         f"{headers.narrator or 'offline'} narrator: give it '** narrator: openai'", title="Script")
    narrator = _make_replay(test_settings, script, headers.replay) if headers.replay else None
    session = await GameSession.open(test_settings, save=saves_dir / "test.sqlite", new=True,
                                     world=test_settings.world, narrator=narrator, registry=registry)
    if record is not None:
        try:
            await attach_recorder(session, record)
        except BaseException:
            await session.close()
            raise
    return session


async def command_output(session: GameSession, command: str) -> tuple[str, bool]:
    """What one command printed, and whether it asked to quit."""
    events: list[Event] = []
    # play_turn is an async generator; closing it at once (not at garbage collection) matters when the
    # caller is cancelled mid-turn.
    async with aclosing(cast(AsyncGenerator[Event, None], session.play_turn(command))) as stream:
        async for event in stream:
            events.append(event)
    return collect_text(events), any(isinstance(e, QuitRequested) for e in events)


class ScriptRunner:
    """Runs tests and says what it does through ``say`` (one call per printed line block)."""

    def __init__(self, settings: Settings, options: RunOptions | None = None, say: Say | None = None) -> None:
        self.settings = settings
        self.options = options or RunOptions()
        self.say: Say = say or (lambda text: None)

    async def run_test(self, script: Script, test: TestCase) -> TestResult:
        result = TestResult(script.path, test.name)
        with tempfile.TemporaryDirectory(prefix="kith-test-") as folder:
            session: GameSession | None = None
            try:
                session = await open_test_session(self.settings, script, test, Path(folder), self.options.record,
                                                  self.options.registry)
                await self._play(session, script, test, result)
            except _StopTest:
                pass
            except KithError as error:
                result.error = error.message
            except Exception as error:  # a bug in the game: report it as this test's failure, keep going
                result.error = f"{type(error).__name__}: {error}"
                if self.options.verbose:
                    self.say(traceback.format_exc().rstrip())
            finally:
                if session is not None:
                    await session.close()
        return result

    async def _play(self, session: GameSession, script: Script, test: TestCase, result: TestResult) -> None:
        output = plain(session.opening_text())
        if self.options.verbose:
            self.say(output)
        self._judge(session, Step(None, test.line, test.opening_checks), output, result, opening=True)
        steps = script.plan(test)
        for index, step in enumerate(steps):
            if step.command is not None:
                if self.options.verbose:
                    self.say(f"> {escape_control(step.command)}")
                output, quit_asked = await command_output(session, step.command)
                result.commands += 1
                if self.options.verbose:
                    self.say(output)
                if quit_asked:
                    self._judge(session, step, output, result)
                    rest = [s for s in steps[index + 1:] if s.command is not None]
                    if rest:
                        result.error = (f"the game quit at line {step.line}; {len(rest)} later "
                                        f"command{'s were' if len(rest) != 1 else ' was'} not played")
                    return
            self._judge(session, step, output, result)

    def _judge(self, session: GameSession, step: Step, output: str, result: TestResult,
               opening: bool = False) -> None:
        if opening:
            where = "the opening"
        elif step.command is None:
            where = f"the include at line {step.line}"
        else:
            where = f"> {step.command}"
        context = CheckContext(output=output, scene=session.scene, graph=session.graph,
                               vocabulary=session.vocabulary, turn=session.turn, attitudes=session.attitudes.book,
                               features=session.features)
        for check in step.checks:
            result.checks += 1
            verdict = check.evaluate(context)
            if verdict.passed:
                continue
            failure = CheckFailure(where, step.line, check, verdict.detail, output)
            result.failures.append(failure)
            if self.options.verbose:
                self.say(f"*** {check.text}  (line {check.line}): {verdict.detail}")
            if check.vital or self.options.vital:
                raise _StopTest()
