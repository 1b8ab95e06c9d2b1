"""A line's engine events on their way to the screen as Textual messages, and how the app shows each.

The turn worker (``game.ui.turns``) posts one message per engine event to the app, in the order the
engine yields them; the app's message queue handles them one at a time in that order, so narration
streams in as told and a turn is marked committed after its narration. Each kind of event has a message
class of its own, named after it, and is shown by the ``on_...`` handler Textual names after that class
(``NarrationDelta`` -> ``on_narration_delta``): the handlers are ``StoryEventHandlers``, mixed into
``KithApp``, and any widget an event concerns could be posted the same message. A kind with no message
(a new one, say) is left to the transcript.

A message carries its line's ``LineShown``: the narration streaming in, the blocks told so far (taken
back if the turn ends without being saved) and the ``Outcome`` the events asked for (a failure, a reset,
a quit, a question, a telling), which ``game.ui.turns`` acts on once ``EventsShown``, posted after the
line's last event, says every message before it was handled. Nothing here decides anything about the
story or reads the session: everything shown comes in an event.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual.message import Message

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.widgets.markdown import MarkdownStream

    from game.engine import events as e
    from game.ui.host import Host

E = TypeVar("E")


class Outcome:
    """What one line's events asked of the screen after they are shown."""

    def __init__(self) -> None:
        self.failed = False
        self.reset = ""
        """Why the session now shows another state (``SessionReset.reason``); empty when it does not."""
        self.quit = False
        self.confirm: e.ConfirmRequested | None = None
        """A command that asked to be confirmed: the modal asks once the turn's events are shown."""
        self.replaced: e.TurnReplaced | None = None
        """The last turn in another telling (retry, continue, an edit, flipping tellings): shown in place
        of the old."""


