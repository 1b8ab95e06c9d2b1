"""Dialogue quoted in single marks, made double so the dialogue reader reads it (issue 26).

British novels quote in single marks ('Hullo, Mole!' said the Water Rat), where an apostrophe is the same
character ("Toad's", "don't", "'em"). A text that quotes so, and has no double quote at all, has its
quoting marks turned into curly double ones, one character for one, so that every offset the readers keep
stays true; apostrophes stay as they are. Pure: no I/O.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.name_words import SAY_VERBS

_DOUBLE = re.compile(r"[“”\"]")
_SINGLE_OPEN = re.compile(r"(?:^|(?<=[\s(\[—-]))['‘](?=[^\s\d'‘’])(?!(?:em|tis|twas|twill|twere|cause|ere|n|ow)\b)",
                          re.IGNORECASE)
_SINGLE_CLOSE = re.compile(r"(?<=\S)['’](?=[\s,.;:!?)\]—-]|$)")
_SAID_AFTER_SINGLE = re.compile(rf"[,!?.—-]['’]\s+(?:{SAY_VERBS})\b|[,!?—-]['’]\s+(?:he|she|the\s+\w+|[A-Z]\w+)\s+"
                                rf"(?:{SAY_VERBS})\b|\b(?:{SAY_VERBS})\b[^'‘\n]{{0,60}}[,:]\s+['‘](?-i:[A-Z])",
                                re.IGNORECASE)
"""A said-tag beside a single mark: 'Hullo,' said Rat / 'Hullo,' Rat said / said Rat, 'Hullo'. The one
pattern (kept for tests, ``said_after_single`` answers the same) tries its verbs at every word of a long
story, a second of a 2 MB import, so the search below anchors on the marks, which are few."""
_MARK_AFTER_STOP = re.compile(r"([,!?.—-])['’]\s+")
_SAY_NEXT = re.compile(rf"(?:{SAY_VERBS})\b", re.IGNORECASE)
_NAMED_SAY_NEXT = re.compile(rf"(?:he|she|the\s+\w+|[A-Z]\w+)\s+(?:{SAY_VERBS})\b", re.IGNORECASE)
_OPEN_AFTER_TAG = re.compile(r"[,:]\s+['‘][A-Z]")
_SAY_BEFORE = re.compile(rf"\b(?:{SAY_VERBS})\b[^'‘\n]{{0,60}}\Z", re.IGNORECASE)
_TAG_REACH = 200
"""How far before an opening mark a said-verb is looked for: the 60 characters the tag may run, and room
for the verb itself, so a window never starts inside the verb it finds."""


def said_after_single(text: str) -> bool:
    """Whether ``text`` has a said-tag beside a single quoting mark (``_SAID_AFTER_SINGLE``), found from the
    marks outward rather than from every word."""
    for mark in _MARK_AFTER_STOP.finditer(text):
        if _SAY_NEXT.match(text, mark.end()):
            return True
        if mark.group(1) != "." and _NAMED_SAY_NEXT.match(text, mark.end()):
            return True
    for mark in _OPEN_AFTER_TAG.finditer(text):
        if _SAY_BEFORE.search(text[max(0, mark.start() - _TAG_REACH):mark.start()]):
            return True
    return False


def single_quotes_doubled(text: str) -> str:
    """A story that quotes its dialogue in single marks ('Hullo, Mole!' said the Water Rat) with its quotes
    made double, each mark one character for one, so every offset stays; apostrophes ("Toad's", "don't",
    "'em") stay as they are. A text with any double quote, or no said-tag after a single one, is unchanged."""
    if _DOUBLE.search(text) or not said_after_single(text):
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
