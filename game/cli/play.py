"""``kith play`` (and ``kith`` alone): play in the terminal.

On a terminal the Textual app opens; ``--plain`` or a pipe gives the line-mode loop: the story printed
as plain text, one command per line read from stdin. Both drive the same ``GameSession``, and every
committed turn is already on disk, so leaving never loses anything.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncGenerator
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from game.errors import KithError
from game.text import escape_control

if TYPE_CHECKING:
    from game.config import Settings
    from game.engine.events import Event
    from game.engine.session import GameSession
    from game.settings_source import SettingsSource

PROMPT = "> "


def add_llm_flags(parser: argparse.ArgumentParser) -> None:
    """The endpoint flags, added as ``kith doctor`` defines them."""
    from game.cli.doctor import llm_flag_arguments

    llm_flag_arguments(parser)


def llm_flags(args: argparse.Namespace) -> dict[str, Any]:
    from game.cli.doctor import llm_settings_flags

    return dict(llm_settings_flags(args))


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def game_settings_flags(args: argparse.Namespace) -> dict[str, Any]:
    """``--world``, ``--seed`` and the endpoint flags, nested like ``kith.toml``."""
    flags: dict[str, Any] = {}
    if getattr(args, "world", None):
        flags["world"] = args.world
    if getattr(args, "seed", None) is not None:
        flags["seed"] = args.seed
    return _merge(flags, llm_flags(args))


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play", help="play the game (the default command)",
        description="Play in the terminal. Without --save: resume the most recently played game, or start "
                    "a new one named after the world and the time.",
    )
    parser.add_argument("--save", metavar="NAME", help="the save to play (created if it does not exist)")
    parser.add_argument("--new", action="store_true", help="start a new game (refuses an existing --save)")
    parser.add_argument("--world", metavar="ID", help="world for a new game: an id from kith worlds (shipped, or your own)")
    parser.add_argument("--seed", type=int, metavar="N", help="seed for the offline narrator's choices")
    parser.add_argument("--plain", action="store_true",
                        help="line mode: plain text in and out, for screen readers and pipes")
    # Accepted here too so ``kith --saves-dir X`` (which becomes ``kith play --saves-dir X``) works;
    # SUPPRESS keeps an unset flag from hiding the same flag given before the command.
    for flag in ("--config", "--saves-dir", "--content-dir"):
        parser.add_argument(flag, type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    add_llm_flags(parser)
    parser.set_defaults(handler=run_play, quick_handler=quick_play, settings_flags=game_settings_flags)


def check_record(args: argparse.Namespace, settings: Settings) -> None:
    """Refuse a ``--record FILE`` that would overwrite a save, its sidecars or any file that is not a
    recording, before a game is opened or a model asked (``record.refuse_unsafe_record``)."""
    record = getattr(args, "record", None)
    if record is None:
        return
    from game.narrator.llm.record import refuse_unsafe_record
    from game.store.saves import resolve_save

    save = resolve_save(args.save, settings.saves_dir) if getattr(args, "save", None) else None
    refuse_unsafe_record(record, saves_dir=settings.saves_dir, save=save)


def run_play(args: argparse.Namespace, settings: Settings) -> int:
    check_record(args, settings)
    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        from game.ui.app import run_app  # textual loads only when the full-screen game opens

        return run_app(settings, args.save, args.new, args.world, None)
    line_mode = LineMode(settings, save=args.save, new=args.new, world=args.world,
                         record=getattr(args, "record", None))
    return line_mode.run()


def quick_play(args: argparse.Namespace, source: SettingsSource) -> int:
    """``kith play`` when the settings name only folders: the full-screen game opens before they are
    validated (the app does that as the game opens, after the first frame); line mode validates first."""
    def validated() -> Settings:
        from game.config import validate_settings, with_world_folder

        settings = validate_settings(source)
        return with_world_folder(settings, args.world or settings.world)

    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        from game.ui.app import run_app

        return run_app(validated, args.save, args.new, args.world, None)
    return run_play(args, validated())


LINE_LIMIT = 1 << 16
"""The longest line read in line mode: eight times what a turn takes (longer input is refused as too long),
and a bound on what an input that never ends a line makes Kith hold."""


def _valid_text(line: str) -> str:
    """Bytes that are not UTF-8 (read as lone surrogates) become U+FFFD, so they can be saved and shown."""
    return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class LineMode:
    """The plain read-print loop. Ctrl-C during a turn cancels that turn; at the prompt it leaves."""

    def __init__(self, settings: Settings, save: str | None = None, new: bool = False,
                 world: str | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 record: Path | None = None) -> None:
        self.settings = settings
        self.record = record
        self.save = save
        self.new = new
        self.world = world
        self.stdin = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.interactive = self.stdin is sys.stdin and self.stdin.isatty()

    def run(self) -> int:
        from game.engine.session import GameSession
        from game.script.runner import attach_recorder, check_recordable

        if self.record is not None:
            check_recordable(self.settings)
        with asyncio.Runner() as runner:
            session = runner.run(GameSession.open(self.settings, save=self.save, new=self.new, world=self.world))
            try:
                if self.record is not None:
                    runner.run(attach_recorder(session, self.record))
                self._loop(runner, session)
            finally:
                runner.run(session.close())
        return 0

    def _say(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def _loop(self, runner: asyncio.Runner, session: GameSession) -> None:
        status = "new game" if session.turn == 0 else f"turn {session.turn}"
        self._say(f"Kith · {session.world.title} · save {session.save_name} · {status} · "
                  f"{session.narrator_label}\nType help for commands, quit to leave.\n\n")
        from game.script.plain import PlainPrinter

        PlainPrinter(self.out).paragraph(session.opening_text())  # wrapped to the terminal, like every turn
        while True:
            try:
                line = self._read()
            except (EOFError, KeyboardInterrupt):
                self._say(f"\nYour game is saved as {session.save_name} at turn {session.turn}.\n")
                return
            turn_before = session.turn
            try:
                if runner.run(self._turn(session, line)):
                    return
            except KeyboardInterrupt:
                if session.turn == turn_before:
                    self._say("\n(Cancelled: nothing of that turn was saved.)\n\n")
                else:
                    self._say("\n(Interrupted after the turn was saved.)\n\n")
            except KithError as error:
                self._say(escape_control(f"{error.title}: {error.message}") + "\n\n")
            except Exception as error:  # a bug must not end the game; the save is intact either way
                self._say(escape_control(f"Something went wrong ({type(error).__name__}: {error}).") + "\n\n")

    def _read(self) -> str:
        if self.interactive:
            return _valid_text(input(PROMPT))
        self._say(PROMPT)
        line = self.stdin.readline(LINE_LIMIT + 1)
        if not line:
            raise EOFError
        if len(line) > LINE_LIMIT and not line.endswith("\n"):
            # /dev/zero, or a pipe that never sends a line end: stop reading rather than hold it all.
            self._say(f"\n(A line longer than {LINE_LIMIT:,} characters came in: line mode stops reading.)\n")
            raise EOFError
        line = _valid_text(line.rstrip("\r\n"))
        # Piped input is not echoed by a terminal; show it so the log reads right, its escape sequences
        # as escapes (the line is anyone's: a file's bytes must not clear the screen of whoever reads it).
        self._say(escape_control(line) + "\n")
        return line

    async def _turn(self, session: GameSession, line: str) -> bool:
        from game.engine.events import QuitRequested
        from game.script.plain import PlainPrinter

        printer = PlainPrinter(self.out)
        quit_asked = False
        stream = cast("AsyncGenerator[Event, None]", session.play_turn(line))
        async with aclosing(stream):
            async for event in stream:
                printer.show(event)
                quit_asked = quit_asked or isinstance(event, QuitRequested)
        printer.end_command()
        return quit_asked
