"""The memories feature as the registry sees it: its book, its last step of a told turn, its commands.

The book (``book.MemoryBook``: tables ``npc_memories`` and ``npc_said``) is the feature's state, read
whole when a game opens and moved by each committed turn's rows like any feature's; the story reads it
through the narration request (``NarrationRequest.memories``) and the other features through
``TurnFacts.said``. Its work runs after the attitudes (``remembers``), where the memory step always
stood: what was heard this turn (the deeds feature's ``StepResult.memories``) and what the attitudes
already stand for (``covered``) are known by then. ``/npc NAME`` shows a book's page (``render``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from game.features.feature import (
    CommandReach,
    Feature,
    Handler,
    MetaHandler,
    Remembering,
    Rows,
    StepResult,
    TurnFacts,
)
from game.features.memories.book import MEMORY_TABLE, SAID_TABLE, MemoryBook, MemorySettings
from game.features.memories.consolidate import SummarizingNarrator
from game.features.memories.provider import MemoryProvider
from game.features.memories.render import render_memories
from game.features.memories.rules import memory_rows
from game.features.memories.schema import MIGRATIONS
from game.mind.sections import ContextProvider
from game.store.rows import RowWrite
from game.store.schema import Migration

if TYPE_CHECKING:
    from game.config import Settings

class MemoriesFeature(Feature):
    """NPCs' memories of the player: formed, strengthened, bounded and consolidated after each told turn."""

    name: ClassVar[str] = "memories"
    tables: ClassVar[tuple[str, ...]] = (MEMORY_TABLE, SAID_TABLE)
    migrations: ClassVar[tuple[Migration, ...]] = MIGRATIONS
    graph_commands: ClassVar[tuple[str, ...]] = ("memories",)
    meta_commands: ClassVar[Mapping[str, str]] = {"npc": "`/npc NAME` what NAME remembers of you."}
    remembers: ClassVar[bool] = True
    provides_context: ClassVar[bool] = True
    mind_section: ClassVar[bool] = True

    def load(self, rows: Rows) -> MemoryBook:
        return MemoryBook.from_rows(rows.get(MEMORY_TABLE, ()), rows.get(SAID_TABLE, ()))

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> MemoryBook:
        book = state if isinstance(state, MemoryBook) else MemoryBook()
        book.apply(rows)  # in place, as the book always followed the store: a copy a turn costs every memory
        return book

    def tuning(self, settings: Settings | None, *, imported: bool = False) -> MemorySettings | None:
        return None if settings is None else MemorySettings(capacity=settings.memory.capacity)

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        return StepResult()  # memories form after the attitudes (``remember``), not among the features' steps

    async def remember(self, facts: Remembering) -> list[RowWrite]:
        narrator = facts.narrator
        summarizer = narrator.memory_summarizer if isinstance(narrator, SummarizingNarrator) else None
        book = _book(facts.state)
        if isinstance(facts.tuning, MemorySettings):  # the player's capacity bounds what is formed now
            book = replace(book, settings=facts.tuning)
        return await memory_rows(book, facts.graph, facts.writes, facts.world_ir, facts.turn, summarizer,
                                 facts.heard, facts.covered)

    def context_provider(self, state: Any) -> ContextProvider:
        book = _book(state)
        return MemoryProvider(lambda: book)

    def meta_handler(self, word: str) -> MetaHandler:
        return _npc

    def add_graph_commands(self, actions: argparse._SubParsersAction[argparse.ArgumentParser],
                           handler: Callable[[str, str], Handler]) -> None:
        from game.features.memories.commands import add_memories_parser

        add_memories_parser(actions, handler)


async def _npc(reach: CommandReach, argument: str) -> str:
    """``/npc NAME``: NAME's memories of the player, newest and strongest first (``render``)."""
    if not argument:
        return "Type `/npc NAME` to see what someone remembers of you."
    node = await reach.person(argument)
    book = _book(reach.state)
    return render_memories(node.name, book.ranked(node.id, reach.turn), reach.turn, book.settings)


def _book(state: Any) -> MemoryBook:
    return state if isinstance(state, MemoryBook) else MemoryBook()
