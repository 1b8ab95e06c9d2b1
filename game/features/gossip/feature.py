"""The knowledge-and-gossip feature as the registry sees it: its log, its turn step, its commands.

Who knows each relation version is the graph's own (``game.graph.knowledge``: the knower rows beside
every version, read by scoped retrieval and written by every upsert); this feature is how that knowledge
*moves* between turns: people who meet pass on one fact each (``rules.gossip_turn``), and its step hands
the knower rows that made to the turn's graph writes (``StepResult.knowings``) and its exchanges to the
log (``gossip_log``); its command ``/knowledge`` shows and teaches what someone knows. Registered first, so the features after it (deeds) and the attitudes see the word
that travelled this turn.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from game.features.feature import Feature, Handler, MetaHandler, Rows, StepResult, TurnFacts
from game.features.gossip import knowledge_command
from game.features.gossip.confession import confessions
from game.features.gossip.log import WordLog, exchange_row, from_rows, updated
from game.features.gossip.provider import KnowledgeProvider
from game.features.gossip.rules import GossipSettings, gossip_turn
from game.features.gossip.schema import MIGRATIONS
from game.features.gossip.why import heard_lines
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.retrieve import ScopedRetrieval
from game.store.rows import RowWrite
from game.store.schema import Migration
from game.store.told_log import TABLE

if TYPE_CHECKING:
    from game.config import Settings


def gossip_settings(settings: Settings) -> GossipSettings:
    """How word travels, from ``kith.toml``'s ``[gossip]`` table (the game and ``kith graph gossip`` alike)."""
    g = settings.gossip
    return GossipSettings(exchanges_per_turn=g.exchanges_per_turn, pair_cooldown=g.pair_cooldown, decay=g.decay,
                          floor=g.floor)


def tuned(settings: Settings | None, *, imported: bool) -> GossipSettings:
    """The rules a turn passes word by: none in an imported story (its people did only what its text says)."""
    if imported:
        return GossipSettings(exchanges_per_turn=0)
    return GossipSettings() if settings is None else gossip_settings(settings)


class GossipFeature(Feature):
    """Word passing between people who meet, and the log of who told whom."""

    name: ClassVar[str] = "gossip"
    tables: ClassVar[tuple[str, ...]] = (TABLE,)
    migrations: ClassVar[tuple[Migration, ...]] = MIGRATIONS
    graph_commands: ClassVar[tuple[str, ...]] = ("knows", "gossip")
    meta_commands: ClassVar[Mapping[str, str]] = knowledge_command.HELP
    changes_graph: ClassVar[bool] = True

    def load(self, rows: Rows) -> WordLog:
        return from_rows(rows.get(TABLE, ()))

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> WordLog:
        return updated(_log(state), rows)

    def tuning(self, settings: Settings | None, *, imported: bool = False) -> GossipSettings:
        return tuned(settings, imported=imported)

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        settings = facts.tuning if isinstance(facts.tuning, GossipSettings) else GossipSettings()
        # Word travels after what happened is known: ``facts.writes`` holds the turn's own, and nothing
        # learned this turn is passed on before the next.
        result = gossip_turn(facts.graph, facts.writes, facts.turn, facts.places, settings, facts.seed,
                             _log(facts.state).talked, confessions(facts.said, facts.graph, facts.places))
        return StepResult(tuple(exchange_row(t) for t in result.told), knowings=result.knowings)

    reads_retrieval: ClassVar[bool] = True

    def retrieval_provider(self, state: Any, scoped: ScopedRetrieval, knowers: Sequence[Node]) -> KnowledgeProvider:
        return KnowledgeProvider(scoped, knowers)

    explains: ClassVar[bool] = True

    def explain(self, state: Any, node_id: str, graph: GraphIndex) -> list[str]:
        node = graph.nodes.get(node_id)
        return heard_lines(_log(state), node_id, graph, node.name if node is not None else node_id)

    def meta_handler(self, word: str) -> MetaHandler:
        return knowledge_command.handler(word)

    def add_graph_commands(self, actions: argparse._SubParsersAction[argparse.ArgumentParser],
                           handler: Callable[[str, str], Handler]) -> None:
        from game.features.gossip.commands import add_gossip_parser, add_knows_parser

        add_knows_parser(actions, handler)
        add_gossip_parser(actions, handler)


def _log(state: Any) -> WordLog:
    return state if isinstance(state, WordLog) else WordLog()
