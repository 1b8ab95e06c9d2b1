"""A turn's part in conservative identity: what it asks, what its upserts decided, what the player answers.

``game.graph.identity_match`` judges a new name while the turn's calls run; here the decisions become the
turn's writes (a pending question as a row, an assumed identity as a merge-log entry), the oldest unasked
question is put to the narrator, and the player's answer at the next turn is read: "yes", "no", or the
name of one of the two. The answer is kept as a turn of its own (``undo`` steps back over it), and a
"yes" folds the new node into the person it was asked about, logged with "the player said so at turn N".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from game.features.identity.questions import PENDING_TABLE, PendingIdentity
from game.graph.identity_match import IdentityDecision
from game.graph.index import GraphIndex
from game.graph.names import resolve_name
from game.store.merge_log import MergeEntry
from game.store.rows import RowWrite
from game.world.words import clean

YES = frozenset({"yes", "y", "yeah", "yep", "aye", "ay", "indeed", "sure", "same", "correct", "right", "it is",
                 "that's him", "that's her", "that's them", "that is him", "that is her", "it's him", "it's her"})
NO = frozenset({"no", "n", "nope", "nah", "not", "different", "wrong", "it isn't", "it is not", "that's not him",
                "that's not her", "not him", "not her"})
ANSWERED = "Turn {turn} answered a question (is {new} {candidate}?); `undo` it to answer again."
"""Why a telling of an answer's turn is refused (the fold would be told as a story line, and lost)."""
MAX_ANSWER_WORDS = 6
"""A longer line is the player doing something else, not answering."""


def decided(decisions: Sequence[IdentityDecision], turn: int,
            taken: Iterable[str] = ()) -> tuple[list[RowWrite], list[MergeEntry]]:
    """A turn's identity decisions as its writes: each question a pending row (``T-K``, skipping the IDs
    in ``taken``), each assumed identity a merge-log entry (its name is already an alias in the turn's
    graph writes)."""
    rows: list[RowWrite] = []
    merges: list[MergeEntry] = []
    used = set(taken)
    for decision in decisions:
        verdict, candidate = decision.verdict, decision.verdict.candidate
        if candidate is None:
            continue
        if verdict.decision == "assume":
            merges.append(MergeEntry(decision.node_id, None, verdict.name, "assumed",
                                        f"{candidate.evidence} (confidence {candidate.confidence:.2f})"))
        else:
            number = len(rows) + 1
            while f"{turn}-{number}" in used:
                number += 1
            used.add(f"{turn}-{number}")
            pending = PendingIdentity(
                id=f"{turn}-{number}", turn=turn, new_id=decision.node_id, new_name=verdict.name,
                candidate_id=candidate.node.id, candidate_name=candidate.node.name,
                confidence=round(candidate.confidence, 3), evidence=candidate.evidence,
            )
            rows.append(pending.write())
    return rows, merges


def follow(pending: Sequence[PendingIdentity], rows: Iterable[RowWrite]) -> list[PendingIdentity]:
    """The open questions after a turn's rows (the play state follows what the store kept)."""
    by_id = {p.id: p for p in pending}
    for write in rows:
        if write.table != PENDING_TABLE:
            continue
        key = str(write.key["id"])
        if write.row is None:
            by_id.pop(key, None)
        else:
            by_id[key] = PendingIdentity.from_row(write.row)
    return [p for p in by_id.values() if p.is_open]


@dataclass(frozen=True)
class Answer:
    """What the player's line settles: the question, and whether the two names are one person."""

    pending: PendingIdentity
    same: bool


def read_answer(text: str, pending: Sequence[PendingIdentity], graph: GraphIndex, turn: int) -> Answer | None:
    """The player's answer to the question the last turn asked (at ``turn``), or None when the line is
    something else (then it is told as story, and the question stays for ``kith graph resolve``)."""
    asked = next((p for p in pending if p.is_open and p.asked_turn == turn), None)
    if asked is None or asked.new_id not in graph.nodes or asked.candidate_id not in graph.nodes:
        return None
    said = clean(text)
    words = said.split()
    if not words or len(words) > MAX_ANSWER_WORDS:
        return None
    if said in YES or words[0] in YES:
        return Answer(asked, True)
    if said in NO or words[0] in NO:
        return Answer(asked, False)
    named = resolve_name(text.strip(), [graph.nodes[asked.candidate_id], graph.nodes[asked.new_id]]).node
    if named is not None:
        return Answer(asked, named.id == asked.candidate_id)
    return None


def answered(rows: Iterable[RowWrite], turn: int) -> PendingIdentity | None:
    """The question a turn kept as ``turn`` answered: the turn itself wrote it resolved (``settle``)."""
    for write in rows:
        if write.table == PENDING_TABLE and write.row is not None:
            question = PendingIdentity.from_row(write.row)
            if not question.is_open and question.resolved_turn == turn:
                return question
    return None


def settle(answer: Answer, turn: int) -> tuple[str, RowWrite, MergeEntry | None]:
    """The reply, the question's row and (for "yes") the merge, for the answer kept as turn ``turn``."""
    asked = answer.pending
    how = f"the player said so at turn {turn}"
    row = asked.resolved(answer.same, turn, how).write()
    if answer.same:
        merge = MergeEntry(asked.candidate_id, asked.new_id, asked.new_name, "player", how)
        return f"{asked.candidate_name} it is: {asked.new_name} and {asked.candidate_name} are one person.", row, merge
    return f"Two people, then: {asked.new_name} is not {asked.candidate_name}.", row, None