class LineShown:
    """What the events of one line have put on screen so far, and what they asked for."""

    def __init__(self) -> None:
        self.stream: MarkdownStream | None = None
        self.told: list[Widget] = []
        """This turn's narration blocks, taken back if the turn ends without being saved."""
        self.outcome = Outcome()

    async def end_stream(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            await stream.stop()


class EngineMessage(Message, Generic[E], bubble=False):
    """One engine event of one line, posted to the app to be shown."""

    def __init__(self, event: E, line: LineShown) -> None:
        super().__init__()
        self.event = event
        self.line = line


class NarrationDelta(EngineMessage["e.NarrationDelta"]):
    """A piece of the turn's prose: appended to the story block streaming in."""


class NarrationDone(EngineMessage["e.NarrationDone"]):
    """The turn's whole prose: the streamed block ends (or the prose is shown whole if nothing streamed)."""


class MetaOutput(EngineMessage["e.MetaOutput"]):
    """A meta command's output, set apart from the story."""


class GraphUpdating(EngineMessage["e.GraphUpdating"]):
    """The relations are being updated: said on the status line."""


class GraphChanged(EngineMessage["e.GraphChanged"]):
    """What the turn changed in the graph, a quiet line each."""


class AttitudeChanged(EngineMessage["e.AttitudeChanged"]):
    """Someone's attitude tier moved: what the story said of it."""


class TurnCommitted(EngineMessage["e.TurnCommitted"]):
    """The turn is saved: its number and how its relations were read, on the status line."""


class TurnFailed(EngineMessage["e.TurnFailed"]):
    """Nothing of the turn was saved: what was told of it leaves the screen, and why is said."""


class Notice(EngineMessage["e.Notice"]):
    """Something the player should know that is not story."""


class GameEnded(EngineMessage["e.GameEnded"]):
    """The story reached an ending."""


class SessionReset(EngineMessage["e.SessionReset"]):
    """The session shows another state: the screen redraws once the line's events are shown."""


class TurnReplaced(EngineMessage["e.TurnReplaced"]):
    """The last turn in another telling: put in place of the old once the line's events are shown."""


class QuitRequested(EngineMessage["e.QuitRequested"]):
    """The player asked to leave: asked to confirm once the line's events are shown."""


class ConfirmRequested(EngineMessage["e.ConfirmRequested"]):
    """A command asks first: its modal opens once the line's events are shown."""


class EventsShown(Message, bubble=False):
    """Posted after a line's last event: handled after every message posted before it."""

    def __init__(self, done: asyncio.Event) -> None:
        super().__init__()
        self.done = done


_MESSAGES: dict[str, type[EngineMessage[Any]]] = {kind.__name__: kind for kind in EngineMessage.__subclasses__()}
"""Each event kind's message, found by name: the message classes are named after the engine's events."""


def message_for(event: object, line: LineShown) -> EngineMessage[Any] | None:
    """The message that shows ``event`` as part of ``line``; None for a kind the screen has no use for."""
    kind = _MESSAGES.get(type(event).__name__)
    return None if kind is None else kind(event, line)


async def all_shown(app: Host) -> None:
    """Wait until every message posted to ``app`` so far is handled (nothing to wait for once it closes)."""
    done = asyncio.Event()
    if app.post_message(EventsShown(done)):
        await done.wait()


class StoryEventHandlers:
    """The app's handlers of the engine's messages (mixed into ``KithApp``, a ``Host``)."""

    def on_events_shown(self, message: EventsShown) -> None:
        message.done.set()

    async def on_narration_delta(self: Host, message: NarrationDelta) -> None:
        line = message.line
        if line.stream is None:
            block, line.stream = await self.log_view.start_story()
            line.told.append(block)
        await line.stream.write(message.event.text)

    async def on_narration_done(self: Host, message: NarrationDone) -> None:
        line = message.line
        if line.stream is None:
            line.told.append(await self.log_view.add_story(message.event.text))
            return
        streamed = line.stream.markdown_widget
        await line.end_stream()
        # The block is written again whole from the turn's prose. Textual's stream stops by cancelling
        # its writer mid-append, and on a loaded machine the last words were left off the screen (the
        # block a line short) though the turn had them; the whole text also drops any half-parsed run.
        await streamed.update(message.event.text)

    async def on_meta_output(self: Host, message: MetaOutput) -> None:
        await self.log_view.add_meta(message.event.text)

    def on_graph_updating(self: Host, message: GraphUpdating) -> None:
        self.status.activity = "updating relations"

    async def on_graph_changed(self: Host, message: GraphChanged) -> None:
        await self.log_view.add_changes([change.text for change in message.event.changes])

    async def on_attitude_changed(self: Host, message: AttitudeChanged) -> None:
        if message.event.line:
            message.line.told.append(await self.log_view.add_story(message.event.line))

    def on_turn_committed(self: Host, message: TurnCommitted) -> None:
        status = self.status
        status.turn = message.event.turn
        status.activity = ""
        # Said until the next turn: this turn's relations are only what the narration plainly states.
        status.relations = "fast path" if message.event.extraction == "fast" else ""

    async def on_turn_failed(self: Host, message: TurnFailed) -> None:
        line, event = message.line, message.event
        await line.end_stream()
        await self.log_view.discard(line.told)
        await self.log_view.add_failure(event.message)
        self.notify(event.message, title=event.title, severity="error", timeout=10)
        line.outcome.failed = True

    async def on_notice(self: Host, message: Notice) -> None:
        event = message.event
        if event.level != "information":
            await self.log_view.add_warning(event.text)
        self.notify(event.text, severity=event.level, timeout=8)

    async def on_game_ended(self: Host, message: GameEnded) -> None:
        await self.log_view.add_ending(message.event.title)
        self.notify(f"The story has reached an ending: {message.event.title}.", title="The end")

    def on_session_reset(self, message: SessionReset) -> None:
        message.line.outcome.reset = message.event.reason

    def on_turn_replaced(self, message: TurnReplaced) -> None:
        message.line.outcome.replaced = message.event

    def on_quit_requested(self, message: QuitRequested) -> None:
        message.line.outcome.quit = True

    def on_confirm_requested(self, message: ConfirmRequested) -> None:
        message.line.outcome.confirm = message.event
