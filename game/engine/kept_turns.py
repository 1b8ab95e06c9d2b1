"""Turns the game keeps rather than tells: an answer to a question a feature asked, a command kept as a turn.

An answer ("yes": the stranger is Maud) is a turn told by no narrator (its narration is the game's reply),
and a "yes" folds two people into one: graph, minds and what the player knows, inside the turn's
transaction (the feature's ``merge_people``). A command kept as a turn (``/relationship NAME set ...``,
``/knowledge NAME add ...``) is the same kind of turn: its rows are the command's, its narration the reply.
Retry, continue or an edit tells a turn again through the story pipeline (and ``/swipe`` keeps another), which would tell "yes"
or the command as an ordinary story line and lose what it did (the two people parted again, the trust
unset), and a stored telling cannot replay a fold. So they are refused on such a turn, and the save is left
as it was; ``undo`` takes the turn back, and the question can then be answered (the command typed) again.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.engine.play_state import is_command
from game.engine.tellings_store import KeptTelling
from game.registry import default_registry

COMMANDED = "Turn {turn} is the command `{command}`, kept as a turn and told by no narrator; `undo` it to change it."
STORY = "story"
"""The kind of a Story-mode telling (``game.engine.tellings.STORY``): the player's words, whatever they are."""


def refusal(tellings: Iterable[KeptTelling]) -> str | None:
    """Why none of these tellings may be told again or kept instead of another (None: they may)."""
    for telling in tellings:
        why = default_registry().answered_in(telling.rows, telling.turn)
        if why is not None:
            return why
        if telling.kind != STORY and is_command(telling.record.input):
            return COMMANDED.format(turn=telling.turn, command=telling.record.input)
    return None
