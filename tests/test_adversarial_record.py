"""``--record FILE`` pointed at saves (issue 21): a recording never overwrites a save, a save's sidecar or
any file that is not a recording.

Before, ``kith play --plain --save g --record saves/other.sqlite`` turned the save ``other`` into a 585-byte
recording with no server running, and ``--record saves/g.sqlite`` against a live server made the 200 KB
game a 157-byte header while the game said it was saved. Every form of such a path is refused before
the game starts, with one ``kith:`` line and exit 2, with no server and with a live one (which is then
never asked anything), through ``kith play --plain`` and ``kith run --transcript``; and no file in the
folder changes. Cases: ``len(FORMS)`` paths x 2 servers x 2 commands, plus the paths that stay allowed.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Text
from llm_helpers import llm_settings

from game.__main__ import main
from game.config import load_settings
from game.engine.session import GameSession
from game.errors import InputError
from game.narrator.llm.record import FORMAT, RecordingTransport
from game.narrator.llm.transport import OpenAITransport

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
DEAD = "http://127.0.0.1:9/v1"  # nothing listens there: the "no server running" case


async def _played(saves: Path, name: str) -> None:
    settings = load_settings(flags={"saves_dir": saves, "content_dir": FIXTURES, "world": "tiny"}, env={})
    session = await GameSession.open(settings, save=name, new=True, world="tiny")
    try:
        for command in ("help Edda", "look"):
            async for _event in session.play_turn(command):
                pass
    finally:
        await session.close()


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two played games, ``g`` (the one played in each case) and ``other``."""
    saves = tmp_path_factory.mktemp("games") / "saves"
    asyncio.run(_played(saves, "g"))
    asyncio.run(_played(saves, "other"))
    return saves


@pytest.fixture
def place(tmp_path: Path, games: Path) -> Path:
    """``saves/`` with both games, and ``elsewhere/`` with a copy of one under a name without .sqlite."""
    shutil.copytree(games, tmp_path / "saves")
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(games / "other.sqlite", tmp_path / "elsewhere" / "game.db")
    (tmp_path / "elsewhere" / "notes.txt").write_text("the player's own notes\n")
    return tmp_path


def fifo(root: Path) -> Path:
    path = root / "elsewhere" / "pipe"
    os.mkfifo(path)
    return path


def symlink(root: Path) -> Path:
    link = root / "elsewhere" / "link.jsonl"
    link.symlink_to(root / "saves" / "other.sqlite")
    return link


