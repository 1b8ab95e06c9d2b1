"""The meta commands of retry, continue, edit, swipes, Story mode and the notes (``game.engine.tellings``).

Each is a few lines over ``CommandContext.tellings`` or the session's notes; the work lives there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from game.engine import notes
from game.engine.events import Event, MetaOutput, NarrationDone

if TYPE_CHECKING:
    from game.engine.command_context import CommandContext

CLEAR_WORDS = frozenset({"clear", "none", "off"})


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


async def memory(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    async for event in _note(session, notes.MEMORY, argument):
        yield event


async def note(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    async for event in _note(session, notes.NOTE, argument):
        yield event


async def _note(session: CommandContext, name: str, argument: str) -> AsyncIterator[Event]:
    """Show (no argument), clear (``clear``) or set a note; the change is undoable."""
    label = notes.LABELS[name]
    word = f"/{name}"
    if not argument:
        text = session.notes.get(name, "")
        yield MetaOutput(f"**{label}:** {text}" if text else
                         f"The {label} is empty. Type `{word} TEXT` to set it, `{word} clear` to empty it.", name)
        return
    text = "" if argument.lower() in CLEAR_WORDS else argument
    before, now = await session.set_note(name, text)
    if before == now:
        yield MetaOutput(f"The {label} is already {'that' if now else 'empty'}; nothing changed.", name)
        return
    yield MetaOutput(f"**{label}** set: {now}" if now else f"The {label} is cleared.", name)


async def undo_step(session: CommandContext) -> AsyncIterator[Event] | None:
    """``undo`` right after an edit, a continuation or a note change takes that back first; None when the
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
    "story": story, "memory": memory, "note": note,
}
