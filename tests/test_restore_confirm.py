"""``restore NAME`` asks first and keeps the game it replaces (issue 21).

Before, restoring another game's snapshot replaced a 16-turn game by that game's 160 turns at once, with no
question and no copy of what was lost. Now the first ``restore NAME`` says what NAME is and what it
replaces and changes nothing; typing it again (with nothing else between) restores, after keeping the
game as it was as ``SAVE-before-restore`` (as ``restart`` keeps ``SAVE-before-restart``). In line mode and
scripts the question is a line of text; in the TUI it is a confirm modal.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
from pathlib import Path

from helpers.play import collect, play_session, text_of
from helpers.saves import SCHEMA
from helpers.ui import SIZE, make_app, offline_settings, play, screen_text, settle

from game.cli.play import LineMode
from game.config import Settings
from game.engine.events import ConfirmRequested, SessionReset
from game.engine.session import GameSession
from game.store.saves import read_save_info
from game.ui.screens.confirm import ConfirmScreen

MINE = ["help Edda", "look", "look", "look"]


async def two_games(settings: Settings) -> None:
    """``game`` at turn 4, and ``other`` (a game of the same world) with a snapshot ``theirs`` at turn 6."""
    async with await GameSession.open(settings, "game", new=True, world="tiny") as session:
        await play_session(session, MINE)
    async with await GameSession.open(settings, "other", new=True, world="tiny") as session:
        await play_session(session, ["look"] * 6 + ["save theirs"])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_restore_asks_first_and_keeps_the_game_it_replaces(tmp_path: Path) -> None:
    settings = offline_settings(tmp_path)
    await two_games(settings)
    saves = settings.saves_dir
    async with await GameSession.open(settings, "game") as session:
        asked = await collect(session, "restore theirs")
        said = text_of(asked)
        assert "theirs** is a snapshot of another game (other, turn 6)" in said
        assert "replaces the game you are playing (**game**, turn 4)" in said
        assert "kept first as **game-before-restore**" in said
        assert "Type `restore theirs` again to restore it" in said
        assert [e for e in asked if isinstance(e, ConfirmRequested)] == [ConfirmRequested(
            "restore theirs", "Restore theirs? It is a snapshot of another game (other, turn 6). The game you are "
            "playing (game, turn 4) is kept first as game-before-restore.", "Restore")]
        assert not any(isinstance(e, SessionReset) for e in asked)
        assert session.turn == 4 and not (saves / "game-before-restore.sqlite").exists(), "asking changes nothing"

        # Anything else first is a no: the next restore asks again.
        await collect(session, "help")
        assert "again to restore it" in text_of(await collect(session, "restore theirs"))
        assert session.turn == 4

        done = await collect(session, "restore theirs")
        assert session.turn == 6
        assert ("Restored **theirs**: you are back at turn 6. The game as it was is kept as **game-before-restore** "
                "(`restore game-before-restore`).") in text_of(done)
        assert any(isinstance(e, SessionReset) for e in done)
        kept = read_save_info(saves / "game-before-restore.sqlite", SCHEMA)
        assert kept.turns == 4 and kept.error is None
        assert [t.input for t in await session.turns()] == ["look"] * 6

        # The game the restore replaced comes back the same way, keeping the other in turn.
        await collect(session, "restore game-before-restore")
        back = text_of(await collect(session, "restore game-before-restore"))
        assert "kept as **game-before-restore-2**" in back
        assert session.turn == 4 and [t.input for t in await session.turns()] == MINE
        assert read_save_info(saves / "game-before-restore-2.sqlite", SCHEMA).turns == 6


async def test_a_snapshot_that_cannot_be_restored_is_refused_before_asking(tmp_path: Path) -> None:
    settings = offline_settings(tmp_path)
    await two_games(settings)
    (settings.saves_dir / "junk.sqlite").write_bytes(b"not a save" * 100)
    before = digest(settings.saves_dir / "game.sqlite")
    async with await GameSession.open(settings, "game") as session:
        said = text_of(await collect(session, "restore junk"))
        assert "not a Kith save" in said and "again" not in said
        assert "again" not in text_of(await collect(session, "restore junk"))
        assert session.turn == 4
    assert digest(settings.saves_dir / "game.sqlite") == before
    assert not (settings.saves_dir / "game-before-restore.sqlite").exists()


def test_line_mode_asks_in_words(tmp_path: Path) -> None:
    settings = offline_settings(tmp_path)
    asyncio.run(two_games(settings))
    out = io.StringIO()
    assert LineMode(settings, save="game", stdin=io.StringIO("restore theirs\nlook\nrestore theirs\nrestore theirs\n"),
                    stdout=out).run() == 0
    text = out.getvalue()
    assert text.count("Type restore theirs again to restore it, or anything else to go on playing.") == 2
    assert text.count("Restored theirs: you are back at turn 6.") == 1
    assert "kept as game-before-restore" in text
    assert read_save_info(settings.saves_dir / "game-before-restore.sqlite", SCHEMA).turns == 5  # the look played between


async def test_the_tui_asks_in_a_modal(tmp_path: Path) -> None:
    settings = offline_settings(tmp_path)
    await two_games(settings)
    app = make_app(tmp_path, settings, save="game", new=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await play(pilot, "restore theirs")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "Restore theirs? It is a snapshot of another game (other, turn 6)." in app.screen.question
        await pilot.press("escape")  # no: typing it again asks again
        await settle(pilot)
        assert app.session is not None and app.session.turn == 4
        assert not (settings.saves_dir / "game-before-restore.sqlite").exists()

        await play(pilot, "restore theirs")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#yes")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.session.turn == 6
        assert "kept as game-before-restore" in screen_text(app)
    assert read_save_info(settings.saves_dir / "game-before-restore.sqlite", SCHEMA).turns == 4


async def test_the_question_says_when_an_earlier_kept_copy_is_replaced(tmp_path: Path) -> None:
    """Restoring twice keeps the game under the same name: the question says the copy kept there before
    (the 4-turn game) is replaced, so no game goes without warning."""
    settings = offline_settings(tmp_path)
    await two_games(settings)
    async with await GameSession.open(settings, "game") as session:
        first = text_of(await collect(session, "restore theirs"))
        assert "replaces" not in first.split("kept first as")[1], "nothing is kept there yet"
        await collect(session, "restore theirs")
        assert session.turn == 6
        await play_session(session, ["look"])
        asked = await collect(session, "restore theirs")
        assert ("that game is kept first as **game-before-restore**, which replaces the copy kept there before "
                "(turn 4)") in text_of(asked)
        question = next(e for e in asked if isinstance(e, ConfirmRequested)).question
        assert question.endswith("is kept first as game-before-restore, which replaces the copy kept there "
                                 "before (turn 4).")


async def test_a_backup_name_held_by_another_game_is_refused_before_asking(tmp_path: Path) -> None:
    settings = offline_settings(tmp_path)
    await two_games(settings)
    async with await GameSession.open(settings, "game-before-restore", new=True, world="tiny") as session:
        await play_session(session, ["look"])
    before = digest(settings.saves_dir / "game-before-restore.sqlite")
    async with await GameSession.open(settings, "game") as session:
        asked = await collect(session, "restore theirs")
        said = text_of(asked)
        assert "'game-before-restore' already exists and is not a snapshot of this game" in said
        assert "Nothing was restored." in said and "again" not in said
        assert not any(isinstance(e, ConfirmRequested) for e in asked)
        assert session.turn == 4
    assert digest(settings.saves_dir / "game-before-restore.sqlite") == before
