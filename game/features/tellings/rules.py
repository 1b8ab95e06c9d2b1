"""What may be told again, and how the player's words are kept: the tellings feature's rules.

Turns the game keeps rather than tells (an answer to a feature's question, a command kept as a turn)
are refused: an answer ("yes": the stranger is Maud) is a turn told by no narrator (its narration is the
game's reply), and a "yes" folds two people into one, graph, minds and what the player knows, inside the
turn's transaction. A command kept as a turn (``/relationship NAME set ...``, ``/knowledge NAME add ...``)
is the same kind of turn: its rows are the command's, its narration the reply. Retry, continue or an edit
tells a turn again through the story pipeline (and ``/swipe`` keeps another), which would tell "yes" or the
command as an ordinary story line and lose what it did (the two people parted again, the trust unset), and
a stored telling cannot replay a fold. So they are refused on such a turn, and the save is left as it was;
``undo`` takes the turn back, and the question can then be answered (the command typed) again.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.errors import KithError
from game.features.retelling import RetellReach
from game.features.tellings.store import KeptTelling
from game.text import strip_control

COMMANDED = "Turn {turn} is the command `{command}`, kept as a turn and told by no narrator; `undo` it to change it."
STORY = "story"
"""The kind of a turn the player wrote in Story mode: the player's words, edited, never told again."""
NO_TURN = "There is no turn to {what} yet: the story has only begun."
OLD_TURN = ("Turn {turn} was told before this save kept its tellings and changed what cannot be told "
            "again (a merge, or a row deleted since); this works from the next turn on.")
MAX_EDIT_CHARS = 8000
"""The longest narration an edit may set (a model's own narration is cut at the same length)."""
EMPTY_NARRATION = "Type the text after the command: it replaces the last narration."
EMPTY_STORY = "Type `/story TEXT`: the words are added to the story as you write them."
EMPTY_INPUT = "Type `/edit-input TEXT`: what you meant to type, in place of the last turn's input."


def refusal(tellings: Iterable[KeptTelling], reach: RetellReach) -> str | None:
    """Why none of these tellings may be told again or kept instead of another (None: they may): an answer
    to a feature's question (``RetellReach.answered_in``), or a command kept as a turn."""
    for telling in tellings:
        answered = reach.answered_in(telling.rows, telling.turn)
        if answered is not None:
            return answered
        if telling.kind != STORY and reach.is_command(telling.record.input):
            return COMMANDED.format(turn=telling.turn, command=telling.record.input)
    return None


def edit_text(text: str, empty: str = EMPTY_NARRATION) -> str:
    """An edited narration or input as it is kept (terminal-safe, trimmed); refused empty or over the limit."""
    kept = strip_control(text).strip()
    if not kept:
        raise KithError(empty, title="Edit")
    if len(kept) > MAX_EDIT_CHARS:
        raise KithError(f"That is {len(kept)} characters; a turn holds at most {MAX_EDIT_CHARS}. Nothing was "
                        "changed.", title="Edit")
    return kept


def target(where: str, at: int, count: int) -> int | None:
    """The telling ``/swipe WHERE`` keeps (from 0), the kept one being ``at`` of ``count``; None: unread."""
    if where in ("<", "prev", "previous", "left", ""):
        return (at - 1) % count if where else None
    if where in (">", "next", "right"):
        return (at + 1) % count
    if where.isdigit() and 1 <= int(where) <= count:
        return int(where) - 1
    return None
