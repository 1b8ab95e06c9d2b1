"""One reply, one tone, when a model tells the turn (issue 23: Orla smiled "What can the Guild do for you?"
and then "does not smile"). Brinefall played by the real session with the real openai client against
tests/chat_server.py: a threat the model states as a deed turns Hob cold, and the story says so with one
cold line beside the model's cold words; next turn the model is told Hob's tier and to give a cold person
no warm greeting, and the reply it writes is the whole reply (nothing warmer is added to it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Text
from llm_helpers import ir, llm_settings, relation

from game.config import Settings
from game.engine.events import AttitudeChanged, Event, NarrationDone, TurnCommitted
from game.engine.session import GameSession
from game.narrator.llm.narrator import OpenAINarrator
from game.world import load_world

CONTENT = Path(__file__).resolve().parent.parent / "content"
HOB, WREN = "Hob Tarrant", "Wren Tallis"
THREAT = "You tell Hob you'll sink his ferry."
TOLD = THREAT + " Hob's hands go still on the rope, and he says nothing at all."
COLD = "Hob keeps his eyes on the rope and does not answer you."


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


async def _play(session: GameSession, text: str) -> list[Event]:
    return [event async for event in session.play_turn(text)]


def _told(events: list[Event]) -> str:
    """The reply as the player reads it: the model's prose and the lines the story added to it."""
    return "\n\n".join([*(e.text for e in events if isinstance(e, NarrationDone)),
                         *(e.line for e in events if isinstance(e, AttitudeChanged) and e.line)])


async def test_a_cold_turn_told_by_a_model_carries_one_tone(tmp_path: Path, server: ChatServer) -> None:
    settings = Settings(world="brinefall", content_dir=CONTENT, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, extraction="world-ir"))
    world = load_world(CONTENT, "brinefall")
    session = await GameSession.open(settings, save="game", new=True, world="brinefall",
                                     narrator=OpenAINarrator(settings.llm, world, env={}))
    try:
        deed = {"actor": WREN, "act": "threaten", "target": HOB, "evidence": THREAT}
        distrust = relation(HOB, WREN, "DISTRUSTS", -0.6, THREAT)
        server.push(Text(TOLD), Text(json.dumps(ir(charactersPresent=[WREN, HOB], deeds=[deed], relations=[distrust],
                                                     nextCast=[HOB]))))
        events = await _play(session, "threaten hob")
        assert any(isinstance(e, TurnCommitted) for e in events)
        changed = [e for e in events if isinstance(e, AttitudeChanged)]
        assert [(e.name, e.after) for e in changed] == [(HOB, "UNFRIENDLY")]
        told = _told(events)
        # The story's one line for the fall, and nothing warm beside it (no greeting, no "warmer").
        assert told == f"{TOLD}\n\n{changed[0].line}" and "not look at you" in told
        assert "warm" not in told.lower() and "smile" not in told.lower()

        server.push(Text(COLD), Text(json.dumps(ir(charactersPresent=[WREN, HOB], nextCast=[HOB]))))
        events = await _play(session, "talk to hob")
        prompt = server.received[-2].text()
        assert "tier: UNFRIENDLY" in prompt  # the model is told how Hob stands now
        assert "no warm greeting or smile" in prompt  # and what that means for one reply's tone
        assert not [e for e in events if isinstance(e, AttitudeChanged) and e.line]  # no change said of anyone here
        assert _told(events) == COLD  # the model's cold words are the whole reply: no warm line added
    finally:
        await session.close()
