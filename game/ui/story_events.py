"""``StoryEvents``: one line's engine events made into the story pane's widgets and the status line's words.

It owns what a line builds as it is told: the narration streaming in, the blocks told so far (taken back
if the turn ends without being saved) and the ``Outcome`` the events asked for (a failure, a reset, a
quit, a question, a retelling), which ``game.ui.turns`` acts on once the events are shown. It decides
nothing about the story and never reads the session: everything it shows comes in an event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.widgets.markdown import MarkdownStream

    from game.engine.events import ConfirmRequested, Event, TurnReplaced
    from game.ui.host import Host
    from game.ui.status_line import StatusLine
    from game.ui.story_log import StoryLog


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
        # The engine's events load with the first turn: the first frame does not need them.
        from game.engine.events import (
            AttitudeChanged,
            ConfirmRequested,
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

        log: StoryLog = self._app.log_view
        status: StatusLine = self._app.status
        if isinstance(event, NarrationDelta):
            if self._stream is None:
                block, self._stream = await log.start_story()
                self.told.append(block)
            await self._stream.write(event.text)
        elif isinstance(event, NarrationDone):
            if self._stream is None:
                self.told.append(await log.add_story(event.text))
            await self.end_stream()
        elif isinstance(event, MetaOutput):
            await log.add_meta(event.text)
        elif isinstance(event, GraphUpdating):
            status.activity = "updating relations"
        elif isinstance(event, GraphChanged):
            await log.add_changes([change.text for change in event.changes])
        elif isinstance(event, AttitudeChanged):
            if event.line:
                self.told.append(await log.add_story(event.line))
        elif isinstance(event, TurnCommitted):
            status.turn = event.turn
            status.activity = ""
            # Said until the next turn: this turn's memory is only what the narration plainly states.
            status.relations = "fast path" if event.extraction == "fast" else ""
        elif isinstance(event, TurnFailed):
            await self.end_stream()
            await log.discard(self.told)
            await log.add_failure(event.message)
            self._app.notify(event.message, title=event.title, severity="error", timeout=10)
            self.outcome.failed = True
        elif isinstance(event, Notice):
            if event.level != "information":
                await log.add_warning(event.text)
            self._app.notify(event.text, severity=event.level, timeout=8)
        elif isinstance(event, GameEnded):
            await log.add_ending(event.title)
            self._app.notify(f"The story has reached an ending: {event.title}.", title="The end")
        elif isinstance(event, SessionReset):
            self.outcome.reset = event.reason
        elif isinstance(event, TurnReplaced):
            self.outcome.replaced = event
        elif isinstance(event, QuitRequested):
            self.outcome.quit = True
        elif isinstance(event, ConfirmRequested):
            self.outcome.confirm = event
