"""The meta commands of retry, continue, edit, ``/swipe`` and Story mode (``game.engine.tellings``).

Each is a few lines over ``CommandContext.tellings``; the work lives there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from game.engine.events import Event, MetaOutput, NarrationDone

if TYPE_CHECKING:
    from game.engine.command_context import CommandContext

async def retry(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    async for event in session.tellings.retry():
        yield event


async def continue_turn(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    async for event in session.tellings.continue_turn():
        yield event


async def swipe(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    async for event in session.tellings.swipe(argument):
        yield event


async def edit(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    if not argument:
        narration = session.history[-1].narration if session.history and session.turn else ""
        yield MetaOutput("Type `/edit TEXT` to replace the last narration with TEXT."
                         + (f" It reads now:\n\n{narration}" if narration else ""), "edit")
        return
    async for event in session.tellings.edit(argument):
        yield event


async def edit_input(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    async for event in session.tellings.edit_input(argument):
        yield event


async def story(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    async for event in session.tellings.story(argument):
        yield event


async def undo_step(session: CommandContext) -> AsyncIterator[Event] | None:
    """``undo`` right after an edit, a continuation or a feature's change (a note) takes that back first; None when the
    last change was the turn itself."""
    undone = await session.tellings.undo_step()
    if undone is None:
        return None
    what, replaced = undone

    async def events() -> AsyncIterator[Event]:
        yield MetaOutput(f"Undone {what}. You are still at turn {session.turn}.", "undo")
        if replaced is not None:
            yield NarrationDone(replaced.narration)
            yield replaced

    return events()


HANDLERS = {
    "retry": retry, "continue": continue_turn, "swipe": swipe, "edit": edit, "edit-input": edit_input,
    "story": story,
}
