"""Sentences and clauses, and the guards that keep the fast path from stating what a text does not.

A clause is skipped when it is negated ("Mira does not fear Tomas"), hypothetical ("if Mira feared
Tomas", "Mira might trust Tomas") or inside a question ("Does Mira trust Tomas?"). "No longer" is not a
plain negation: it says a relation has ended, so such a clause is read for closes instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from game.text import straighten_quotes

# A sentence ends at . ! ? (or their CJK forms) and any closing quotes or brackets after them, or at a
# line break. A title's full stop ("Capt. Voss") does not end one.
_TITLES = r"(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bDr)(?<!\bSt)(?<!\bJr)(?<!\bSr)(?<!\bCapt)(?<!\bLt)(?<!\bSgt)"
_SENTENCE_END = re.compile(_TITLES + r"[.!?…]+[\"')\]]*(?=\s|$)|[。！？]+[」』”\"')）]*|\n\s*")
# Clauses split where English (and Chinese) joins two statements: a clause's guard words then stay in
# their own clause, so "Mira trusts Tomas, but she does not fear Oren" keeps its first half.
_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|:|—|–|--|,\s*(?:but|and|while|whereas|although|though|yet|so)\b|\s(?:but|whereas|although)\b"
    r"|，\s*(?:但是?|可是|而且?|不过)|；)\s*",
    re.IGNORECASE,
)

_NEGATION = re.compile(
    r"\b(?:not|never|no|nor|neither|nobody|none|nothing|hardly|barely|scarcely|without|cannot|refuses?|"
    r"refused|ceased|stopped|denies|denied|pretends?|pretended|unlike)\b|n't\b|[不没沒未勿]",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|whether|would|could|might|may|should|must|perhaps|maybe|possibly|probably|suppose|"
    r"supposing|imagine|imagined|wonders?|wondered|rumou?rs?|rumou?red|seems?|seemed|appears?|appeared|"
    r"wish|wished|hopes?|hoped|as if|as though|lest|once)\b|如果|假如|要是|倘若|也许|或许|可能|好像|似乎",
    re.IGNORECASE,
)
_ENDED = re.compile(r"\bno longer\b|不再", re.IGNORECASE)
_NO_LONGER = re.compile(r"\bno longer\b", re.IGNORECASE)
_QUESTION = re.compile(r"[?？]|吗|嗎")


class Mood(Enum):
    """How a clause may be read: as a statement, as the end of a relation, or not at all."""

    STATES = "states"
    ENDS = "ends"
    SKIP = "skip"


@dataclass(frozen=True)
class Sentence:
    """A sentence as written (for triples' evidence) and whether the whole of it is a question."""

    text: str
    question: bool


def split_sentences(text: str) -> list[Sentence]:
    """The text's sentences in order, trimmed; blank ones dropped."""
    sentences: list[Sentence] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        _append(sentences, text[start:match.end()])
        start = match.end()
    _append(sentences, text[start:])
    return sentences


def _append(sentences: list[Sentence], raw: str) -> None:
    cleaned = " ".join(raw.split())
    if cleaned.strip("\"'“”‘’「」『』 "):
        sentences.append(Sentence(cleaned, bool(_QUESTION.search(cleaned))))


def split_clauses(normalized: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each clause of a normalized sentence, so mention offsets stay valid."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(normalized):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(normalized)))
    return [(s, e) for s, e in spans if e > s]


def mood(clause: str) -> Mood:
    """Whether a clause (names already replaced by slots) may be read, and how."""
    plain = straighten_quotes(clause)
    if _HYPOTHETICAL.search(plain):
        return Mood.SKIP
    if _ENDED.search(plain):
        rest = _ENDED.sub(" ", plain)
        return Mood.SKIP if _NEGATION.search(rest) else Mood.ENDS
    if _NEGATION.search(plain):
        return Mood.SKIP
    return Mood.STATES


ENDED_MARK = "§"
"""Stands where "no longer" stood: patterns accept it among their adverbs, and a match holding it closes."""


def mark_ended(clause: str) -> str:
    """The clause with "no longer" as ``§``: "X no longer trusts Y" matches "X trusts Y", to be closed,
    while "X, captain of Y, no longer trusts Z" still states who captains Y."""
    return " ".join(_NO_LONGER.sub(f" {ENDED_MARK} ", clause.replace("不再", ENDED_MARK)).split())
