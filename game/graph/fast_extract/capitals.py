"""Whether a capital is a name's or only a sentence's: "Suddenly" opens a sentence, "Polly" is a girl.

An English adverb ends in "-ly" and is written with a capital only where a sentence or a quoted line
starts; a name ending so (Polly, Emily, Nelly, Sally, Lily) keeps its capital wherever it stands. The
people reader dropped every capitalised "-ly" word as an adverb opening a sentence, so a story's Emily was
never anyone. The text tells them apart: a word it also writes capitalised in mid-sentence ("go to bed,
Polly") is a name everywhere, and one it writes in lower case anywhere ("she came suddenly") never is.
Pure: no I/O.
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
