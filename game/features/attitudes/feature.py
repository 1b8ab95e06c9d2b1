"""The attitudes feature as the registry sees it: its table, its state, its step, its section, its command.

The state is the game's ``AttitudeBook`` (``model``: the ``attitudes`` table, one row per NPC), read
whole when a game opens and moved by each committed turn's rows. Its step (``step.after_turn``) runs
after every other feature's (``steps_last``), so it applies every change they state (``TurnFacts.attitudes``:
the deeds' today, a feature registered later's as well), and before the memories, which read what the
attitudes stand for; the tiers it moves and the upsert call that keeps the
graph in agreement with them go back to the core in its ``StepResult``. ``/relationship`` is read and
worded here (``relationship``), and is its meta command (``relationship_command``): setting one by hand
is kept as a turn of its own through the core's one commit.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from game.features.attitudes import relationship_command
from game.features.attitudes.model import TABLE, Attitude, AttitudeBook
from game.features.attitudes.provider import AttitudeProvider
from game.features.attitudes.schema import MIGRATIONS
from game.features.attitudes.step import after_turn
from game.features.feature import Feature, Handler, MetaHandler, Rows, StepResult, TurnFacts
from game.mind.sections import ContextProvider
from game.store.rows import RowWrite
from game.store.schema import Migration


class AttitudesFeature(Feature):
    """How each NPC regards the player: trust, respect, friendliness and the tier they make."""

    name: ClassVar[str] = "attitudes"
    tables: ClassVar[tuple[str, ...]] = (TABLE,)
    migrations: ClassVar[tuple[Migration, ...]] = MIGRATIONS
    graph_commands: ClassVar[tuple[str, ...]] = ("attitude",)
    steps_last: ClassVar[bool] = True
    provides_context: ClassVar[bool] = True
    mind_section: ClassVar[bool] = True
    meta_commands: ClassVar[Mapping[str, str]] = relationship_command.HELP
    changes_graph: ClassVar[bool] = True

    def load(self, rows: Rows) -> AttitudeBook:
        return AttitudeBook.from_rows(rows.get(TABLE, ()))

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> AttitudeBook:
        book = _book(state)
        recorded = [Attitude.from_row(r.row) for r in rows if r.table == TABLE and r.row is not None]
        return book.updated(recorded) if recorded else book

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        moved = after_turn(_book(facts.state), facts.graph, facts.writes, facts.world_ir, facts.turn,
                           facts.attitudes, facts.covered)
        return StepResult(rows=moved.rows, agreement=moved.agreement, tiers=moved.changes)

    def context_provider(self, state: Any) -> ContextProvider:
        return AttitudeProvider(_book(state))

    def meta_handler(self, word: str) -> MetaHandler:
        return relationship_command.handler(word)

    def add_graph_commands(self, actions: argparse._SubParsersAction[argparse.ArgumentParser],
                           handler: Callable[[str, str], Handler]) -> None:
        from game.features.attitudes.commands import add_attitude_parser

        add_attitude_parser(actions, handler)


def _book(state: Any) -> AttitudeBook:
    return state if isinstance(state, AttitudeBook) else AttitudeBook()