# Each form: how to make the path (given the folder holding saves/ and elsewhere/), and the --save played.
Form = tuple[Callable[[Path], Path], str]
FORMS: dict[str, Form] = {
    "the save being played": (lambda r: r / "saves" / "g.sqlite", "g"),
    "another save": (lambda r: r / "saves" / "other.sqlite", "g"),
    "a save's name that is not a save yet": (lambda r: r / "saves" / "new.sqlite", "g"),
    "the played save's -wal": (lambda r: r / "saves" / "g.sqlite-wal", "g"),
    "the played save's -shm": (lambda r: r / "saves" / "g.sqlite-shm", "g"),
    "the played save's -journal": (lambda r: r / "saves" / "g.sqlite-journal", "g"),
    "another save's -wal": (lambda r: r / "saves" / "other.sqlite-wal", "g"),
    "a save's temporary name": (lambda r: r / "saves" / ".g.sqlite.creating-4242", "g"),
    "a save's name outside the saves folder": (lambda r: r / "elsewhere" / "mine.sqlite", "g"),
    "a save under another name": (lambda r: r / "elsewhere" / "game.db", "g"),
    "that save's -wal": (lambda r: r / "elsewhere" / "game.db-wal", "g"),
    "that save's -journal": (lambda r: r / "elsewhere" / "game.db-journal", "g"),
    "that save, played by its path": (lambda r: r / "elsewhere" / "game.db", "PATH:elsewhere/game.db"),
    "a new game's path": (lambda r: r / "elsewhere" / "fresh", "PATH:elsewhere/fresh"),
    "a link to a save": (symlink, "g"),
    "a text file": (lambda r: r / "elsewhere" / "notes.txt", "g"),
    "a folder": (lambda r: r / "elsewhere", "g"),
    "the saves folder": (lambda r: r / "saves", "g"),
    "a pipe": (fifo, "g"),
}


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` and its digest (a pipe or link by what it is)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found[str(path)] = f"link to {os.readlink(path)}"
        elif path.is_fifo():
            found[str(path)] = "fifo"
        elif path.is_file():
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[str(path)] = "folder"
    return found


@pytest.fixture(autouse=True)
def _no_endpoint_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY", "KITH_MODEL", "KITH_NARRATOR",
                 "KITH_SAVES", "KITH_CONFIG"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(params=["no server", "live server"])
def endpoint(request: pytest.FixtureRequest) -> Iterator[tuple[str, ChatServer | None]]:
    if request.param == "no server":
        yield DEAD, None
        return
    with ChatServer() as server:
        server.push(*[Text("The lamp gutters. Edda looks up.")] * 6)
        yield server.base_url, server


def kith(root: Path, monkeypatch: pytest.MonkeyPatch, command: str, save: str, record: Path,
         base_url: str) -> int:
    saved = str(root / save.removeprefix("PATH:")) if save.startswith("PATH:") else save
    common = ["--saves-dir", str(root / "saves"), "--content-dir", str(FIXTURES)]
    llm = ["--base-url", base_url, "--model", "test-model", "--record", str(record)]
    if command == "play":
        monkeypatch.setattr("sys.stdin", io.StringIO("look\nquit\n"))
        return main([*common, "play", "--plain", "--save", saved, "--world", "tiny", *llm])
    commands = root / "commands.txt"
    if not commands.exists():
        commands.write_text("look\n")
    return main([*common, "run", "--transcript", "--save", saved, "--world", "tiny", *llm, str(commands)])


@pytest.mark.parametrize("command", ["play", "transcript"])
@pytest.mark.parametrize("form", list(FORMS))
def test_a_recording_is_never_written_over_a_save_or_a_file_that_is_not_one(
        place: Path, form: str, command: str, endpoint: tuple[str, ChatServer | None],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    make, save = FORMS[form]
    record = make(place)
    if command == "transcript":
        (place / "commands.txt").write_text("look\n")
    before = snapshot(place)
    base_url, server = endpoint
    capsys.readouterr()
    code = kith(place, monkeypatch, command, save, record, base_url)
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert err.startswith(f"kith: --record {record}: ") and len(err.strip().splitlines()) == 1, err
    assert out == "", "refused before the game started: no opening was printed"
    assert snapshot(place) == before, "nothing in the folder changed, and nothing was added"
    if server is not None:
        assert server.received == [], "the model was never asked"


@pytest.mark.parametrize("command", ["play", "transcript"])
@pytest.mark.parametrize("existing", ["an earlier recording", "an empty file", "a new file in the saves folder"])
def test_a_recording_replaces_an_earlier_one_or_an_empty_file(
        place: Path, existing: str, command: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    record = place / ("saves" if existing.endswith("saves folder") else "elsewhere") / "session.jsonl"
    if existing == "an earlier recording":
        record.write_text(f'{{"format": "{FORMAT}", "version": 1}}\n{{"n": 1, "old": true}}\n')
    elif existing == "an empty file":
        record.write_text("")
    with ChatServer() as server:
        server.push(*[Text("The lamp gutters. Edda looks up.")] * 6)
        code = kith(place, monkeypatch, command, "g", record, server.base_url)
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = record.read_text().splitlines()
    assert '"format": "kith-llm-recording"' in lines[0] and '"old": true' not in record.read_text()
    assert any('"step": "narrate"' in line for line in lines[1:])
    assert "Kith" in out or "Edda" in out


def test_the_recorder_itself_never_truncates_a_file_that_is_not_a_recording(place: Path) -> None:
    """The file may appear between the command's check and the first exchange (a game creating its save
    at that path): the recorder looks at what is there through the file it opens before truncating it."""
    transport = OpenAITransport(llm_settings(DEAD), {})
    for path in (place / "elsewhere" / "game.db", place / "elsewhere" / "notes.txt", place / "saves" / "g.sqlite"):
        before = path.read_bytes()
        with pytest.raises(InputError, match=r"--record .*: (it exists|that is a save)"):
            RecordingTransport(transport, path)
        assert path.read_bytes() == before
    conn = sqlite3.connect(place / "elsewhere" / "made-meanwhile")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(InputError, match="SQLite database"):
        RecordingTransport(transport, place / "elsewhere" / "made-meanwhile")
    asyncio.run(transport.aclose())


def test_the_documented_refusal_is_what_kith_says(games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """docs/llm.md, "Record and replay": the console example, run as written in a folder holding saves/g."""
    import re
    import shlex

    doc = (Path(__file__).resolve().parent.parent / "docs" / "llm.md").read_text(encoding="utf-8")
    block = re.search(r"```console\n\$ (kith play [^\n]*--record saves/g\.sqlite)\n(kith: [^\n]*)\n```", doc)
    assert block is not None, "the example is in docs/llm.md"
    shutil.copytree(games, tmp_path / "saves")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("look\n"))
    before = snapshot(tmp_path)
    capsys.readouterr()
    code = main(["--saves-dir", "saves", "--content-dir", str(FIXTURES), *shlex.split(block.group(1))[1:]])
    assert (code, capsys.readouterr().err) == (2, block.group(2) + "\n")
    assert snapshot(tmp_path) == before
