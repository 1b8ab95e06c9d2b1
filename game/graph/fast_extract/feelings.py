"""A feeling said as a noun its holder owns: "Hindley's hatred of Heath", "her love for Edgar", "his fear of
the Count"; and a marriage or betrothal said so, "his marriage to Zelda" (issue 26).

Novels name a lasting feeling as often with a noun as with a verb, and the noun is owned by the one who
feels it. "His" and "her" are resolved as the role possessives are (``possessives.owner_of``: the one
person they can be, the one the feeling is for aside), so the template reads "⟨0⟩'s hatred of ⟨1⟩" and
the patterns below state ``HATES``. Guarded as a clause is (no negation or hedge before it, nothing in a
condition), and refused when the words around say the feeling is gone or mastered ("he had overcome his
fear of Tom", "her love for Will had died"), or the marriage still to come or broken off ("his marriage to
Ann would take place in May"): a bond ended, or not yet made, is no bond now.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.patterns import SLOT, Pattern

_NOUNS: dict[str, tuple[str, str]] = {
    "LOVES": (r"love|affection|adoration|passion|devotion|tenderness", r"for|to|towards|toward"),
    "HATES": (r"hatred|hate|loathing|detestation|abhorrence|contempt", r"of|for|towards|toward"),
    "FEARS": (r"fear|dread|terror", r"of"),
    "TRUSTS": (r"trust|confidence|faith", r"in"),
    "DISTRUSTS": (r"distrust|mistrust|suspicion|suspicions", r"of"),
    # bonds owned the same way: "his marriage to Zelda" (a marriage is kin), "her engagement to Edgar"
    "KIN_OF": (r"marriage", r"to|with"),
    "ENGAGED_TO": (r"engagement|betrothal", r"to|with"),
}
_ADJ = r"(?:(?:old|deep|great|secret|growing|bitter|violent|strong|fierce|intense|ardent|tender|blind|mortal|" \
       r"boundless|unconquerable|natural|constant|lasting|profound|utter|jealous|passionate)\s+){0,2}"
FEELING_NOUNS = "|".join(nouns for nouns, _ in _NOUNS.values())
# "his hatred of Heath": the possessive pronoun, and where the one the feeling is for stands (the match's end,
# in the sentence as written: the caller looks for a name there)
OWNED_FEELING = re.compile(rf"\b(?P<pronoun>his|her)\s+{_ADJ}(?:{FEELING_NOUNS})\s+(?:for|to|towards|toward|of|in|with)\s+"
                           rf"(?:the\s+)?")
# Mastered, lost or hidden from view: "overcame his fear of", "had lost all her trust in"
_MASTERED_BEFORE = re.compile(r"\b(?:lost|lose|loses|losing|forgot|forget|forgotten|overcame|overcome|overcomes|conquered|"
                              r"conquer|mastered|master|outgrew|outgrown|shook\s+off|cast\s+off|gave\s+up|give\s+up|"
                              r"abandoned|renounced|feigned|pretended|affected)\s+(?:all\s+|the\s+)?$")
# ... or still to come ("his marriage to Zelda would take place in May", "her engagement to Edgar was broken off")
_ENDED_AFTER = re.compile(r"^(?:'s)?\s*(?:[a-z]+\s+){0,2}?(?:had\s+)?(?:died|faded|ended|cooled|vanished|waned|"
                          r"passed|gone|over|turned|was\s+gone|was\s+over|was\s+at\s+an\s+end|came\s+to\s+an\s+end|"
                          r"broken|broke|annulled|dissolved|called\s+off|off|would|will|shall|was\s+to|is\s+to|"
                          r"arranged|planned|proposed|talked\s+of|spoken\s+of|fixed|postponed)\b")


def _compile(relation: str, nouns: str, prepositions: str) -> Pattern:
    body = (rf"(?P<x>{SLOT})'s?\s+{_ADJ}(?:{nouns})\s+(?:{prepositions})\s+(?:the\s+)?(?P<y>{SLOT})(?!['’])")
    return Pattern("feeling", relation, re.compile(body), 0.55, anywhere=True, needs="'")


FEELINGS: tuple[Pattern, ...] = tuple(_compile(relation, nouns, prepositions)
                                      for relation, (nouns, prepositions) in _NOUNS.items())


def feeling_kept(before: str, after: str) -> bool:
    """Whether an owned feeling stands: not mastered or lost before it, not said to end after it."""
    return not (_MASTERED_BEFORE.search(before) or _ENDED_AFTER.match(after))
