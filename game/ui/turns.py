"""``Turns``: one line at a time, from the input to the session and back to the screen.

It owns the turn worker: each line runs in one async worker (group ``turn``, exclusive,
``exit_on_error=False``), so typing never waits for the model, the database or the map layout, Esc cancels
the worker (and the engine then writes nothing of the turn), and an error becomes a message instead of the
end of the game. A line is read once (``game.engine.meta.read_line``): the screen routes on what it is and
hands it to the session as read. Each engine event is posted to the app as a Textual message, in order
(``game.ui.story_events`` and its handlers show it); once all are shown, what they asked for (the turn's
place in the log, the map, a question, leaving) is done here.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from typing import TYPE_CHECKING, cast

from game.ui.host import RECOVER_HINT
from game.ui.story_events import LineShown, all_shown, message_for

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Callable

    from textual.worker import Worker

    from game.engine.events import ConfirmRequested, Event
    from game.engine.meta import PlayerLine
    from game.ui.host import Host


class Turns:
    """The line being told, if any, and how its end is shown."""

    def __init__(self, app: Host, travel: Callable[[int | None], None]) -> None:
        self._app = app
        self._travel = travel
        """The map shown at a turn (None: now): a map showing a turn that was taken back comes back to now."""
        self.shown = LineShown()
        """What the line being told (or the last one) has put on screen, and what its events asked for."""
        self.worker: Worker[None] | None = None

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def submit(self, line: str | PlayerLine) -> bool:
        """Start a turn (or meta command) unless one is running; False when it was not started."""
        app = self._app
        if app.session is None:
            app.notify("No game is open. " + RECOVER_HINT, title="No game", severity="warning")
            return False
        if not self.idle():
            return False
        from game.engine.meta import PlayerLine, read_line  # loaded with the first line, not the first frame

        read = line if isinstance(line, PlayerLine) else read_line(line)
        self.worker = cast("Worker[None]", app.run_worker(self._run(read), name="run_turn", group="turn",
                                                          exclusive=True, exit_on_error=False))
        app.refresh_bindings()
        return True

    def idle(self) -> bool:
        """Whether no turn is being told; when one is, the player is told to wait or cancel."""
        if self.running:
            self._app.notify("A turn is still being told. Wait for it, or press Esc to cancel it.",
                             title="One moment", severity="warning")
            return False
        return True

    async def _run(self, line: PlayerLine) -> None:
        app = self._app
        session = app.session
        if session is None:
            return
        log = app.log_view
        shown = self.shown = LineShown()
        before = session.turn
        last_told = session.history[-1] if session.history else None
        command_line = await log.add_command(line.text)
        from game.ui import telling

        if line.command is None:
            app.status.activity = "telling the turn"
        try:
            events = cast("AsyncGenerator[Event, None]", session.play_turn(line))
            async with aclosing(events):
                async for event in events:
                    message = message_for(event, shown)
                    if message is not None:
                        app.post_message(message)
            await all_shown(app)
        except asyncio.CancelledError:
            await all_shown(app)  # what was posted is on screen before the line is judged
            await shown.end_stream()
            # A retold turn (retry, continue, an edit) stored before Esc reached it keeps its number.
            retold = session.turn == before and bool(session.history) and session.history[-1] != last_told
            saved = session.turn != before or retold
            if retold:  # the turn as the save keeps it, in place of its earlier telling
                await telling.show_kept(app, command_line, shown.told)
            if not saved:
                await log.discard(shown.told)
            await log.add_cancelled("Stopped after the turn was saved." if saved
                                    else "Cancelled: nothing of that turn was saved.")
            app.status.activity = ""
            if saved:
                log.belongs_to(session.turn, command_line)
                app.show_status()
                await app.refresh_map()
            raise
        except Exception as error:
            await all_shown(app)
            await shown.end_stream()
            if session.turn == before:
                await log.discard(shown.told)
            from game.ui.errors import describe

            await log.add_failure(describe(error).message)
            app.report(error)
            shown.outcome.failed = True
        finally:
            app.status.activity = ""
        await shown.end_stream()
        outcome = shown.outcome
        if outcome.failed:
            command = app.command
            if not command.value:
                command.value = line.text  # so the player can try again with Enter
                command.cursor_position = len(line.text)
        if session is app.session and outcome.replaced is not None:
            await telling.show_replaced(app, outcome.replaced, command_line, shown.told)
        elif session is app.session and session.turn > before and not outcome.reset:
            log.belongs_to(session.turn, command_line)
        if session is app.session and outcome.reset:
            if outcome.reset == "undo":
                await log.take_back(session.turn)
            else:
                log.forget_turns()
        if session is app.session and (session.turn != before or outcome.reset or outcome.replaced):
            app.show_status()
            await telling.show_tokens(app)
            at_turn = app.map_pane.map.at_turn
            if at_turn is not None and at_turn > session.turn:
                self._travel(None)
            try:
                await app.refresh_map()
            except Exception as error:
                app.report(error)
        if outcome.quit:
            self.confirm_quit()
        elif outcome.confirm is not None:
            self._confirm_command(outcome.confirm)

    def confirm_quit(self) -> None:
        session = self._app.session
        where = f" Your game is saved as {session.save_name} at turn {session.turn}." if session else ""

        def chosen(yes: bool | None) -> None:
            if yes:
                self._app.exit(0)

        from game.ui.screens.confirm import ConfirmScreen

        self._app.push_screen(ConfirmScreen(f"Leave Kith?{where}", "Leave"), chosen)

    def _confirm_command(self, asked: ConfirmRequested) -> None:
        """A command that asks first (``restore``): Yes plays it again, which the session takes as the answer."""
        def chosen(yes: bool | None) -> None:
            if yes:
                self.submit(asked.command)
            elif self._app.session is not None:
                from game.engine.meta_commands import withdraw_question

                withdraw_question(self._app.session)

        from game.ui.screens.confirm import ConfirmScreen

        self._app.push_screen(ConfirmScreen(asked.question, asked.yes, danger=True), chosen)
