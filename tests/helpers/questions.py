"""Reading a game's questions of identity back, as the save holds them (answered ones too)."""

from __future__ import annotations

from game.engine.session import GameSession
from game.features.identity.questions import PENDING_TABLE, PendingIdentity, from_rows


async def questions_of(session: GameSession, *, open_only: bool = True) -> list[PendingIdentity]:
    """The session's questions of identity, oldest first: the open ones unless ``open_only`` is False."""
    return from_rows(await session.feature_rows(PENDING_TABLE), open_only=open_only)
