"""Retry, continue, edit, ``/swipe`` and Story mode: the last turn told another way, the graph kept true.

Every way of changing the last turn tells it again through the one pipeline (``TurnPipeline.tell``)
from the game as it stood before that turn, and stores the result as a new telling
(``tellings_store``): the turn is undone and the new telling written in its place in ONE transaction. So
the graph holds exactly the kept telling's extraction; the others never reach it.

- ``retry``: told afresh with the next seed (a model samples again; the offline story picks other
  variants). Tellings are kept; ``/swipe`` flips between them.
- ``continue``: the narrator writes on from where it stopped; the turn is re-extracted as a whole.
- ``edit`` / ``edit_input``: the player's text replaces the narration (or their input) and the turn
  is re-extracted from it.
- ``undo`` takes back an edit or a continuation first (back to the telling it came from), then whole
  turns; a retry or a flip (``/swipe``) is not a step of its own (undo takes the whole turn back).
- Story mode (``story``) is a new turn whose narration is the player's text, as written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

from game.engine import kept_turns, tellings_store
from game.engine.events import Event, MetaOutput, NarrationDone, TurnCommitted, TurnReplaced
from game.engine.play_state import PlayState
from game.engine.telling import Telling
from game.engine.tellings_store import KeptTelling
from game.engine.turn import ENDED_REPLY, TurnPipeline
from game.engine.turn_commit import FinishedTurn
from game.errors import KithError, SaveError
from game.graph.index import GraphSource
from game.store import undo
from game.store.before_turn import BeforeTurnSource
from game.store.damage import reading
from game.store.database import SaveDatabase
from game.store.rows import RowWrite
from game.text import strip_control

STORY = kept_turns.STORY
"""The kind of a turn the player wrote in Story mode: edited, never told again."""
NO_TURN = "There is no turn to {what} yet: the story has only begun."
OLD_TURN = ("Turn {turn} was told before this save kept its tellings and changed what cannot be told "
            "again (a merge, or a row deleted since); this works from the next turn on.")
MAX_EDIT_CHARS = 8000
EMPTY_NARRATION = "Type the text after the command: it replaces the last narration."
EMPTY_STORY = "Type `/story TEXT`: the words are added to the story as you write them."
EMPTY_INPUT = "Type `/edit-input TEXT`: what you meant to type, in place of the last turn's input."
"""The longest narration an edit may set (a model's own narration is cut at the same length)."""


def telling_of(finished: FinishedTurn, index: int, kind: str, parent: int | None = None) -> KeptTelling:
    """A finished turn as its telling ``index`` (kept)."""
    return KeptTelling(finished.record.number, index, kind, parent, True, finished.record, finished.writes,
                       finished.result.scene.model_dump(mode="json"), finished.told, finished.rows,
                       dict(finished.report.usage))


def first_row(finished: FinishedTurn) -> RowWrite:
    """The ``swipes`` row every committed turn leaves: its first telling, kept."""
    first = telling_of(finished, 0, "story" if finished.mode == "story" else "told")
    return first.row(first)


class _Rollback(Exception):
    """Ends a transaction that only looked at the game before its last turn."""


class ReadState(Protocol):
    """How the session reads the whole game from its save (``GameSession.read_state``)."""

    async def __call__(self, *, lazy: bool = True, source: GraphSource | None = None) -> PlayState: ...


class Tellings:
    """The last turn's tellings in one session (``GameSession.tellings``)."""

    def __init__(self, db: SaveDatabase, pipeline: TurnPipeline, reload: Callable[[], Awaitable[None]],
                 read_state: ReadState) -> None:
        self._db = db
        self._pipeline = pipeline
        self._reload = reload
        self._read_state = read_state
        # The player's own words (the notes): kept as they are now across a swap, never replayed.
        self._carried = tuple(table for feature in pipeline.registry.across_tellings() for table in feature.tables)

    @property
    def turn(self) -> int:
        return self._pipeline.state.turn

    # ------------------------------------------------------------------------------------- telling again

    def retry(self) -> AsyncIterator[Event]:
        def how(tellings: list[KeptTelling], kept: KeptTelling) -> Telling:
            if kept.kind == STORY:
                raise KithError(f"Turn {kept.turn} is your own writing (Story mode): no narrator told it, so "
                                "none can tell it again. `/edit TEXT` changes it.", title="Retry")
            return Telling(seed_shift=len(tellings))

        return self._retell("retry", None, how)

    def continue_turn(self) -> AsyncIterator[Event]:
        def how(tellings: list[KeptTelling], kept: KeptTelling) -> Telling:
            if len(kept.record.narration) >= MAX_EDIT_CHARS:
                # Every prompt that reads the turn (World IR, the history window) must stay bounded.
                raise KithError(f"Turn {kept.turn} is as long as a turn may be ({MAX_EDIT_CHARS} characters); "
                                "play on with a new turn.", title="Continue")
            return Telling(seed_shift=len(tellings), continue_from=kept.record.narration)

        return self._retell("continue", None, how)

    def edit(self, narration: str) -> AsyncIterator[Event]:
        text = narration.strip()
        return self._retell("edit", None, lambda tellings, kept: Telling(given=edit_text(text),
                                                                     story=kept.kind == STORY))

    def edit_input(self, player_input: str) -> AsyncIterator[Event]:
        # The new input is bounded and made terminal-safe as an edited narration is: it is shown, kept and
        # read into every later prompt. Nothing left after that is no input at all (``_retell`` says so).
        try:
            text = edit_text(player_input, EMPTY_INPUT)
        except KithError as error:
            if error.message == EMPTY_INPUT:
                text = ""
            else:
                return _said(error.message, "edit-input")

        def how(tellings: list[KeptTelling], kept: KeptTelling) -> Telling:
            if kept.kind == STORY:  # the player's words are the turn: the input is the narration
                return Telling(given=edit_text(text, EMPTY_INPUT), story=True)
            return Telling(given=kept.record.narration)

        return self._retell("edit-input", text, how)

    async def _retell(self, kind: str, new_input: str | None,
                      telling: Callable[[list[KeptTelling], KeptTelling], Telling]) -> AsyncIterator[Event]:
        turn = self.turn
        what = {"retry": "retry", "continue": "continue", "edit": "edit", "edit-input": "edit"}[kind]
        if turn == 0:
            yield MetaOutput(NO_TURN.format(what=what), kind)
            return
        tellings = await tellings_store.tellings_of(self._db, turn)
        if not tellings:  # told before tellings were kept: the turn as it stands is its first telling
            first = await tellings_store.told_from_rows(self._db, turn, self._carried)
            tellings = [first] if first is not None else []
        kept = next((a for a in tellings if a.kept), None)
        refused = kept_turns.refusal([kept] if kept is not None else [])
        if refused is not None:  # told again, "yes" would be a story line and the merge undone
            yield MetaOutput(refused, kind)
            return
        if kept is None:
            yield MetaOutput(OLD_TURN.format(turn=turn), kind)
            return
        if len(tellings) >= tellings_store.MAX_TELLINGS:
            yield MetaOutput(f"Turn {turn} has {len(tellings)} tellings already, the most kept; flip between them "
                             "with `/swipe`, or `undo` the turn and play it again.", kind)
            return
        try:
            how = telling(tellings, kept)
        except KithError as error:
            yield MetaOutput(error.message, kind)
            return
        if kind == "edit-input" and not (new_input or "").strip():
            yield MetaOutput(EMPTY_INPUT, kind)
            return
        index = max(a.index for a in tellings) + 1
        parent = kept.index if kind in ("continue", "edit", "edit-input") else None
        store = _Replacing(self._db, tellings, index, STORY if how.story else kind, parent, self._carried)
        state, before = await self._state_before(turn)
        said = (new_input or kept.record.input) if not how.story else (how.given or "")
        try:
            async for event in self._pipeline.beside(state, store).tell(said, how):
                if store.committed:
                    before.settle()  # the save holds the graph before the turn and this telling now
                if isinstance(event, TurnCommitted):
                    # The telling's own state (the game before the turn, then this telling applied, as the
                    # pipeline keeps memory after a commit) is what the save now holds: no re-read needed.
                    self._pipeline.state = state
                    yield event
                    count = len(tellings) + 1
                    yield TurnReplaced(turn, store.narration, count - 1, count, store.player_input)
                else:
                    yield event
        finally:
            if store.committed:
                before.settle()
                # Cancelled once the new telling was stored: the pipeline applied it to ``state`` before
                # the cancellation reached here, so memory still follows the save.
                self._pipeline.state = state

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
                if await db.scene_at(turn - 1) is None:
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

    async def kept(self) -> TurnReplaced | None:
        """The last turn as the save keeps it (which telling, of how many), or None before any turn or for a
        turn told before tellings were kept. For a front end whose retelling was stored but whose
        ``TurnReplaced`` never reached it (Esc pressed while the store finished)."""
        turn = self.turn
        if turn == 0:
            return None
        tellings = await tellings_store.tellings_of(self._db, turn)
        at = next((i for i, a in enumerate(tellings) if a.kept), None)
        if at is None:
            return None
        return TurnReplaced(turn, tellings[at].record.narration, at, len(tellings), tellings[at].record.input)

    # ------------------------------------------------------------------------------------- flipping

    async def swipe(self, where: str) -> AsyncIterator[Event]:
        """Keep another telling of the last turn: ``<``/``prev``, ``>``/``next``, or its number (from 1)."""
        turn = self.turn
        if turn == 0:
            yield MetaOutput(NO_TURN.format(what="flip"), "swipe")
            return
        tellings = await tellings_store.tellings_of(self._db, turn)
        refused = kept_turns.refusal(tellings)
        if refused is not None:  # a stored telling cannot replay an answer's merge, nor undo it
            yield MetaOutput(refused, "swipe")
            return
        at = next((i for i, a in enumerate(tellings) if a.kept), None)
        if at is None or len(tellings) < 2:
            yield MetaOutput(f"Turn {turn} has one telling only. Type `retry` to have it told again.", "swipe")
            return
        target = _target(where.strip().lower(), at, len(tellings))
        if target is None:
            yield MetaOutput(f"Type `/swipe <` or `/swipe >`, or `/swipe N` for N from 1 to {len(tellings)}.", "swipe")
            return
        if target == at:
            yield MetaOutput(f"Telling {at + 1} of {len(tellings)} is the one kept already.", "swipe")
            return
        every = [dataclasses.replace(a, kept=i == target) for i, a in enumerate(tellings)]
        await tellings_store.keep(self._db, turn, every[target], every, carried=self._carried)
        await self._reload()
        chosen = every[target]
        yield NarrationDone(chosen.record.narration)
        yield TurnReplaced(turn, chosen.record.narration, target, len(tellings), chosen.record.input)

    # ------------------------------------------------------------------------------------- undo

    async def undo_step(self) -> tuple[str, TurnReplaced | None] | None:
        """Take back the newest change made within the current turn (a note, an edit, a continuation):
        what it was and, when the turn's telling changed, the telling now kept. None: there was none."""
        turn = self.turn
        with reading(self._db.name):
            step = await tellings_store.last_step(self._db.conn, turn)
        if step is None:
            return None
        seq, kind, data = step
        owner = self._pipeline.registry.undo_owner(kind)
        if owner is not None:  # a change a feature's command made (a note): the feature says how to take it back
            try:
                what, rows = owner.undo_change(kind, data)
            except ValueError as error:
                raise SaveError(f"{self._db.name} holds an undo step it cannot read ({error}); the save is damaged") \
                    from error
            await tellings_store.drop_step(self._db, seq, rows)
            await self._reload()
            return what, None
        tellings = await tellings_store.tellings_of(self._db, turn)
        # An edit's or a continuation's step, by its word now or in an older save; any other is dropped.
        telling_step = kind in (tellings_store.TELLING_STEP, *tellings_store.OLD_TELLING_STEPS)
        back = next((a for a in tellings if a.index == data.get("back_to")), None) if telling_step else None
        if back is None:  # the telling it went back to is gone, or no one knows the step: nothing to restore
            await tellings_store.drop_step(self._db, seq, [])
            return await self.undo_step()
        every = [dataclasses.replace(a, kept=a.index == back.index) for a in tellings if a.index != data.get("drop")]
        await tellings_store.keep(self._db, turn, back, every, drop_seq=seq, carried=self._carried)
        await self._reload()
        position = [a.index for a in every].index(back.index)
        what = "the continuation" if data.get("kind") == "continue" else "the edit"
        return what, TurnReplaced(turn, back.record.narration, position, len(every), back.record.input)

    # ------------------------------------------------------------------------------------- Story mode

    async def story(self, text: str) -> AsyncIterator[Event]:
        """Story mode: ``text`` joins the story as written, a turn of its own that no narrator tells."""
        try:
            written = edit_text(text, EMPTY_STORY)  # control characters alone are no text either
        except KithError as error:
            yield MetaOutput(error.message, "story")
            return
        if self._pipeline.state.scene.ending:
            yield MetaOutput(ENDED_REPLY, "story")
            return
        async for event in self._pipeline.tell(written, Telling(given=written, story=True)):
            yield event


async def _said(text: str, kind: str) -> AsyncIterator[Event]:
    yield MetaOutput(text, kind)


def edit_text(text: str, empty: str = EMPTY_NARRATION) -> str:
    """An edited narration or input as it is kept (terminal-safe, trimmed); refused empty or over the limit."""
    kept = strip_control(text).strip()
    if not kept:
        raise KithError(empty, title="Edit")
    if len(kept) > MAX_EDIT_CHARS:
        raise KithError(f"That is {len(kept)} characters; a turn holds at most {MAX_EDIT_CHARS}. Nothing was "
                        "changed.", title="Edit")
    return kept


def _target(where: str, at: int, count: int) -> int | None:
    if where in ("<", "prev", "previous", "left", ""):
        return (at - 1) % count if where else None
    if where in (">", "next", "right"):
        return (at + 1) % count
    if where.isdigit() and 1 <= int(where) <= count:
        return int(where) - 1
    return None


class _Replacing:
    """The store of a turn told again: the new telling replaces the turn, every telling kept."""

    folds_people = False

    def __init__(self, db: SaveDatabase, tellings: list[KeptTelling], index: int, kind: str, parent: int | None,
                 carried: tuple[str, ...]) -> None:
        self._db = db
        self._carried = carried
        self._tellings = tellings
        self._index = index
        self._kind = kind
        self._parent = parent
        self.narration = ""
        self.player_input = ""
        self.committed = False

    async def commit(self, turn: FinishedTurn) -> None:
        new = telling_of(turn, self._index, self._kind, self._parent)
        every = [dataclasses.replace(a, kept=False) for a in self._tellings] + [new]
        also: list[RowWrite] = []
        if self._parent is not None:
            # An edit or a continuation is a step undo takes back on its own: to the telling it came from.
            with reading(self._db.name):
                seq = await tellings_store.next_seq(self._db.conn)
            also.append(tellings_store.step_row(seq, new.turn, tellings_store.TELLING_STEP,
                                              {"back_to": self._parent, "drop": new.index, "kind": self._kind}))
        await tellings_store.keep(self._db, new.turn, new, every, also, carried=self._carried)
        self.committed = True
        self.narration = turn.record.narration
        self.player_input = turn.record.input
