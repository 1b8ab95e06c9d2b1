"""``kith run --transcript``: play a plain list of commands and print the story, checking nothing.

The command file has one command per line; blank lines and ``#`` comments are skipped and a leading
``>`` is dropped, so a transcript pasted from a session can be replayed as it is. With a save the game
is kept there (resumed when it exists); without one it lives in a temporary folder and is gone after.
"""

from __future__ import annotations

import tempfile
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from game.config import Settings
from game.engine.events import Event, MetaOutput, QuitRequested
from game.errors import InputError
from game.reading import TooLarge
from game.script.parser import file_lines, read_file_text
from game.script.plain import PlainPrinter
from game.text import escape_control

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator

    from game.engine.session import GameSession


def read_commands(path: Path) -> list[str]:
    try:
        text = read_file_text(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such command file") from None
    except (IsADirectoryError, UnicodeDecodeError):
        raise InputError(f"{path}: not a UTF-8 text file of commands") from None
    except TooLarge as error:
        raise InputError(f"{path}: is {error.words}, more than a command file holds; nothing was played") from None
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror or error})") from None
    commands = []
    for raw in file_lines(text):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        commands.append(line[1:].strip() if line.startswith(">") else line)
    return commands


NOT_KEPT = ("This game is not kept: without `--save` it was played in a temporary folder. "
            "`kith run --transcript --save NAME FILE` keeps it.")
"""What ``quit`` says in a temporary game, in place of "Your game is saved as ..." (no such save exists)."""


async def play_commands(session: GameSession, commands: list[str], out: TextIO, *, kept: bool = True) -> int:
    """Print the opening, then each command and its output; stop early if the game is quit. ``kept``:
    the game is in a save that outlives the run (False: a temporary one, and ``quit`` says so)."""
    printer = PlainPrinter(out)
    printer.paragraph(session.opening_text())
    played = 0
    for command in commands:
        out.write(f"> {escape_control(command)}\n")  # a file's line: its escape sequences shown, not sent
        quit_asked = False
        stream = cast("AsyncGenerator[Event, None]", session.play_turn(command))
        async with aclosing(stream):
            async for event in stream:
                if not kept and isinstance(event, MetaOutput) and event.command == "quit":
                    event = MetaOutput(NOT_KEPT, "quit")
                printer.show(event)
                quit_asked = quit_asked or isinstance(event, QuitRequested)
        printer.end_command()
        played += 1
        if quit_asked:
            break
    out.flush()
    return played


async def play_transcript(settings: Settings, path: Path, save: str | None, out: TextIO,
                          record: Path | None = None) -> int:
    """Play the file's commands in ``save`` (or a temporary game); returns the exit code."""
    from game.engine.session import GameSession

    commands = read_commands(path)
    if record is not None:
        from game.script.runner import check_recordable

        check_recordable(settings)
    if save is not None:
        # A named save is resumed when it exists and created when it does not.
        session = await GameSession.open(settings, save=save, world=settings.world)
        await _play(session, commands, out, record)
        return 0
    with tempfile.TemporaryDirectory(prefix="kith-transcript-") as folder:
        temporary = settings.model_copy(update={"saves_dir": Path(folder)})
        session = await GameSession.open(temporary, save=Path(folder) / "transcript.sqlite", new=True,
                                         world=settings.world)
        await _play(session, commands, out, record, kept=False)
    return 0


async def _play(session: GameSession, commands: list[str], out: TextIO, record: Path | None, *,
                kept: bool = True) -> None:
    from game.script.runner import attach_recorder

    try:
        if record is not None:
            await attach_recorder(session, record)
        await play_commands(session, commands, out, kept=kept)
    finally:
        await session.close()
