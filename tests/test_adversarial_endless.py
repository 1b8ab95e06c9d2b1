"""Inputs that never end (issue 21): ``/dev/zero``, a fifo or a pipe fed without end, given to ``graph
upsert``, ``graph import``, ``graph extract``, ``run --transcript``, a script, ``--config`` and line mode,
once grew Kith until ``MemoryError``. Each is refused with a message naming its limit, exit status 2,
nothing written, and the process reads at most one chunk past the limit: the feeding side finds its reader
gone long before it has sent everything it had.

Case counts: 7 inputs through ``/dev/zero``; 7 through a pipe or fifo fed by a generator four times the
limit (each counted); 1 line mode run on an endless line; plus each reader's limit at and past the edge.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from game.cli.graph_write import EXTRACT_LIMIT, IMPORT_LIMIT, UPSERT_LIMIT
from game.reading import TooLarge, read_at_most, read_file_at_most, read_text_at_most
from game.script.parser import SCRIPT_LIMIT
from game.settings_source import CONFIG_LIMIT

KITH = Path(sys.executable).parent / "kith"
FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
CHUNK = 1 << 20
# (name, argv with INPUT where the input goes, limit, the message's start after "kith: INPUT ")
COMMANDS = [
    ("graph upsert", ["graph", "upsert", "--save", "g", "INPUT"], UPSERT_LIMIT, "is larger than 16 MiB; nothing was written"),
    ("graph import", ["graph", "import", "--save", "g", "INPUT"], IMPORT_LIMIT, "is larger than 128 MiB; nothing was written"),
    ("graph extract", ["graph", "extract", "--save", "g", "INPUT"], EXTRACT_LIMIT, "is larger than 2 MB; nothing was written"),
    ("run --transcript", ["run", "--transcript", "INPUT"], SCRIPT_LIMIT,
     ": is larger than 4 MiB, more than a command file holds; nothing was played"),
    ("run a script", ["run", "INPUT.regtest"], SCRIPT_LIMIT, ": is larger than 4 MiB, more than a script holds"),
    ("--config", ["--config", "INPUT", "saves", "list"], CONFIG_LIMIT,
     ": is larger than 1 MiB, more than a settings file holds"),
    ("import-story", ["import-story", "--save", "story", "INPUT"], 2_000_000, "is 2,000,001 bytes; a story to import may be at most 2,000,000"),
]
STDIN_COMMANDS = {"graph upsert", "graph import", "graph extract", "import-story"}


def _run(argv: list[str], saves: Path, stdin: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KITH), "--saves-dir", str(saves), "--content-dir", str(FIXTURES), *argv],
                          stdin=stdin if stdin is not None else subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


def _with_input(argv: list[str], where: str) -> list[str]:
    return [word.replace("INPUT", where) for word in argv]


@pytest.fixture
def saves(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "saves"
    folder.mkdir()
    yield folder
    assert sorted(p.name for p in folder.iterdir()) == [], "a refused input left a save behind"


@pytest.mark.parametrize(("name", "argv", "limit", "said"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_dev_zero_is_refused_with_its_limit(name: str, argv: list[str], limit: int, said: str,
                                             saves: Path, tmp_path: Path) -> None:
    where = "/dev/zero"
    if name == "run a script":  # a script is a file whose name ends in .regtest: a link to /dev/zero
        (tmp_path / "zero.regtest").symlink_to("/dev/zero")
        where = str(tmp_path / "zero")
    result = _run(_with_input(argv, where), saves)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
    assert said in result.stderr, result.stderr


class Feeder(threading.Thread):
    """Writes zero-filled chunks into ``fd`` until ``total`` bytes or the reader goes; counts what it sent."""

    def __init__(self, path_or_fd: Path | int, total: int) -> None:
        super().__init__(daemon=True)
        self.target_of = path_or_fd
        self.total = total
        self.sent = 0

    def run(self) -> None:
        fd = os.open(self.target_of, os.O_WRONLY) if isinstance(self.target_of, Path) else self.target_of
        chunk = b"\0" * CHUNK
        try:
            while self.sent < self.total:
                self.sent += os.write(fd, chunk)
        except (BrokenPipeError, OSError):
            pass
        finally:
            os.close(fd)


@pytest.mark.parametrize(("name", "argv", "limit", "said"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_an_endless_pipe_is_read_only_to_its_limit(name: str, argv: list[str], limit: int, said: str,
                                                   saves: Path, tmp_path: Path) -> None:
    total = 4 * limit + 8 * CHUNK
    if name in STDIN_COMMANDS:
        read_end, write_end = os.pipe()
        feeder = Feeder(write_end, total)
        feeder.start()
        try:
            result = _run(_with_input(argv, "-"), saves, stdin=read_end)
        finally:
            os.close(read_end)
    else:
        fifo = tmp_path / ("endless.regtest" if name == "run a script" else "endless")
        os.mkfifo(fifo)
        feeder = Feeder(fifo, total)
        feeder.start()
        result = _run(_with_input(argv, str(fifo).removesuffix(".regtest")), saves)
    feeder.join(timeout=30)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert said in result.stderr, result.stderr
    # One chunk past the limit, and what the pipe's buffer held when the reader went: far from all of it.
    assert feeder.sent <= limit + 4 * CHUNK, (feeder.sent, limit)
    assert feeder.sent < total


def test_line_mode_stops_reading_a_line_that_never_ends(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    feeder = Feeder(write_end, 64 * CHUNK)
    feeder.start()
    try:
        result = subprocess.run([str(KITH), "--saves-dir", str(tmp_path), "--content-dir", str(FIXTURES), "play",
                                 "--plain", "--save", "g", "--world", "tiny"], stdin=read_end, capture_output=True,
                                text=True, timeout=120)
    finally:
        os.close(read_end)
    feeder.join(timeout=30)
    assert result.returncode == 0, result.stderr
    assert "(A line longer than 65,536 characters came in: line mode stops reading.)" in result.stdout
    assert result.stdout.rstrip().endswith("Your game is saved as g at turn 0.")
    assert feeder.sent < 64 * CHUNK


def test_each_reader_takes_its_limit_and_refuses_one_byte_more(tmp_path: Path) -> None:
    assert read_at_most(io.BytesIO(b"x" * 10), 10) == b"x" * 10
    with pytest.raises(TooLarge, match="larger than 10 bytes"):
        read_at_most(io.BytesIO(b"x" * 11), 10)
    assert read_text_at_most(io.StringIO("é" * 10), 10) == "é" * 10
    with pytest.raises(TooLarge):
        read_text_at_most(io.StringIO("é" * 11), 10)
    path = tmp_path / "f"
    path.write_bytes(b"y" * (3 * CHUNK))
    assert read_file_at_most(path, 3 * CHUNK) == b"y" * (3 * CHUNK)
    with pytest.raises(TooLarge, match="larger than 3,145,727 bytes"):
        read_file_at_most(path, 3 * CHUNK - 1)
