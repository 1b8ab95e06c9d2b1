"""The shortest command list that still shows something: delta debugging (Zeller's ddmin) by replay.

Each try is a fresh game, so the budget of tries bounds the time; what is returned always shows the
property (the list it started from does, and only lists that were replayed and showed it replace it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Shows = Callable[[list[str]], Awaitable[bool]]
MAX_TRIES = 60
IDLE = ("look", "inventory", "wait", "exits", "think", "listen", "smell", "examine ")
"""Commands that rarely change the story: all of them are tried away at once, first (one try, often many fewer)."""


async def shrink(commands: list[str], shows: Shows, max_tries: int = MAX_TRIES) -> list[str]:
    """A sublist of ``commands`` (in order) for which ``shows`` holds, as short as the budget allows."""
    current = list(commands)
    tries = 0
    busy = [command for command in current if not command.startswith(IDLE)]
    if busy and len(busy) < len(current):
        tries += 1
        if await shows(busy):
            current = busy
    chunks = 2
    while len(current) > 1 and tries < max_tries:
        size = max(1, len(current) // chunks)
        shrunk = False
        for start in range(0, len(current), size):
            if tries >= max_tries:
                break
            candidate = current[:start] + current[start + size:]
            tries += 1
            if candidate and await shows(candidate):
                current = candidate
                chunks = max(chunks - 1, 2)
                shrunk = True
                break
        if not shrunk:
            if size == 1:
                break
            chunks = min(len(current), chunks * 2)
    return current
