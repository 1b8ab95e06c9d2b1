"""Whether a telling of a turn answered a question of identity: such a turn is never told again.

An answer ("yes": the stranger is Maud) is a turn the game keeps, told by no narrator (its narration is the
game's reply), and a "yes" folds two people into one: graph, minds and what the player knows, inside the
turn's transaction (``game.engine.merge_play``). Retry, continue, an edit or a swipe tells a turn again
through the story pipeline, which would tell "yes" as an ordinary story line and part the two again, and a
stored telling cannot replay a fold. So they are refused on an answer's turn (and the save left as it was);
``undo`` takes the answer back, and the question can then be answered again.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.engine.swipes_store import Alternative
from game.store.pending import PENDING_TABLE, PendingIdentity

ANSWERED = "Turn {turn} answered a question (is {new} {candidate}?); `undo` it to answer again."


def answered(alt: Alternative) -> PendingIdentity | None:
    """The question this telling answered: the turn itself wrote it resolved (``identity_turn.settle``)."""
    for write in alt.rows:
        if write.table == PENDING_TABLE and write.row is not None:
            question = PendingIdentity.from_row(write.row)
            if not question.is_open and question.resolved_turn == alt.turn:
                return question
    return None


def refusal(alts: Iterable[Alternative]) -> str | None:
    """Why none of these tellings may be told again or kept instead of another (None: they may)."""
    for alt in alts:
        question = answered(alt)
        if question is not None:
            return ANSWERED.format(turn=alt.turn, new=question.new_name, candidate=question.candidate_name)
    return None
