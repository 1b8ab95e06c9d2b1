"""Every kind of event the engine emits reaches the full-screen game as a Textual message the app handles.

The messages are found by the engine event's class name (``game.ui.story_events``): an event renamed or
added in the engine without its message would silently stop showing on screen, which this catches.
"""

from __future__ import annotations

from typing import get_args

import pytest

from game.engine import events
from game.ui.app import KithApp
from game.ui.story_events import LineShown, message_for

KINDS = get_args(events.Event)


def test_the_event_union_names_every_event_class_of_the_engine() -> None:
    declared = {value for value in vars(events).values()
                if isinstance(value, type) and value.__module__ == events.__name__ and value is not events.GraphChange}
    assert declared == set(KINDS)


@pytest.mark.parametrize("kind", KINDS, ids=[kind.__name__ for kind in KINDS])
def test_each_event_kind_becomes_a_message_the_app_handles(kind: type) -> None:
    event = kind.__new__(kind)  # only its kind decides the message; no field is read before it is shown
    line = LineShown()
    message = message_for(event, line)
    assert message is not None, f"{kind.__name__} has no message: the screen would not show it"
    assert type(message).__name__ == kind.__name__
    assert callable(getattr(KithApp, message.handler_name, None)), f"KithApp has no {message.handler_name}"
    assert message.event is event and message.line is line
