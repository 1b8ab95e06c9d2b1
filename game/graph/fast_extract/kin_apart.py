"""Names the text says are kin to each other, so that neither is taken for the other's short form.

The people reader takes a bare surname or first name for the one full name that has it ("Holmes" for
Sherlock Holmes). A family novel breaks that: in "Linton Heathcliff was Heathcliff's son" the only full
name ending in "Heathcliff" is the son, and "Heathcliff" his father. A text that sets one name as the
owner of a kin or household noun and the other as its holder ("Heathcliff's son Linton Heathcliff",
"Hareton, Hindley's son", "Linton Heathcliff was Heathcliff's son") says they are two people, and the
grouping keeps them apart. Pure: no I/O.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.name_words import KIN_NOUNS, PERSON_TITLES
from game.graph.fast_extract.particles import UPPER

_NAME = rf"(?:[{UPPER}][\w'’-]*\.?\s+)*[{UPPER}][\w'’-]*"
_OWNED = rf"['’]s\s+(?:[a-z]+\s+)?(?:{KIN_NOUNS})\b"
# "Heathcliff's son Linton Heathcliff", "Heathcliff's son, Linton Heathcliff,"
_OWNER_FIRST = re.compile(rf"(?P<owner>{_NAME}){_OWNED},?\s+(?P<held>{_NAME})")
# "Linton Heathcliff, Heathcliff's son", "Linton Heathcliff was Heathcliff's son"
_HOLDER_FIRST = re.compile(rf"(?P<held>{_NAME})(?:,\s+|\s+(?:is|was|had\s+been|has\s+been)\s+)(?:the\s+)?"
                           rf"(?P<owner>{_NAME}){_OWNED}")


def kin_apart(text: str) -> set[frozenset[str]]:
    """Pairs of names (as written) the text sets as a kin or household noun's owner and its holder."""
    pairs: set[frozenset[str]] = set()
    for pattern in (_OWNER_FIRST, _HOLDER_FIRST):
        for match in pattern.finditer(text):
            owner, held = match.group("owner").strip(), match.group("held").strip()
            if owner != held:
                pairs.add(frozenset((owner, held)))
    return pairs


def kept_apart(name: str, other: str, apart: set[frozenset[str]]) -> bool:
    """Whether ``name`` and ``other`` are a pair of ``apart``, each compared without the titles and opening
    words before it ("Mr. Heathcliff" is the "Heathcliff" of "Then Heathcliff's son ...")."""
    mine, theirs = _bare(name), _bare(other)
    return any({_bare(written) for written in pair} == {mine, theirs} for pair in apart) and mine != theirs


def _bare(name: str) -> str:
    tokens = name.replace(".", "").split()
    while len(tokens) > 1 and tokens[0].casefold() in _BEFORE_A_NAME:
        tokens = tokens[1:]
    return " ".join(tokens).casefold()


_BEFORE_A_NAME = PERSON_TITLES | frozenset({"the", "young", "old", "little", "poor", "then", "and", "but", "when",
                                           "so", "now"})
"""Words a name may carry before it in one place and not in another: a title, an article, an opener."""
