"""Word in the story: news said once to your face (undo forgets it was said), and news lines checked."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from game.config import load_settings
from game.engine.events import Event, MetaOutput, NarrationDone
from game.engine.session import GameSession
from game.errors import ContentError
from game.world import load_world

CONTENT = Path(__file__).resolve().parent.parent / "content"
FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
AMBRY_HEARD = "I heard what passed between you and Pell"


async def said(session: GameSession, command: str) -> str:
    events: list[Event] = [e async for e in session.play_turn(command)]
    return "\n".join(e.text for e in events if isinstance(e, NarrationDone | MetaOutput))


@pytest.fixture
async def brinefall(tmp_path: Path) -> AsyncIterator[GameSession]:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT}, env={})
    opened = await GameSession.open(settings, save="game", new=True, world="brinefall")
    yield opened
    await opened.close()


async def test_someone_without_lines_of_their_own_says_the_worlds_once_and_undo_forgets_it(
        brinefall: GameSession) -> None:
    for command in ("n", "e", "threaten pell", "w", "w", "wait", "wait", "wait"):
        assert AMBRY_HEARD not in await said(brinefall, command)
    first = await said(brinefall, "talk to ambry")
    # Word of the deed itself, in the world's line for it (issue 23), and the relation it made not again.
    told = "Sister Ambry looks at you a long moment. \"Word is you threatened him,\" Sister Ambry says. \"Pell told me."
    assert told in first and AMBRY_HEARD not in first
    again = await said(brinefall, "talk to ambry")
    assert AMBRY_HEARD not in again and "Word is you threatened him" not in again
    await said(brinefall, "undo")
    await said(brinefall, "undo")
    assert told in await said(brinefall, "talk to ambry")
    why = await said(brinefall, "/why ambry")
    assert "- Pell Garrow told them at turn" in why and "Pell Garrow is frightened" not in why


async def test_news_that_nobody_fitting_heard_is_never_said(brinefall: GameSession) -> None:
    # Hob is the one who was threatened: nobody told him, so he has no news to react to.
    await said(brinefall, "threaten hob")
    for _ in range(3):
        assert "I heard what passed" not in await said(brinefall, "talk to hob")


@pytest.fixture
def content(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(FIXTURES, target)
    return target


def add_news(content: Path, lines: str) -> str:
    path = content / "tiny" / "characters.toml"
    text = path.read_text(encoding="utf-8")
    marker = "\n[[characters.topics]]"
    path.write_text(text.replace(marker, f"\n{lines}\n{marker}", 1), encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        load_world(content, "tiny")
    return caught.value.message


def test_a_news_line_about_nobody_or_an_unknown_relation_is_refused(content: Path) -> None:
    message = add_news(content, '[[characters.news]]\nabout = ["Sam Red"]\nrelations = ["SWORE_VENGEANCE_ON"]\ntext = "Hm."\n')
    assert "characters[0].news[0].about[0]" in message and "'Sam Red'" in message
    assert "characters[0].news[0].relations[0]" in message and "'SWORE_VENGEANCE_ON' is not in the world's vocabulary" in message


def test_a_news_line_with_a_bad_sign_names_its_field(content: Path) -> None:
    message = add_news(content, '[[characters.news]]\nsign = "minus"\ntext = "Hm."\n')
    assert "news" in message and "sign" in message


def test_news_told_by_the_one_it_is_about_names_no_teller() -> None:
    # Seen by kith explore: "Guildmistress Vance told me about you and Guildmistress Vance," Captain Merrow
    # says. When the subject told it themselves, a variant naming no teller is said instead.
    from game.story.word import _variants
    lines = ["\"{teller} told me about you and {who}.\"", "\"I heard what passed between you and {who}.\""]
    assert _variants(lines, told_by_subject=False) == lines
    assert _variants(lines, told_by_subject=True) == ["\"I heard what passed between you and {who}.\""]
    assert _variants(lines[:1], told_by_subject=True) == ["\"Someone told me about you and {who}.\""]
    assert _variants(["{name} says {teller} told her."], told_by_subject=True) == ["{name} says someone told her."]
