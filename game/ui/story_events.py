"""``StoryEvents``: one line's engine events made into the story pane's widgets and the status line's words.

It owns what a line builds as it is told: the narration streaming in, the blocks told so far (taken back
if the turn ends without being saved) and the ``Outcome`` the events asked for (a failure, a reset, a
quit, a question, a retelling), which ``game.ui.turns`` acts on once the events are shown. It decides
nothing about the story and never reads the session: everything it shows comes in an event.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.widgets.markdown import MarkdownStream

    from game.engine.events import (
        AttitudeChanged,
        ConfirmRequested,
        Event,
        GameEnded,
        GraphChanged,
        GraphUpdating,
        MetaOutput,
        NarrationDelta,
        NarrationDone,
        Notice,
        QuitRequested,
        SessionReset,
        TurnCommitted,
        TurnFailed,
        TurnReplaced,
    )
    from game.ui.host import Host


class Outcome:
    """What one line's events asked of the screen after they are shown."""

    def __init__(self) -> None:
        self.failed = False
        self.reset = ""
        """Why the session now shows another state (``SessionReset.reason``); empty when it does not."""
        self.quit = False
        self.confirm: ConfirmRequested | None = None
        """A command that asked to be confirmed: the modal asks once the turn's events are shown."""
        self.replaced: TurnReplaced | None = None
        """The last turn told another way (retry, continue, an edit, a swipe): shown in place of the old."""


class StoryEvents:
    """The events of the line being told, shown as they come."""

    def __init__(self, app: Host) -> None:
        self._app = app
        self._stream: MarkdownStream | None = None
        self.told: list[Widget] = []
        """This turn's narration blocks, taken back if the turn ends without being saved."""
        self.outcome = Outcome()
        self._table: dict[type, Callable[[Any], Awaitable[None]]] | None = None

    def begin(self) -> None:
        """A new line: nothing told yet, nothing asked."""
        self._stream = None
        self.told = []
        self.outcome = Outcome()

    async def end_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.stop()

    async def show(self, event: Event) -> None:
        """Show one event; one the screen has no use for (a new kind, say) is left to the transcript."""
        handler = self._handlers().get(type(event))
        if handler is not None:
            await handler(event)

    def _handlers(self) -> Mapping[type, Callable[[Any], Awaitable[None]]]:
        """Each kind of event and how it is shown: one table, not a ladder of ``isinstance`` tests. Built
        with the first event: the engine's events load with the first turn, not before the first frame."""
        if self._table is None:
            from game.engine import events as e

            self._table = {
                e.NarrationDelta: self._delta, e.NarrationDone: self._done, e.MetaOutput: self._meta,
                e.GraphUpdating: self._updating, e.GraphChanged: self._changed, e.AttitudeChanged: self._attitude,
                e.TurnCommitted: self._committed, e.TurnFailed: self._failed, e.Notice: self._notice,
                e.GameEnded: self._ended, e.SessionReset: self._reset, e.TurnReplaced: self._replaced,
                e.QuitRequested: self._quit, e.ConfirmRequested: self._confirm,
            }
        return self._table

    async def _delta(self, event: NarrationDelta) -> None:
        if self._stream is None:
            block, self._stream = await self._app.log_view.start_story()
            self.told.append(block)
        await self._stream.write(event.text)

    async def _done(self, event: NarrationDone) -> None:
        if self._stream is None:
            self.told.append(await self._app.log_view.add_story(event.text))
        await self.end_stream()

    async def _meta(self, event: MetaOutput) -> None:
        await self._app.log_view.add_meta(event.text)

    async def _updating(self, event: GraphUpdating) -> None:
        self._app.status.activity = "updating relations"

    async def _changed(self, event: GraphChanged) -> None:
        await self._app.log_view.add_changes([change.text for change in event.changes])

    async def _attitude(self, event: AttitudeChanged) -> None:
        if event.line:
            self.told.append(await self._app.log_view.add_story(event.line))

    async def _committed(self, event: TurnCommitted) -> None:
        status = self._app.status
        status.turn = event.turn
        status.activity = ""
        # Said until the next turn: this turn's memory is only what the narration plainly states.
        status.relations = "fast path" if event.extraction == "fast" else ""

    async def _failed(self, event: TurnFailed) -> None:
        log = self._app.log_view
        await self.end_stream()
        await log.discard(self.told)
        await log.add_failure(event.message)
        self._app.notify(event.message, title=event.title, severity="error", timeout=10)
        self.outcome.failed = True

    async def _notice(self, event: Notice) -> None:
        if event.level != "information":
            await self._app.log_view.add_warning(event.text)
        self._app.notify(event.text, severity=event.level, timeout=8)

    async def _ended(self, event: GameEnded) -> None:
        await self._app.log_view.add_ending(event.title)
        self._app.notify(f"The story has reached an ending: {event.title}.", title="The end")

    async def _reset(self, event: SessionReset) -> None:
        self.outcome.reset = event.reason

    async def _replaced(self, event: TurnReplaced) -> None:
        self.outcome.replaced = event

    async def _quit(self, event: QuitRequested) -> None:
        self.outcome.quit = True

    async def _confirm(self, event: ConfirmRequested) -> None:
        self.outcome.confirm = event
