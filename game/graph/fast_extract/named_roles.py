"""A role whose holder is named only after it: "The woman was his housekeeper, and her name was Mrs. Medlock",
"You are going to your uncle. His name is Mr. Archibald Craven."

Prose introduces someone by what they are to another before it says who they are. Read over templates (names
and resolved pronouns as slots, ``extractor``), the role and the name given after it are put together as the
role patterns read them ("⟨owner⟩'s housekeeper ⟨name⟩"), so the bond is stated by the same patterns and guards
as "his housekeeper Mrs. Medlock". Only a name given at once ("and her name was", or the next sentence "His name
is") counts, and only when "his" or "her" agrees with the role's sex: "your aunt. His name is Tom" is someone
else. Pure: no I/O.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.patterns import ADJ, ROLE_NOUNS, SLOT

_MALE = frozenset({"uncle", "father", "brother", "son", "husband", "nephew", "grandfather", "grandson", "stepfather",
                   "stepbrother", "half-brother", "king", "lord", "master", "kinsman", "dad", "pa", "footman",
                   "footmen", "butler", "valet", "manservant"})
_FEMALE = frozenset({"aunt", "mother", "sister", "daughter", "wife", "niece", "grandmother", "granddaughter",
                     "stepmother", "stepsister", "half-sister", "queen", "lady", "mistress", "kinswoman", "mum",
                     "mom", "ma", "maid", "housemaid", "maidservant", "governess", "nursemaid", "housekeeper"})
# "and her name was" after a role and the place it is held at ("his housekeeper at Misselthwaite Manor")
NAME_GIVEN_AFTER = re.compile(r"(?:\s+(?:at|of|in|on|from)\s+[^,.;:!?⟨]{1,40}?)?,?\s+and\s+(?P<pronoun>his|her)\s+name\s+"
                              r"(?:was|is)\s+")
_ROLE_THEN_NAME = re.compile(rf"(?P<role>{SLOT}'s\s+{ADJ}(?P<noun>{ROLE_NOUNS}))(?P<place>(?:\s+(?:at|of|in|on|from)\s+"
                             rf"[^,.;:!?⟨]{{1,40}}?)?),?\s+and\s+(?P<pronoun>his|her)\s+name\s+(?:was|is)\s+"
                             rf"(?P<x>{SLOT})(?!['’])")
_ROLE_ENDS = re.compile(rf"(?P<owner>{SLOT})'s\s+(?P<role>{ADJ}(?P<noun>{ROLE_NOUNS}))\s*[.!,]?$")
_NAME_IS = re.compile(rf"^(?P<pronoun>his|her)\s+name\s+(?:is|was)\s+(?P<x>{SLOT})(?!['’])\s*[.!]?$")


def agrees(pronoun: str, noun: str) -> bool:
    """Whether "his" or "her" may name the one a role noun is: not "her" for an uncle nor "his" for a maid."""
    return noun not in (_FEMALE if pronoun == "his" else _MALE)


def name_given(template: str) -> str:
    """The template with a name given after its role set beside it: "⟨0⟩'s housekeeper at the manor, and her
    name was ⟨1⟩" reads "⟨0⟩'s housekeeper ⟨1⟩ at the manor"."""
    def joined(match: re.Match[str]) -> str:
        if not agrees(match.group("pronoun"), match.group("noun")):
            return match.group(0)
        return f"{match.group('role')} {match.group('x')}{match.group('place')}"

    return _ROLE_THEN_NAME.sub(joined, template)


def named_next(previous: str, template: str) -> tuple[str, str, str] | None:
    """``(owner, role, name)`` when ``previous`` (the sentence before, as a template) ends with an owned role
    and ``template`` is only its holder's name: "⟨0⟩ is going to ⟨0⟩'s uncle." then "his name is ⟨0⟩." The
    owner's slot is the previous sentence's, the name's this one's."""
    role = _ROLE_ENDS.search(previous)
    name = _NAME_IS.match(template)
    if role is None or name is None or not agrees(name.group("pronoun"), role.group("noun")):
        return None
    return role.group("owner"), role.group("role").strip(), name.group("x")
