"""The app's keys for telling the last turn again and steering a model: retry (Ctrl+R), continue (Ctrl+G),
Left/Right on an empty line (tellings), edit the turn (F7), Memory and Author's note (F6), and the status
line's token figures. Each key sends the same command a player could type (``retry``, ``/swipe <``...),
so the screen and a headless script go through the one engine path (``game.features.tellings``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.widgets import Static

from game.ui.status_line import token_summary

if TYPE_CHECKING:
    from game.engine.events import TurnReplaced
    from game.ui.host import Host


def retry(app: Host) -> None:
    if app.needs_game():
        app.submit("retry")


def continue_turn(app: Host) -> None:
    if app.needs_game():
        app.submit("continue")


def flip(app: Host, step: int) -> None:
    """Left or Right on an empty line: the last turn's previous or next telling (the ``/swipe`` command)."""
    session = app.session
    if session is None or session.turn == 0 or app.turn_running:
        return  # nothing to flip, or a turn is being told: the key does nothing rather than nag
    app.submit("/swipe >" if step > 0 else "/swipe <")


def edit_notes(app: Host) -> None:
    """F6: the Memory and Author's note in a screen; saved as the ``/memory`` and ``/note`` commands."""
    session = app.needs_game()
    if session is None:
        return
    from game.ui.screens.notes import NotesScreen

    memory, note = session.notes.get("memory", ""), session.notes.get("note", "")

    def saved(edited: tuple[str, str] | None) -> None:
        if edited is not None:
            changed = [(name, text.strip()) for name, text, before in
                       (("memory", edited[0], memory), ("note", edited[1], note)) if text.strip() != before.strip()]
            _send(app, [f"/{name} {text or 'clear'}" for name, text in changed])

    app.push_screen(NotesScreen(memory, note), saved)


def edit_turn(app: Host) -> None:
    """F7: the last turn's input and narration in a screen; saved as ``/edit-input`` and ``/edit``."""
    session = app.needs_game()
    if session is None:
        return
    if session.turn == 0 or not session.history:
        app.notify("There is no turn to edit yet.", severity="warning")
        return
    from game.ui.screens.edit_turn import EditTurnScreen

    last = session.history[-1]

    def saved(edited: tuple[str, str] | None) -> None:
        if edited is None:
            return
        commands = []
        if edited[0].strip() and edited[0].strip() != last.player_input.strip():
            commands.append(f"/edit-input {edited[0].strip()}")
        if edited[1].strip() and edited[1].strip() != last.narration.strip():
            commands.append(f"/edit {edited[1].strip()}")
        _send(app, commands)

    app.push_screen(EditTurnScreen(last.number, last.player_input, last.narration), saved)


def _send(app: Host, commands: list[str]) -> None:
    if commands:
        app.run_worker(submit_all(app, commands), group="telling", exclusive=True, exit_on_error=False)


async def submit_all(app: Host, commands: list[str]) -> None:
    """Send ``commands`` one after another, each once the one before it is done."""
    for command in commands:
        if not app.submit(command) or app.turn_worker is None:
            return
        try:
            await app.turn_worker.wait()
        except Exception:  # the failure was shown by the turn itself; the rest is not sent
            return


async def show_replaced(app: Host, event: TurnReplaced, command_line: Widget, told: list[Widget]) -> None:
    """The last turn told another way: its old text leaves the screen, the kept telling takes its place."""
    log = app.log_view
    await log.take_back(event.turn - 1)
    await log.discard(told)
    if isinstance(command_line, Static) and event.player_input:
        command_line.update(f"> {event.player_input}")
    # A telling's lines of graph changes arrived while it was told, before the turn was put in place: the story
    # goes above them, as in a turn told once.
    await log.add_story(event.narration, before=log.first_change_after(command_line))
    if event.count > 1:
        await log.add_meta(f"Telling {event.index + 1} of {event.count} · ←/→ on an empty line flip")
    log.belongs_to(event.turn, command_line)


async def show_kept(app: Host, command_line: Widget, told: list[Widget]) -> None:
    """Esc reached a retelling (retry, continue, an edit) after it was stored: its ``TurnReplaced`` never
    came, and the screen holds only what streamed (a continuation's addition). Show the turn whole, as the
    save keeps it, in place of its old telling and of that partial text."""
    from game.errors import KithError

    session = app.session
    try:
        kept = await session.kept_telling() if session is not None else None
    except KithError as error:  # a damaged save: said, and the old telling at least leaves
        await app.log_view.add_failure(error.message)
        kept = None
    if kept is None:
        await app.log_view.take_back(session.turn - 1 if session is not None else 0)
        return
    await show_replaced(app, kept, command_line, told)


async def show_tokens(app: Host) -> None:
    """The last turn's token figures on the status line (nothing offline)."""
    session = app.session
    if session is None:
        app.status.tokens = ""
        return
    app.status.tokens = token_summary(await session.turn_usage(), session.settings.llm.context_size)
