"""Playing lines of input: a new game in memory, or one line in a real session, read as events or text.

Written once for the suite: a game in memory (``play``) for the story engine's tests, where a whole
playthrough takes well under a second, and ``collect``/``play_session`` for tests that need the save
on disk and the session's events.
"""

from __future__ import annotations

from collections.abc import Iterable

from playthrough import Playthrough

from game.engine.events import Event, MetaOutput, NarrationDone, Notice, TurnFailed
from game.engine.session import GameSession
from game.world import World


async def play(world: World, commands: Iterable[str], seed: int = 0) -> Playthrough:
    """A new game of ``world`` in memory with ``commands`` played in order; ``game.told`` holds what
    each one told. A command after the story ended is an error (``Playthrough.play`` refuses it)."""
    game = await Playthrough.start(world, seed)
    for command in commands:
        await game.play(command)
    return game


async def collect(session: GameSession, text: str) -> list[Event]:
    """Every event of one line of input played in ``session``."""
    return [event async for event in session.play_turn(text)]


async def play_session(session: GameSession, commands: Iterable[str]) -> list[list[Event]]:
    """``commands`` played in order in ``session``; the events of each."""
    return [await collect(session, command) for command in commands]


def text_of(played: Iterable[Event]) -> str:
    """What the player reads of some events: narration, replies, notices and failures, one a line."""
    parts = []
    for event in played:
        if isinstance(event, NarrationDone | MetaOutput | Notice):
            parts.append(event.text)
        elif isinstance(event, TurnFailed):
            parts.append(event.message)
    return "\n".join(parts)
