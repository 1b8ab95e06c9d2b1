"""Whether a capital is a name's or only a sentence's: "Suddenly" opens a sentence, "Polly" is a girl.

An English adverb ends in "-ly" and is written with a capital only where a sentence or a quoted line
starts; a name ending so (Polly, Emily, Nelly, Sally, Lily) keeps its capital wherever it stands. The
people reader dropped every capitalised "-ly" word as an adverb opening a sentence, so a story's Emily was
never anyone. The text tells them apart: a word it also writes capitalised in mid-sentence ("go to bed,
Polly") is a name everywhere, and one it writes in lower case anywhere ("she came suddenly") never is.
The same holds for a month or a virtue that is also a girl's name: "May" opens "May I come in?" and
dates "in May", but "engaged to May Welland" is a woman, for a capital in mid-sentence before a surname is
a name's. Pure: no I/O.
"""

from __future__ import annotations

import re

_ADVERB_SHAPE = re.compile(r"[a-z]{3,}ly")
# A capital after a lower-case word or a comma, in the same sentence: a name's, not the position's.
_MID_SENTENCE = re.compile(r"(?<=[a-z,;] )([A-Z][a-z]{2,}ly)\b")


def capitalised_in_mid_sentence(text: str) -> frozenset[str]:
    """The "-ly" words ``text`` writes with a capital where no sentence starts, case-folded."""
    lower = {word for word in re.findall(r"\b[a-z]{3,}ly\b", text)}
    return frozenset(word.casefold() for word in _MID_SENTENCE.findall(text)) - lower


def adverb_by_position(word: str, names: frozenset[str]) -> bool:
    """Whether a capitalised ``word`` (case-folded) is an adverb its sentence capitalised ("Suddenly"), not
    one of the ``-ly`` ``names`` the text writes with a capital mid-sentence."""
    return bool(_ADVERB_SHAPE.fullmatch(word)) and word not in names


GIVEN_NAME_WORDS = frozenset({"may", "june", "april", "august", "faith", "mercy"})
"""Words the people reader drops at a name's start (a modal, a month, an exclamation) that are also names."""
# Where a capital is the position's or a date's: a sentence's start, a quote's, "in May", "the first of June"
# (but "the cousin of May Welland" is a woman).
_NOT_MID_SENTENCE = re.compile(r"(?:^\s*|[.!?:“”\"(—-]\s*|\b(?i:in|since|until|till|by|during|early|late|last|next|"
                               r"this|that|every|mid|before|after|through|from|(?:\d+\w*|first|second|third|end|middle|"
                               r"beginning|month|ides|[a-z]+th)\s+of)\s+)$")

_SENTENCE_START = re.compile(r"(?:^\s*|[.!?:“”\"(—-]\s*)$")
_NAMED_BY_ROLE = re.compile(r"\b(?:daughter|sister|wife|cousin|niece|aunt|mother|granddaughter|bride|fianc[ée]e|"
                            r"friend|maid)\s+$", re.IGNORECASE)


# What follows a name and never a modal, a wish or a month: a verb in the past ("May Welland came in"; "May Heaven
# forgive you" is a wish), or a possessive that owns a person ("May's cousin"; "May's roses" is a month's).
_DONE_AFTER = re.compile(r"\s+(?:[a-z]+ed|came|went|sat|stood|said|was|had|took|made|saw|knew|felt|thought|rose|ran|"
                         r"gave|told|spoke|wore|wrote|drew|held|kept|left|met|sent|sang|grew)\b")
_KIN_OWNED_AFTER = re.compile(r"['’]s\s+(?:[a-z]+\s+)?(?:cousin|mother|father|sister|brother|husband|wife|aunt|uncle|"
                              r"grandmother|grandfather|daughter|son|niece|nephew|family|friend|lover|suitor|"
                              r"engagement|marriage|betrothal|maid|governess)\b")


def given_name_first(tokens: list[str], before: str, not_names: frozenset[str], after: str = "") -> bool:
    """Whether a run's first word (``tokens``, case-folded), one of ``GIVEN_NAME_WORDS``, is a first name:
    a role noun names it, or a surname follows it in mid-sentence (``before`` is the text just before it),
    or anywhere when a verb in the past follows the two (``after``, the text just after the run), or it owns
    a person ("May's cousin")."""
    if not tokens[:1] or tokens[0] not in GIVEN_NAME_WORDS:
        return False
    if _NAMED_BY_ROLE.search(before) or (len(tokens) == 1 and _KIN_OWNED_AFTER.match(after)):
        return True  # "her daughter May": a woman's role noun names the word after it
    surname = len(tokens) > 1 and tokens[1] not in not_names and tokens[1].isalpha()
    if not surname:
        return False
    if not _NOT_MID_SENTENCE.search(before):
        return True
    # at a sentence's start only, never after a date's word: "In May Tom married Ann" is Tom, in May
    return len(tokens) == 2 and bool(_SENTENCE_START.search(before)) and bool(_DONE_AFTER.match(after))
