"""The one name-resolution rule (``resolve_name``) as the game's meta commands apply it in a real session.

Upsert, the CLI, map focus and script checks have their own tests beside their other behaviour; this
module holds the session's side, where ``/why`` and ``/graph`` resolve what the player typed.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from game.config import load_settings
from game.engine.events import MetaOutput
from game.engine.session import GameSession
from game.graph.upsert import UpsertExecution

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


@pytest.fixture
async def session(tmp_path: Path) -> AsyncIterator[GameSession]:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})
    opened = await GameSession.open(settings, save="game", new=True, world="tiny")
    yield opened
    await opened.close()


async def meta(session: GameSession, text: str) -> str:
    return "\n".join(e.text for e in [event async for event in session.play_turn(text)] if isinstance(e, MetaOutput))


async def test_why_reports_a_shared_alias_instead_of_guessing(session: GameSession) -> None:
    await meta(session, "ask edda about tobin")  # the player hears of Tobin: /graph may name him now
    # Tobin and Sam both answer to "the lampman" (as a model's upserts could make them).
    execution = UpsertExecution(session.graph, session.vocabulary, 0, rng=random.Random(1))
    outcome = await execution.run({"nodes": [{"name": "Tobin Hale", "aliases": ["the lampman"]},
                                             {"name": "Sam Reed", "aliases": ["the lampman"]}]})
    assert outcome.error is None
    session.graph.apply(execution.writes)
    for command in ("/why the lampman", "/graph the lampman"):
        text = await meta(session, command)
        assert "'the lampman' could mean Sam Reed (npc-sam-reed), Tobin Hale (npc-tobin-hale)" in text, text
    # A name still beats an alias, and an unknown name is still "nobody".
    assert "What the narrator is told about Edda Marsh" in await meta(session, "/why edda")
    assert "Nobody called 'Zanzibar'" in await meta(session, "/why Zanzibar")
