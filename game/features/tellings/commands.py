"""Retry, continue, edit, ``/swipe`` and Story mode: the last turn told another way, the graph kept true.

Every way of changing the last turn tells it again through the engine's one pipeline (``RetellReach.retell``)
from the game as it stood before that turn, and stores the result as a new telling (``store``): the turn
is undone and the new telling written in its place in ONE transaction. So the graph holds exactly the
kept telling's extraction; the others never reach it.

- ``retry``: told afresh with the next seed (a model samples again; the offline story picks other
  variants). Tellings are kept; ``/swipe`` flips between them.
- ``continue``: the narrator writes on from where it stopped; the turn is re-extracted as a whole.
- ``/edit`` / ``/edit-input``: the player's text replaces the narration (or their input) and the turn
  is re-extracted from it.
- ``undo`` takes back an edit or a continuation first (back to the telling it came from), then whole
  turns; a retry or a flip (``/swipe``) is not a step of its own (undo takes the whole turn back).
- Story mode (``/story``) is a new turn whose narration is the player's text, as written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

from game.errors import KithError
from game.features.retelling import Keep, Replaced, RetellHandler, RetellReach, Telling, ToldTurn
from game.features.tellings import store
from game.features.tellings.rules import (
    EMPTY_INPUT,
    EMPTY_STORY,
    MAX_EDIT_CHARS,
    NO_TURN,
    OLD_TURN,
    STORY,
    edit_text,
    refusal,
    target,
)
from game.features.tellings.store import KeptTelling
from game.store import undo_steps
from game.store.damage import reading
from game.store.rows import RowWrite

How = Callable[[list[KeptTelling], KeptTelling], Telling]
"""How a command tells the last turn again, given its tellings and the kept one (a ``KithError``: refused)."""
UNDO_KIND = store.TELLING_STEP
"""The undo step an edit or a continuation leaves (``{"back_to": ..., "drop": ..., "kind": ...}``)."""


def retry(reach: RetellReach, argument: str) -> AsyncIterator[object]:
    def how(tellings: list[KeptTelling], kept: KeptTelling) -> Telling:
        if kept.kind == STORY:
            raise KithError(f"Turn {kept.turn} is your own writing (Story mode): no narrator told it, so "
                            "none can tell it again. `/edit TEXT` changes it.", title="Retry")
        return Telling(seed_shift=len(tellings))

    return _retell(reach, "retry", None, how)


def continue_turn(reach: RetellReach, argument: str) -> AsyncIterator[object]:
    def how(tellings: list[KeptTelling], kept: KeptTelling) -> Telling:
        if len(kept.record.narration) >= MAX_EDIT_CHARS:
            # Every prompt that reads the turn (World IR, the history window) must stay bounded.
            raise KithError(f"Turn {kept.turn} is as long as a turn may be ({MAX_EDIT_CHARS} characters); "
                            "play on with a new turn.", title="Continue")
        return Telling(seed_shift=len(tellings), continue_from=kept.record.narration)

    return _retell(reach, "continue", None, how)


async def edit(reach: RetellReach, argument: str) -> AsyncIterator[object]:
    if not argument:
        narration = reach.last_narration if reach.turn else ""
        yield ("Type `/edit TEXT` to replace the last narration with TEXT."
               + (f" It reads now:\n\n{narration}" if narration else ""))
        return
    text = argument.strip()
    async for shown in _retell(reach, "edit", None, lambda tellings, kept: Telling(given=edit_text(text),
                                                                                 story=kept.kind == STORY)):
        yield shown


async def edit_input(reach: RetellReach, argument: str) -> AsyncIterator[object]:
    # The new input is bounded and made terminal-safe as an edited narration is: it is shown, kept and
    # read into every later prompt. Nothing left after that is no input at all (``_retell`` says so).
    try:
        text = edit_text(argument, EMPTY_INPUT)
    except KithError as error:
        if error.message != EMPTY_INPUT:
            yield error.message
            return
        text = ""

    def how(tellings: list[KeptTelling], kept: KeptTelling) -> Telling:
        if kept.kind == STORY:  # the player's words are the turn: the input is the narration
            return Telling(given=edit_text(text, EMPTY_INPUT), story=True)
        return Telling(given=kept.record.narration)

    async for shown in _retell(reach, "edit-input", text, how):
        yield shown


async def story(reach: RetellReach, argument: str) -> AsyncIterator[object]:
    """Story mode: the words join the story as written, a turn of its own that no narrator tells."""
    written = edit_text(argument, EMPTY_STORY)  # control characters alone are no text either
    if reach.ended:
        yield reach.ended
        return
    async for shown in reach.tell(written, Telling(given=written, story=True)):
        yield shown


async def _retell(reach: RetellReach, kind: str, new_input: str | None, telling: How) -> AsyncIterator[object]:
    turn = reach.turn
    if turn == 0:
        yield NO_TURN.format(what="edit" if kind == "edit-input" else kind)
        return
    tellings = await store.tellings_of(reach.db, turn)
    if not tellings:  # told before tellings were kept: the turn as it stands is its first telling
        first = await store.told_from_rows(reach.db, turn, reach.carried)
        tellings = [first] if first is not None else []
    kept = next((a for a in tellings if a.kept), None)
    refused = refusal([kept] if kept is not None else [], reach)
    if refused is not None:  # told again, "yes" would be a story line and the merge undone
        yield refused
        return
    if kept is None:
        yield OLD_TURN.format(turn=turn)
        return
    if len(tellings) >= store.MAX_TELLINGS:
        yield (f"Turn {turn} has {len(tellings)} tellings already, the most kept; flip between them "
               "with `/swipe`, or `undo` the turn and play it again.")
        return
    how = telling(tellings, kept)  # a KithError here is the command's reply, the game unchanged
    if kind == "edit-input" and not (new_input or "").strip():
        yield EMPTY_INPUT
        return
    index = max(a.index for a in tellings) + 1
    parent = kept.index if kind in ("continue", "edit", "edit-input") else None
    said = (new_input or kept.record.input) if not how.story else (how.given or "")
    async for shown in reach.retell(said, how, _replacing(reach, tellings, index, STORY if how.story else kind,
                                                          parent)):
        yield shown


def _replacing(reach: RetellReach, tellings: list[KeptTelling], index: int, kind: str, parent: int | None) -> Keep:
    """How a turn told again is stored: the new telling replaces the turn, every telling kept."""

    async def keep(told: ToldTurn) -> Replaced:
        new = store.telling_of(told, index, kind, parent)
        every = [dataclasses.replace(a, kept=False) for a in tellings] + [new]
        also: list[RowWrite] = []
        if parent is not None:
            # An edit or a continuation is a step undo takes back on its own: to the telling it came from.
            with reading(reach.db.name):
                seq = await undo_steps.next_seq(reach.db.conn)
            also.append(undo_steps.step_row(seq, new.turn, UNDO_KIND, {"back_to": parent, "drop": new.index,
                                                                       "kind": kind}))
        await store.keep(reach.db, new.turn, new, every, also, carried=reach.carried)
        return Replaced(new.turn, told.record.narration, len(every) - 1, len(every), told.record.input)

    return keep


async def swipe(reach: RetellReach, argument: str) -> AsyncIterator[object]:
    """Keep another telling of the last turn: ``<``/``prev``, ``>``/``next``, or its number (from 1)."""
    turn = reach.turn
    if turn == 0:
        yield NO_TURN.format(what="flip")
        return
    tellings = await store.tellings_of(reach.db, turn)
    refused = refusal(tellings, reach)
    if refused is not None:  # a stored telling cannot replay an answer's merge, nor undo it
        yield refused
        return
    at = next((i for i, a in enumerate(tellings) if a.kept), None)
    if at is None or len(tellings) < 2:
        yield f"Turn {turn} has one telling only. Type `retry` to have it told again."
        return
    chosen_at = target(argument.strip().lower(), at, len(tellings))
    if chosen_at is None:
        yield f"Type `/swipe <` or `/swipe >`, or `/swipe N` for N from 1 to {len(tellings)}."
        return
    if chosen_at == at:
        yield f"Telling {at + 1} of {len(tellings)} is the one kept already."
        return
    every = [dataclasses.replace(a, kept=i == chosen_at) for i, a in enumerate(tellings)]
    await store.keep(reach.db, turn, every[chosen_at], every, carried=reach.carried)
    await reach.reload()
    chosen = every[chosen_at]
    yield Replaced(turn, chosen.record.narration, chosen_at, len(tellings), chosen.record.input, narrated=True)


async def undo_telling(reach: RetellReach, seq: int, data: dict[str, Any]) -> tuple[str, Replaced] | None:
    """Take back an edit or a continuation (the undo step ``seq``): the telling it came from kept again.
    None when that telling is gone: the step is dropped, with nothing to restore."""
    turn = reach.turn
    tellings = await store.tellings_of(reach.db, turn)
    back = next((a for a in tellings if a.index == data.get("back_to")), None)
    if back is None:
        await undo_steps.drop_step(reach.db, seq, [])
        return None
    every = [dataclasses.replace(a, kept=a.index == back.index) for a in tellings if a.index != data.get("drop")]
    await store.keep(reach.db, turn, back, every, drop_seq=seq, carried=reach.carried)
    await reach.reload()
    position = [a.index for a in every].index(back.index)
    what = "the continuation" if data.get("kind") == "continue" else "the edit"
    return what, Replaced(turn, back.record.narration, position, len(every), back.record.input, narrated=True)


async def kept(reach: RetellReach) -> Replaced | None:
    """The last turn as the save keeps it (which telling, of how many), or None before any turn or for a
    turn told before tellings were kept."""
    turn = reach.turn
    if turn == 0:
        return None
    tellings = await store.tellings_of(reach.db, turn)
    at = next((i for i, a in enumerate(tellings) if a.kept), None)
    if at is None:
        return None
    return Replaced(turn, tellings[at].record.narration, at, len(tellings), tellings[at].record.input)


HANDLERS: dict[str, RetellHandler] = {
    "retry": retry, "continue": continue_turn, "swipe": swipe, "edit": edit, "edit-input": edit_input,
    "story": story,
}
HELP = ("**Telling.** `retry` tells the last turn again (every telling is kept: `/swipe <` and `/swipe >`, or ←/→ "
        "on an empty input line, flip between them), `continue` has the narrator write on, `/edit TEXT` replaces "
        "the last narration and `/edit-input TEXT` your last input (`undo` takes an edit or a continuation back "
        "first), `/story TEXT` adds your own words to the story as written.")
"""The feature's section of ``help``, one line (as the core's sections are)."""
