"""Shrinking a command list by replay: what is left still shows the fault, and is as short as it can be."""

from __future__ import annotations

import asyncio

from game.explore.shrink import shrink


def needs(*wanted: str):  # type: ignore[no-untyped-def]
    """A fault shown by a list holding ``wanted`` in order (as a replayed game would show it)."""
    async def shows(commands: list[str]) -> bool:
        found = iter(commands)
        return all(any(c == w for c in found) for w in wanted)

    return shows


def test_shrinking_keeps_only_the_commands_the_fault_needs() -> None:
    commands = [f"go {i}" for i in range(30)]
    assert asyncio.run(shrink(commands, needs("go 7", "go 19"))) == ["go 7", "go 19"]


def test_idle_commands_go_first_in_one_try() -> None:
    tried: list[list[str]] = []
    inner = needs("take rope", "east")

    async def shows(commands: list[str]) -> bool:
        tried.append(commands)
        return await inner(commands)

    result = asyncio.run(shrink(["look", "take rope", "wait", "examine rope", "east"], shows))
    assert result == ["take rope", "east"]
    assert tried[0] == ["take rope", "east"]


def test_a_budget_too_small_still_returns_a_list_that_shows_it() -> None:
    commands = [f"go {i}" for i in range(40)]
    shows = needs("go 3", "go 33")
    result = asyncio.run(shrink(commands, shows, max_tries=3))
    assert asyncio.run(shows(result)) and len(result) <= len(commands)
