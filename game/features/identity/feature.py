"""Conservative identity as the registry sees it: its questions, its turn step, its answers, its merges.

Judging a new name is the graph's own (``game.graph.identity_match``, run by every upsert while the turn's
calls run: the upsert must know at once whether "the miller" is a new node), and merging two nodes' graph
rows is the store's (``merge_log.merge_graph``, the merge log). This feature is what identity does with
the game: a judgement the upsert was unsure of becomes a question (``questions``: the
``pending_identities`` table), the next told turn asks it (``provider``), the player's answer at the turn
after is a turn of its own (``answers``), and a "yes" folds the two people, minds and all (``merging``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from game.features.feature import Answered, AnswerReach, Feature, Handler, Rows, StepResult, TurnFacts
from game.features.identity.answers import ANSWERED, answered, decided, follow, read_answer, settle
from game.features.identity.merging import identity_merges
from game.features.identity.play import MergeTiers, known_after, tiers_before
from game.features.identity.provider import IdentityProvider, asked_line, next_question
from game.features.identity.questions import PENDING_TABLE, PendingIdentity, from_rows
from game.features.identity.schema import MIGRATIONS
from game.graph.index import GraphIndex
from game.mind.sections import ContextProvider
from game.store.merge_log import MergeEntry, MergeReport
from game.store.rows import RowWrite
from game.store.schema import Migration

if TYPE_CHECKING:
    import aiosqlite

    from game.features.memories.book import MemorySettings
    from game.store.database import SaveDatabase


class IdentityFeature(Feature):
    """Questions of who someone is: raised by a turn's upserts, asked by the next, answered by the player."""

    name: ClassVar[str] = "identity"
    tables: ClassVar[tuple[str, ...]] = (PENDING_TABLE,)
    migrations: ClassVar[tuple[Migration, ...]] = MIGRATIONS
    graph_commands: ClassVar[tuple[str, ...]] = ("pending", "resolve")

    def load(self, rows: Rows) -> list[PendingIdentity]:
        """The open questions, oldest first (answered ones stay in the table as the record, not the state)."""
        return from_rows(rows.get(PENDING_TABLE, ()), open_only=True)

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> list[PendingIdentity]:
        return follow(_open(state), rows)

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        # The question the context carried was asked by this turn's narration; the upserts' unsure
        # judgements are new questions, and their sure ones names assumed (logged in the merge log).
        asking = next_question(_open(facts.state), facts.graph.nodes) if asked_line(facts.context) else None
        asked = [asking.asked(facts.turn).write()] if asking is not None else []
        raised, assumed = decided(facts.execution.identities, facts.turn) if facts.execution is not None else ([], [])
        return StepResult((*asked, *raised), merges=tuple(assumed))

    asks_player: ClassVar[bool] = True

    def question_provider(self, state: Any, graph: GraphIndex) -> ContextProvider | None:
        # None when no question waits, so a turn without one is composed exactly as before.
        asking = next_question(_open(state), graph.nodes)
        return IdentityProvider(asking) if asking is not None else None

    answers_player: ClassVar[bool] = True

    def answer(self, state: Any, reach: AnswerReach) -> Answered | None:
        answer = read_answer(reach.text, _open(state), reach.graph, reach.turn)
        if answer is None:
            return None
        reply, row, merge = settle(answer, reach.turn + 1)
        merges = [merge] if merge else []
        scene = known_after(merges, reach.scene, reach.graph)
        said = MergeTiers(tiers_before(merges, reach.attitudes, reach.graph), scene.cast, reach.tier_lines)
        return Answered(reply, (row,), tuple(merges), scene, said)

    def answered_in(self, rows: Sequence[RowWrite], turn: int) -> str | None:
        question = answered(rows, turn)
        return None if question is None else ANSWERED.format(turn=turn, new=question.new_name,
                                                             candidate=question.candidate_name)

    merges_people: ClassVar[bool] = True

    async def merge_people(self, db: SaveDatabase, conn: aiosqlite.Connection, merges: Sequence[MergeEntry],
                           turn: int, settings: MemorySettings) -> list[MergeReport]:
        return await identity_merges(db, conn, merges, turn, settings)

    def add_graph_commands(self, actions: argparse._SubParsersAction[argparse.ArgumentParser],
                           handler: Callable[[str, str], Handler]) -> None:
        from game.features.identity.commands import add_pending_parsers

        add_pending_parsers(actions, handler)


def _open(state: Any) -> list[PendingIdentity]:
    return state if isinstance(state, list) else []
