"""Dialogue quoted in single marks, made double so the dialogue reader reads it (issue 26).

British novels quote in single marks ('Hullo, Mole!' said the Water Rat), where an apostrophe is the same
character ("Toad's", "don't", "'em"). A text that quotes so, and has no double quote at all, has its
quoting marks turned into curly double ones, one character for one, so that every offset the readers keep
stays true; apostrophes stay as they are. Pure: no I/O.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.people import SAY_VERBS

_DOUBLE = re.compile(r"[“”\"]")
_SINGLE_OPEN = re.compile(r"(?:^|(?<=[\s(\[—-]))['‘](?=[^\s\d'‘’])(?!(?:em|tis|twas|twill|twere|cause|ere|n|ow)\b)",
                          re.IGNORECASE)
_SINGLE_CLOSE = re.compile(r"(?<=\S)['’](?=[\s,.;:!?)\]—-]|$)")
_SAID_AFTER_SINGLE = re.compile(rf"[,!?.—-]['’]\s+(?:{SAY_VERBS})\b|[,!?—-]['’]\s+(?:he|she|the\s+\w+|[A-Z]\w+)\s+"
                                rf"(?:{SAY_VERBS})\b|\b(?:{SAY_VERBS})\b[^'‘\n]{{0,60}}[,:]\s+['‘](?-i:[A-Z])",
                                re.IGNORECASE)


def single_quotes_doubled(text: str) -> str:
    """A story that quotes its dialogue in single marks ('Hullo, Mole!' said the Water Rat) with its quotes
    made double, each mark one character for one, so every offset stays; apostrophes ("Toad's", "don't",
    "'em") stay as they are. A text with any double quote, or no said-tag after a single one, is unchanged."""
    if _DOUBLE.search(text) or not _SAID_AFTER_SINGLE.search(text):
        return text
    out = list(text)
    for paragraph in re.finditer(r"[^\n]+(?:\n(?!\s*\n)[^\n]*)*", text):
        start, body = paragraph.start(), paragraph.group()
        position = 0
        while True:
            opening = _SINGLE_OPEN.search(body, position)
            if opening is None:
                break
            closing = _closing(body, opening.end())
            out[start + opening.start()] = "“"
            if closing is None:
                break  # the quote runs on into the next paragraph
            out[start + closing] = "”"
            position = closing + 1
    return "".join(out)


def _closing(body: str, position: int) -> int | None:
    """Where a single-quoted line opened before ``position`` closes: the first closing mark that is no
    plural's possessive ("the Rats' boat": an ``s'`` before a lower-case word)."""
    for match in _SINGLE_CLOSE.finditer(body, position):
        at = match.start()
        if body[at - 1] in "sS" and re.match(r"\s+[a-z]", body[at + 1:at + 3]) and not re.search(r"[,!?.]$", body[:at]):
            continue
        return at
    return None
