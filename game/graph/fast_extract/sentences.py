"""Sentences and clauses, and the guards that keep the fast path from stating what a text does not.

Nothing is read from a question ("Does Mira trust Tomas?") or a conditional clause ("if Mira feared
Tomas"), nor from a match with a negation or a hedge before its end ("Mira does not fear Tomas", "Mira
might trust Tomas"). "No longer" is not a plain negation: it says a relation has ended, so a match
holding it is a close.

The guards read templates built from ``game.graph.names.normalize_name`` (case-folded, curly quotes
straightened), so their patterns are written in lower case with plain apostrophes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A sentence ends at . ! ? (or their CJK forms) and any closing quotes or brackets after them, or at a
# line break. A title's full stop ("Capt. Voss", "Mme. Bovary") does not end one.
_TITLES = r"(?<!\b[A-HJ-Z])(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bDr)(?<!\bSt)(?<!\bJr)(?<!\bSr)(?<!\bCapt)(?<!\bLt)(?<!\bSgt)(?<!\bMme)(?<!\bMlle)"
_SENTENCE_END = re.compile(_TITLES + r"[.!?…]+[\"')\]]*(?=\s|$)|[。！？]+[」』”\"')）]*|\n\s*")
# Clauses split where English (and Chinese) joins two statements: a clause's guard words then stay in
# their own clause, so "Mira trusts Tomas, but she does not fear Oren" keeps its first half. A bare "but"
# is not a break: in "everyone but Mira trusts Tomas" it is a preposition.
_CLAUSE_BREAK = re.compile(
    r"\s*(?:;|:|—|–|--|,\s*(?:but|while|whereas|although|though|yet|so)\b|\s(?:whereas|although)\b"
    # ", and" before a list's last name ends no clause: "Noah begat Shem, Ham, and Japheth (, who ...)."
    r"|,\s*and\b(?!\s+(?:the\s+)?⟨\d+⟩\s*(?:$|[.;:!?]|,\s+(?:who|whom|whose)\b))"
    r"|，\s*(?:但是?|可是|而且?|不过)|；)\s*",
    re.IGNORECASE,
)
# "⟨0⟩, ⟨1⟩, and ⟨2⟩ feared ⟨3⟩", "⟨0⟩, and ⟨1⟩, and ⟨2⟩, the sons of ⟨3⟩": a ", and" after a clause holding only
# names goes on with the list of its subject; it starts no clause of its own (a list of a few names: one of
# thousands is not read again from its start at every comma).
_LIST_SO_FAR = re.compile(r"(?:(?:and|then|now|so|but)\s+)*(?:both\s+)?(?:the\s+)?⟨\d+⟩"
                          r"(?:,?\s+and\s+(?:the\s+)?⟨\d+⟩|,\s*(?:the\s+)?⟨\d+⟩)*")
_LIST_GOES_ON = re.compile(r",\s*and\s+(?:the\s+)?⟨\d+⟩(?!['’])")

# Words that make what *follows* them unsure or untrue: "Nobody thinks Mira trusts Tomas", "Mira does not
# fear Oren", "Veyra seems to trust Dov". Only the text up to the end of a match is checked, so "Mira
# despises Bram and makes no secret of it" still states that Mira despises Bram.
_NOT_STATED = re.compile(
    r"\b(?:not|never|no|nor|neither|nobody|none|nothing|hardly|barely|scarcely|without|cannot|refuses?|"
    r"refused|ceased|stopped|denies|denied|pretends?|pretended|unlike|would|could|might|may|should|must|"
    r"perhaps|maybe|possibly|probably|seems?|seemed|appears?|appeared|rumou?rs?|rumou?red|wonders?|wondered|"
    r"hopes?|hoped|(?<!at\s)once(?!\s+(?:or\s+twice|more|again))|supposedly|allegedly|reportedly|gossip|"
    # hearsay: "they say Mira loves Tomas", "it was said that ...", "people whispered that ..."
    r"(?:they|people|folks?|some|others|everybody|everyone)\s+(?:say|said|says|whisper|whispered|think|thought|"
    r"believe|believed|supposed)|it\s+(?:is|was)\s+(?:said|whispered|thought|believed|supposed))\b|n't\b|[不没沒未勿]|也许|或许|可能|好像|似乎|据说",
    re.IGNORECASE,
)
# Words that make a whole clause a condition, a fancy or a thing of the past, wherever they stand: "Mira
# will trust Tomas if he pays" states no trust, "Pell owed Crane forty crowns until the tide" no debt.
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|whether|suppose|supposing|imagine|imagined|imagines|as if|as though|lest|wish|wished|"
    r"dreams?|dreamed|dreamt|until|till)\b|如果|假如|要是|倘若|假设|直到",
    re.IGNORECASE,
)
_NEGATED_AFTER = re.compile(r"\s*(?:nothing|no|not|none|never|at\s+all|any\s+less|less\s+than\s+ever)\b",
                            re.IGNORECASE)
# "Mira loved Tomas, or so people said": hearsay told after the statement. A "said" that tells what the
# subject did ("Joseph, the servant of Mr. Earn, said nothing") tells no hearsay.
_HEARSAY_AFTER = re.compile(r",?\s*(?:or\s+so\s+)?(?:people|they|folks?|everybody|everyone|some)\s+(?:said|say|says|"
                            r"whispered|thought|believed)\b|,?\s*(?:it\s+(?:is|was)\s+)?(?:said|rumou?red|whispered)\b"
                            r"(?!\s+(?:nothing|little|no|not|never|something|a\s+word|only)\b)",
                            re.IGNORECASE)
_NO_LONGER = re.compile(r"\bno longer\b", re.IGNORECASE)
_QUESTION = re.compile(r"[?？]|吗|嗎")


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
        if match.start() - start < 160 and _LIST_GOES_ON.match(normalized, match.start()) \
                and _LIST_SO_FAR.fullmatch(normalized, start, match.start()):
            continue
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(normalized)))
    return [(s, e) for s, e in spans if e > s]


def conditional(clause: str) -> bool:
    """Whether a clause is a condition or a fancy, so nothing in it is stated."""
    return bool(_CONDITIONAL.search(clause))


def stated(prefix: str, rest: str = "") -> bool:
    """Whether a match ending where ``prefix`` ends is stated: no negation or hedge before its end ("no
    longer", already marked ``§``, is not a negation: it ends a relation), and none right after it
    ("Mira owes Tomas nothing", "Mira trusts Tomas no more than Oren")."""
    return not (_NOT_STATED.search(prefix) or _NEGATED_AFTER.match(rest) or _HEARSAY_AFTER.match(rest))


ENDED_MARK = "§"
"""Stands where "no longer" stood: patterns accept it among their adverbs, and a match holding it closes."""


def mark_ended(clause: str) -> str:
    """The clause with "no longer" as ``§``: "X no longer trusts Y" matches "X trusts Y", to be closed,
    while "X, captain of Y, no longer trusts Z" still states who captains Y."""
    return " ".join(_NO_LONGER.sub(f" {ENDED_MARK} ", clause.replace("不再", ENDED_MARK)).split())
