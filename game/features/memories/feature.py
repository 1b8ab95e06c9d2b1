"""The memories feature as the registry sees it: its last step of a told turn and its command.

The book itself (``game.mind.memory``: ``MemoryBook``, its tables ``npc_memories`` and ``npc_said``) stays
in the mind, beside the game as ``PlayState.memories``: the story reads it to choose what a character
says, and a merge of two people (``game.features.identity.minds``) folds their memories, both beneath this
package. So the feature holds no state of its own (``load`` and ``apply`` give None) and declares no
tables (the save's book is read by ``store.load_memory_book`` when a game opens). Its work runs after the
attitudes (``remembers``), where the engine's memory step always stood: what was heard this turn
(the deeds feature's ``StepResult.memories``) and what the attitudes already stand for (``covered``) are
known by then.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from game.features.feature import Feature, Handler, Remembering, Rows, StepResult, TurnFacts
from game.features.memories.consolidate import SummarizingNarrator
from game.features.memories.rules import memory_rows
from game.store.rows import RowWrite


class MemoriesFeature(Feature):
    """NPCs' memories of the player: formed, strengthened, bounded and consolidated after each told turn."""

    name: ClassVar[str] = "memories"
    graph_commands: ClassVar[tuple[str, ...]] = ("memories",)
    remembers: ClassVar[bool] = True

    def load(self, rows: Rows) -> None:
        return None  # the book is PlayState.memories (see the module's docstring)

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> None:
        return None

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        return StepResult()  # memories form after the attitudes (``remember``), not among the features' steps

    async def remember(self, facts: Remembering) -> list[RowWrite]:
        narrator = facts.narrator
        summarizer = narrator.memory_summarizer if isinstance(narrator, SummarizingNarrator) else None
        return await memory_rows(facts.book, facts.graph, facts.writes, facts.world_ir, facts.turn, summarizer,
                                 facts.heard, facts.covered)

    def add_graph_commands(self, actions: argparse._SubParsersAction[argparse.ArgumentParser],
                           handler: Callable[[str, str], Handler]) -> None:
        from game.features.memories.commands import add_memories_parser

        add_memories_parser(actions, handler)
