"""The deeds feature as the registry sees it: tables, state, the turn step, script checks, commands."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from game.features.deeds.attitudes import covered, heard, remembered, witnessed
from game.features.deeds.commands import why_lines
from game.features.deeds.gossip import deed_gossip
from game.features.deeds.model import DEEDS, KNOWERS, DeedBook
from game.features.deeds.provider import DeedsProvider
from game.features.deeds.record import turn_deeds
from game.features.deeds.schema import MIGRATIONS
from game.features.feature import CheckParser, Feature, Handler, Rows, StepResult, TurnFacts
from game.features.gossip import GossipSettings, tuned
from game.graph.index import GraphIndex
from game.store.rows import RowWrite
from game.store.schema import Migration

if TYPE_CHECKING:
    from game.config import Settings


class DeedsFeature(Feature):
    """Every act recorded as a deed, known by those who saw it and, by gossip, those who were told."""

    name: ClassVar[str] = "deeds"
    tables: ClassVar[tuple[str, ...]] = (DEEDS, KNOWERS)
    migrations: ClassVar[tuple[Migration, ...]] = MIGRATIONS
    script_checks: ClassVar[tuple[str, ...]] = ("deed",)
    graph_commands: ClassVar[tuple[str, ...]] = ("deeds",)

    def load(self, rows: Rows) -> DeedBook:
        return DeedBook.from_rows(rows.get(DEEDS, ()), rows.get(KNOWERS, ()))

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> DeedBook:
        book = state if isinstance(state, DeedBook) else DeedBook()
        if not any(row.table in self.tables for row in rows):
            return book  # a turn that recorded no deed and passed none on: nothing to copy
        return book.updated(rows)

    def tuning(self, settings: Settings | None, *, imported: bool = False) -> GossipSettings:
        return tuned(settings, imported=imported)  # deeds travel by the same [gossip] rules as relations

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        deeds, seen = await turn_deeds(facts)
        book = facts.state if isinstance(facts.state, DeedBook) else DeedBook()
        # Only deeds known before this turn travel (who saw this turn's deeds is exactly who knows them
        # now), but this turn's are in the book: an apology just said goes with the harm it answers.
        rules = facts.tuning if isinstance(facts.tuning, GossipSettings) else GossipSettings()
        now = book.updated([*(d.row() for d in deeds), *(k.row() for k in seen)]) if deeds else book
        told = deed_gossip(now, facts.graph, facts.places, facts.turn, rules, facts.seed)
        return StepResult(tuple([*(d.row() for d in deeds), *(k.row() for k in [*seen, *told])]),
                          tuple([*witnessed(deeds, facts.graph, facts.writes), *heard(now, facts.graph, told)]),
                          tuple(covered(book, facts.graph, facts.writes, deeds, [*seen, *told])),
                          memories=tuple(remembered(now, facts.graph, told)))

    provides_context: ClassVar[bool] = True

    def context_provider(self, state: Any) -> DeedsProvider:
        return DeedsProvider(state if isinstance(state, DeedBook) else DeedBook())

    explains: ClassVar[bool] = True

    def explain(self, state: Any, node_id: str, graph: GraphIndex) -> list[str]:
        book = state if isinstance(state, DeedBook) else DeedBook()
        return why_lines(book, node_id, graph)

    def check_parser(self, tag: str) -> CheckParser:
        from game.features.deeds.checks import parse_deed_check

        return parse_deed_check

    def add_graph_commands(self, actions: argparse._SubParsersAction[argparse.ArgumentParser],
                           handler: Callable[[str, str], Handler]) -> None:
        from game.features.deeds.commands import add_deeds_parser

        add_deeds_parser(actions, handler)
