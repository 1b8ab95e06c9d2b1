"""Asides a sentence sets in commas, taken out so its clause reads plainly (issue 26).

Narration interrupts itself: "Tom Pike, of course, loved Ann", "Tom, as everyone knew, feared Will", "Tom
had always, in his quiet way, loved Ann", "Tom, the miller, feared Will". The relation patterns want
nothing but a few adverbs between two names, so each of these read as nothing. Read over a template
(names as slots), an aside that only comments, asserts or describes is taken out and the clause is read
again with every guard of the patterns still on it. What is never taken out is what changes whether the
clause is stated: a hedge ("perhaps", "it was said", "some thought"), a denial ("not unkindly", "never"),
or an aside naming someone ("Tom, Ann's brother, ..." is ``clauses``' apposition, with its own bond). A
phrase set after the subject ("the miller") is an apposition only there, right after the clause's first
name: elsewhere a comma and "the ..." may start a list or another clause. Pure: no I/O.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.patterns import SLOT

_HEDGED = (r"perhaps|maybe|probably|possibly|apparently|seemingly|supposedly|presumably|reportedly|allegedly|"
           r"likely|doubtless|no\s+doubt")
_ADVERBIAL = (r"of\s+course|however|indeed|too|also|then|therefore|moreover|besides|at\s+last|at\s+length|in\s+turn|"
              r"in\s+fact|in\s+truth|for\s+(?:his|her|their)\s+part|after\s+all|above\s+all|from\s+the\s+first|"
              r"from\s+that\s+day|all\s+(?:his|her|their)\s+li(?:fe|ves)|in\s+secret|to\s+be\s+sure|"
              r"in\s+(?:his|her|their)\s+(?:own\s+|quiet\s+|usual\s+|silent\s+|odd\s+|gruff\s+)?(?:way|fashion|manner)|"
              r"as\s+(?:every(?:one|body)|all\s+(?:the\s+)?[a-z]+|the\s+whole\s+[a-z]+)\s+(?:knew|knows|could\s+see|saw)|"
              r"as\s+was\s+well\s+known|(?!(?:" + _HEDGED + r")\b)[a-z]{3,}ly")
COMMENT = rf",\s+(?:{_ADVERBIAL}),"
"""An aside of comment, commas and all: the people reader lets one stand between a name and its verb."""
# ", of course,": an aside of comment anywhere in the clause, between two commas
_COMMENT = re.compile(rf"{COMMENT}(?=\s+[a-z])")
# "⟨0⟩, the miller, feared ⟨1⟩": a phrase about the clause's first name, right after it
_DESCRIBED = re.compile(rf"^(?P<lead>(?:(?:and|then|now|so)\s+)*(?:the\s+)?{SLOT}),\s+(?:the|a|an)\s+"
                        rf"(?P<phrase>[a-z][a-z' -]{{0,40}}?),\s+(?=[a-z])")
_NOT_DESCRIBING = re.compile(r"\b(?:who|whom|whose|which|that|and|or|not|no|never|nor|but|if|was|is|were|had|has)\b")
_NOT_A_VERB_NEXT = re.compile(r"(?:and|or|nor|but|the|a|an|who|which|that)\b")


def aside_readings(clause: str) -> list[str]:
    """``clause`` with its asides of comment and its subject's description taken out, when it has any."""
    if ", " not in clause:
        return []
    plain = _COMMENT.sub("", clause)
    described = _DESCRIBED.match(plain)
    if described is not None and not _NOT_DESCRIBING.search(described.group("phrase")) \
            and not _NOT_A_VERB_NEXT.match(plain, described.end()):
        plain = f"{described.group('lead')} {plain[described.end():]}"
    return [plain] if plain != clause else []
