"""The engine's side of telling a turn again: the reach a retelling feature's commands get (``RetellReach``).

The feature (``Feature.retells``) decides what is told and how it is stored; this keeps the turn loop: the
game as it stood before the last turn (read inside a transaction that is then rolled back), the one
pipeline over it, and a store that hands the finished turn to the feature inside the commit. What the
feature streams is turned into the engine's events here (``shown``), so the feature imports none of them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Protocol

from game.engine.events import Event, MetaOutput, NarrationDone, TurnCommitted, TurnReplaced
from game.engine.play_state import PlayState, is_command
from game.engine.turn import ENDED_REPLY, TurnPipeline
from game.engine.turn_commit import FinishedTurn
from game.errors import SaveError
from game.features.retelling import Keep, Replaced, Telling, ToldTurn
from game.graph.index import GraphSource
from game.store import turn_log, undo, undo_steps
from game.store.before_turn import BeforeTurnSource
from game.store.damage import reading
from game.store.database import SaveDatabase
from game.store.rows import RowWrite


def told_turn(finished: FinishedTurn) -> ToldTurn:
    """A finished turn as a retelling feature keeps it (``ToldTurn``)."""
    return ToldTurn(finished.record, finished.writes, finished.result.scene.model_dump(mode="json"), finished.told,
                    finished.rows, dict(finished.report.usage), finished.mode == "story")


def replaced(change: Replaced) -> TurnReplaced:
    return TurnReplaced(change.turn, change.narration, change.index, change.count, change.player_input)


async def shown(item: object, word: str) -> AsyncIterator[Event]:
    """The events of one thing a retelling feature's command streamed (see ``game.features.retelling``)."""
    if isinstance(item, str):
        yield MetaOutput(item, word)
    elif isinstance(item, Replaced):
        if item.narrated:
            yield NarrationDone(item.narration)
        yield replaced(item)
    elif isinstance(item, Event):
        yield item
    else:
        raise TypeError(f"the command /{word} showed {type(item).__name__}, which is no event")


class _Rollback(Exception):
    """Ends a transaction that only looked at the game before its last turn."""


class ReadState(Protocol):
    """How the game is read whole from its save (``GameCommands.read_state``)."""

    async def __call__(self, *, lazy: bool = True, source: GraphSource | None = None) -> PlayState: ...


class GameRetelling:
    """Implements ``game.features.retelling.RetellReach`` over one open game."""

    def __init__(self, db: SaveDatabase, pipeline: TurnPipeline, reload: Callable[[], Awaitable[None]],
                 read_state: ReadState) -> None:
        self._db = db
        self._pipeline = pipeline
        self._reload = reload
        self._read_state = read_state
        # The player's own words (the notes): kept as they are now across a swap, never replayed.
        self.carried = tuple(table for feature in pipeline.registry.across_tellings() for table in feature.tables)

    @property
    def turn(self) -> int:
        return self._pipeline.state.turn

    @property
    def db(self) -> SaveDatabase:
        return self._db

    @property
    def last_narration(self) -> str:
        history = self._pipeline.state.history
        return history[-1].narration if history else ""

    @property
    def ended(self) -> str:
        return ENDED_REPLY if self._pipeline.state.scene.ending else ""

    def is_command(self, text: str) -> bool:
        return is_command(text)

    def answered_in(self, rows: Sequence[RowWrite], turn: int) -> str | None:
        return self._pipeline.registry.answered_in(rows, turn)

    async def reload(self) -> None:
        await self._reload()

    def tell(self, said: str, how: Telling) -> AsyncIterator[object]:
        return self._pipeline.tell(said, how)

    async def retell(self, said: str, how: Telling, keep: Keep) -> AsyncIterator[object]:
        store = _Replacing(keep)
        state, before = await self._state_before(self.turn)
        try:
            async for event in self._pipeline.beside(state, store).tell(said, how):
                if store.committed:
                    before.settle()  # the save holds the graph before the turn and this telling now
                if isinstance(event, TurnCommitted):
                    # The telling's own state (the game before the turn, then this telling applied, as the
                    # pipeline keeps memory after a commit) is what the save now holds: no re-read needed.
                    self._pipeline.state = state
                    yield event
                    if store.now is not None:
                        yield store.now
                else:
                    yield event
        finally:
            if store.committed:
                before.settle()
                # Cancelled once the new telling was stored: the pipeline applied it to ``state`` before
                # the cancellation reached here, so memory still follows the save.
                self._pipeline.state = state

    async def undo_step(self) -> tuple[str, Replaced | None] | None:
        """Take back the newest change made within the current turn (a note, an edit, a continuation): what it
        was and, when the turn's telling changed, the telling now kept. None: there was none. The feature
        whose undo kind the step is says how; a step nobody knows is dropped and the one before it taken."""
        db, registry = self._db, self._pipeline.registry
        while True:
            with reading(db.name):
                step = await undo_steps.last_step(db.conn, self.turn)
            if step is None:
                return None
            seq, kind, data = step
            owner = registry.undo_owner(kind)
            if owner is not None and owner.retells:
                undone = await owner.undo_retelling(self, seq, kind, data)
                if undone is not None:
                    return undone
                continue
            rows: list[RowWrite] = []
            what = ""
            if owner is not None:  # a change a feature's command made (a note): the feature says how to take it back
                try:
                    what, back = owner.undo_change(kind, data)
                except ValueError as error:
                    raise SaveError(f"{db.name} holds an undo step it cannot read ({error}); the save is damaged") \
                        from error
                rows = list(back)
            await undo_steps.drop_step(db, seq, rows)
            if owner is not None:
                await self._reload()
                return what, None

    async def _state_before(self, turn: int) -> tuple[PlayState, BeforeTurnSource]:
        """The game as it stood before ``turn``, read inside a transaction that is then rolled back, and
        the source its graph reads lazily through (to ``settle`` once a telling replaces the turn)."""
        db = self._db
        current = self._pipeline.state
        found: list[tuple[PlayState, BeforeTurnSource]] = []
        try:
            async with db.transaction() as conn:
                # The graph is read lazily, later, through the save's own connection, which sees the
                # turn committed: this source takes back what the turn changed (its journal) over it.
                before = await db.graph_before_turn(turn)
                await undo.undo_turn(conn, turn)
                if await turn_log.scene_at(db, turn - 1) is None:
                    raise SaveError(f"{db.name} has no scene for turn {turn - 1}; the save is damaged")
                # Everything else the turn started from (minds, questions, scene), read inside this transaction.
                state = await self._read_state(source=before)
                for feature in self._pipeline.registry.across_tellings():  # the notes as the player has them now
                    state.features[feature.name] = current.features.get(feature.name)
                found.append((state, before))
                raise _Rollback
        except _Rollback:
            pass
        return found[0]


class _Replacing:
    """The store of a turn told again: the feature's ``keep`` puts the new telling in place of the turn."""

    folds_people = False

    def __init__(self, keep: Keep) -> None:
        self._keep = keep
        self.now: TurnReplaced | None = None
        self.committed = False

    async def commit(self, turn: FinishedTurn) -> None:
        change = await self._keep(told_turn(turn))
        self.committed = True
        self.now = replaced(change)

