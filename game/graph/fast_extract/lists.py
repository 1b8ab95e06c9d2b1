"""A list of people with one predicate: each member holds it, and none is related to another by it (issue 26).

"Athos, Porthos and Aramis were friends of Tom" says three things, each "X was a friend of Tom"; it says
nothing of the three to each other. The relation patterns (``patterns``) take a list as a verb's subject
("Meg and Jo feared Ann" is each one's fear), but a role said of a list ("were the sons of Ann", "Ann's
sons", "were members of the Watch") is a plural noun the singular role patterns do not read, and a plural
role with nobody after it ("Tom and Will were friends") is the list's bond among themselves, read by the
mutual patterns. So a clause opening with a list whose predicate names someone else is read again once per
member, its copula and its role noun made singular ("⟨0⟩ was a friend of ⟨3⟩"), by the same patterns and
guards as any clause; the mutual patterns refuse a plural followed by "of"/"to" someone
(``patterns.NAMES_ANOTHER``).

The people reader weighs what follows a name; for a list's earlier members that is the rest of the list,
so ``list_end`` says where a list of capitalised names ends, and what follows it is weighed for each of them.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter

from game.graph.fast_extract.particles import DOTTED, UPPER
from game.graph.fast_extract.patterns import ADJ, ADV, ROLE_NOUNS, SLOT

_MEMBER = rf"(?:the\s+)?{SLOT}"
# "⟨0⟩, ⟨1⟩ and ⟨2⟩", "⟨0⟩, ⟨1⟩, and ⟨2⟩", "⟨0⟩, and ⟨1⟩, and ⟨2⟩", "both ⟨0⟩ and ⟨1⟩": a list opening its clause,
# its last member owning nothing ("⟨0⟩ and ⟨1⟩'s mother" is one person, the mother).
_LISTED = re.compile(rf"^(?P<lead>(?:(?:and|then|now|so|but)\s+)*)(?:both\s+)?"
                     rf"(?P<list>{_MEMBER}(?:,\s*(?:and\s+)?{_MEMBER})*,?\s+and\s+{_MEMBER})(?!['’])(?P<rest>[,\s].*)$")
BARE_LIST = re.compile(rf"^(?:(?:and|then|now|so|but)\s+)*(?:both\s+)?{_MEMBER}(?:,?\s+and\s+{_MEMBER}|,\s*{_MEMBER})*$")
"""A clause so far holding only a list's names: a ", and" after it goes on with the list ("⟨0⟩, ⟨1⟩, and ⟨2⟩
feared ⟨3⟩"), it does not start a clause of its own."""

# A plural role noun (the role patterns' nouns, or their plurals): "sons", "friends", "allies", "footmen".
_PLURAL = r"[a-z-]+(?:s|men)"
_COPULA = re.compile(rf"^\s+(?P<adv>{ADV})(?P<be>are|were|have\s+been|had\s+been|became|become|remain|remained)\s+")
_SINGULAR_BE = {"are": "is", "were": "was", "become": "becomes", "remain": "remains"}
# "the sons of ⟨3⟩", "old friends of ⟨3⟩", "members of the ⟨3⟩": a role held towards someone named after it
_ROLE_OF = re.compile(rf"^(?P<adv>{ADV})(?P<the>the\s+)?(?P<adj>{ADJ})(?P<noun>{_PLURAL})\s+(?P<prep>of|to)\s+"
                      rf"(?=(?:the\s+)?{SLOT})")
# "⟨3⟩'s sons", "their father's servants" (a possessive pronoun's owner is for the role patterns to find)
_OWNED_ROLE = re.compile(rf"^(?P<adv>{ADV})(?P<owner>{SLOT}['’]s?|his|her|their)\s+(?P<adj>{ADJ})(?P<noun>{_PLURAL})\b")
# ", the sons of ⟨3⟩," / ", ⟨3⟩'s sons,": a plural role in apposition is the whole list's (a singular one may be
# the last member's alone: "⟨0⟩ and ⟨1⟩, the son of ⟨2⟩")
_APPOSED = re.compile(rf"^,\s+(?P<the>the\s+)?(?P<adj>{ADJ})(?P<noun>{_PLURAL})\s+(?P<prep>of|to)\s+(?P<owner>(?:the\s+)?{SLOT})"
                      rf"(?!['’])(?P<end>,|\s*$)"
                      rf"|^,\s+(?P<owned>{SLOT}['’]s?)\s+(?P<adj2>{ADJ})(?P<noun2>{_PLURAL})(?P<end2>,|\s*$)")
# A plural role with nobody after it is the list's bond among themselves ("were friends", "were old allies"):
# read by the mutual patterns, never once per member.
_AMONG_THEMSELVES = re.compile(rf"^(?:{ADV})(?:the\s+)?(?:{ADJ})(?:{_PLURAL})\b(?!\s+(?:of|to)\b)")
_IRREGULAR = {"wives": "wife", "children": "child", "allies": "ally", "enemies": "enemy", "secretaries": "secretary",
              "foes": "foe", "nephews": "nephew"}
_ROLE = re.compile(rf"(?:{ROLE_NOUNS})")
PAIRED_OFF = re.compile(r"\b(?:married|marry|wed|wedded|engaged|betrothed|affianced|wives|husbands|wife|husband)\b")
"""Bonds one has with one other: two lists joined by them pair their members off, and which with which is unsaid."""
_OTHER_LIST = re.compile(rf"{SLOT}(?:,\s*(?:the\s+)?{SLOT})*,?\s+and\s+(?:the\s+)?{SLOT}")


def _singular(noun: str) -> str | None:
    """The singular of a plural role noun, or None when it is no role the patterns read."""
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    forms = [noun[:-3] + "man"] if noun.endswith("men") else []
    forms += [noun[:-2], noun[:-1]] if noun.endswith("es") else [noun[:-1]]
    return next((form for form in forms if _ROLE.fullmatch(form) and form != noun), None)


def _article(the: str | None, word: str) -> str:
    return "the " if the else ("an " if word[:1] in "aeiou" else "a ")


def _predicate(rest: str) -> str | None:
    """The predicate after a list as said of one member, or None when it is not one the members share: a
    singular copula ("⟨0⟩ and ⟨1⟩ was ...": not the list's), a bond among themselves, no one else named."""
    copula = _COPULA.match(rest)
    if copula is not None:
        tail = rest[copula.end():]
        if _AMONG_THEMSELVES.match(tail) and not _OWNED_ROLE.match(tail):
            return None
        be = _SINGULAR_BE.get(copula.group("be"), copula.group("be")).replace("have", "has")
        head = f" {copula.group('adv')}{be} "
        role = _ROLE_OF.match(tail)
        if role is not None:
            noun = _singular(role.group("noun"))
            if noun is None:
                return None
            adj = role.group("adj")
            return (f"{head}{role.group('adv')}{_article(role.group('the'), adj or noun)}{adj}{noun} "
                    f"{role.group('prep')} {tail[role.end():]}")
        owned = _OWNED_ROLE.match(tail)
        if owned is not None:
            noun = _singular(owned.group("noun"))
            if noun is None:
                return None
            return f"{head}{owned.group('adv')}{owned.group('owner')} {owned.group('adj')}{noun}{tail[owned.end():]}"
        return f"{head}{tail}"  # "were afraid of ⟨3⟩", "were in the service of ⟨3⟩"
    apposed = _APPOSED.match(rest)
    if apposed is not None:
        noun = _singular(apposed.group("noun") or apposed.group("noun2"))
        if noun is None:
            return None
        if apposed.group("noun"):
            adj = apposed.group("adj")
            said = f"{_article(apposed.group('the'), adj or noun)}{adj}{noun} {apposed.group('prep')} {apposed.group('owner')}"
        else:
            said = f"{apposed.group('owned')} {apposed.group('adj2')}{noun}"
        return f", {said}{apposed.group('end') or apposed.group('end2')}{rest[apposed.end():]}"
    return None


def list_readings(clause: str) -> list[str]:
    """The clause once per member of the list it opens with, when its predicate is a role or a state held
    towards someone else: "⟨0⟩ and ⟨1⟩ were the sons of ⟨2⟩" gives "⟨0⟩ was the son of ⟨2⟩" and "⟨1⟩ was the son
    of ⟨2⟩". A verb needs no reading (the patterns give a listed subject's verb to each); a bond among the
    members themselves ("were friends", "hated each other") is none to share."""
    match = _LISTED.match(clause)
    if match is None:
        return []
    members = re.findall(_MEMBER, match.group("list"))
    rest = match.group("rest")
    if not re.search(SLOT, rest) or (_OTHER_LIST.search(rest) and PAIRED_OFF.search(rest)):
        return []  # "⟨0⟩ and ⟨1⟩ were married to ⟨2⟩ and ⟨3⟩" pairs them off: nothing is shared for sure
    said = _predicate(rest)
    if said is None:
        return []
    return [f"{match.group('lead')}{member}{said}".rstrip() for member in members]


# ----------------------------------------------------------------------------------------- people

# A name of a list (a title, up to four capitalised words, an accented capital too: "Émile"; never "I"), and at
# most eight names before the last, bounded so that a paragraph of names is not read again to its end from
# every one of them.
_NAME = rf"(?:{DOTTED}\s+)?(?!I\b)[{UPPER}][\w'’-]*(?:\s+[{UPPER}][\w'’-]*){{0,3}}"
_LIST_AFTER = re.compile(rf"(?:,\s+(?:and\s+)?(?:the\s+)?(?:(?:little|old|young|poor)\s+)?{_NAME}){{0,8}},?\s+and\s+"
                         rf"(?:the\s+)?(?:(?:little|old|young|poor)\s+)?{_NAME}(?![\w'’])")
_PLURAL_ROLES = (r"sons|daughters|children|brothers|sisters|cousins|friends|servants|wives|husbands|nephews|nieces|allies|"
                 r"enemies|rivals|companions|members")
# ", the friends of Mr. Hale," / ", Ann's sons," / " were Ann's sons": a plural role said of the list before it
_ROLES_AFTER = re.compile(rf"(?:,|\s+(?:were|are|had\s+been|have\s+been|became|remained))\s+(?:(?:both|all|also)\s+)?"
                          rf"(?:(?:the\s+)?(?:[a-z]+\s+)?(?:{_PLURAL_ROLES})\s+(?:of|to)\s"
                          rf"|(?:the\s+)?{_NAME}['’]s?\s+(?:[a-z]+\s+)?(?:{_PLURAL_ROLES})\b)")
_OWNS_ROLES = re.compile(rf"['’]s?\s+(?:[a-z]+\s+)?(?:{_PLURAL_ROLES})\b")
_WERE_ROLES = re.compile(r"\s+(?:were|are|had\s+been|have\s+been|became|remained)\s+(?:(?:both|all|also)\s+)?(?:the\s+)?"
                         r"(?:[a-z]+\s+)?(?:sons|daughters|children|brothers|sisters|cousins|friends|servants|wives|"
                         r"husbands|nephews|nieces|allies|enemies|rivals|companions|members)\s+(?:of|to)\s")
# "the sons of Ann", "the sister of Tom and Will": whose the children, friends or servants are (a list after the
# role's "of" is every one of its names)
_ROLES_OF = re.compile(r"\b(?:sons|daughters|children|brothers|sisters|cousins|friends|servants|nephews|nieces|allies|"
                       r"enemies|rivals|companions)\s+of\s+(?:the\s+)?$"
                       rf"|\b(?:son|daughter|child|brother|sister|cousin|friend|servant|nephew|niece|wife|husband|mother|"
                       rf"father|aunt|uncle|ally|enemy|rival|companion)s?\s+of\s+(?:the\s+)?(?:{_NAME},\s+)*{_NAME},?\s+"
                       rf"and\s+(?:the\s+)?$")

_OPENERS = frozenset({
    "outside", "inside", "indoors", "outdoors", "upstairs", "downstairs", "overhead", "below", "above", "beyond",
    "afterwards", "afterward", "anyway", "anyhow", "nevertheless", "nonetheless", "otherwise", "likewise", "besides",
    "meantime", "there", "here", "everywhere", "somewhere", "elsewhere", "alas", "well", "why", "oh", "ah", "so",
    "still", "instead", "beside", "behind", "downstream", "ashore", "aboard", "abroad", "tonight", "today",
})
"""Words that open a sentence with a comma after them ("Outside, Tom and Will ..."), capitalised by position."""


def list_end(paragraph: str, end: int) -> int:
    """Where the list a name at ``end`` begins or goes on ends ("Athos|, Porthos and Aramis| were"), or ``end``
    itself when no list follows it, or when the list's last name owns what comes next ("Tom and Will's mother")."""
    match = _LIST_AFTER.match(paragraph, end)
    if match is None or match.group().endswith(("'", "’", "'s", "’s")):
        return end  # the last name owns what follows: it is no predicate of the list
    word = re.search(r"\w+$", paragraph[max(0, end - 20):end])
    if word is not None and word.group().casefold() in _OPENERS and paragraph.startswith(",", end):
        return end  # "Outside, Tom and Will were friends": an opening word's capital and comma, not a list's
    return match.end()


def weigh_listed(evidence: Counter[str], head: str, tail: str) -> None:
    """A role said of a list in the plural makes its members people ("Tom and Will were the sons of Ann", "...,
    Ann's sons,"), and one whose children, friends or servants they are is felt as a person ("the sons of Ann")."""
    if _WERE_ROLES.match(tail) or _ROLES_AFTER.match(tail):
        evidence["described"] += 1
    if _ROLES_OF.search(head):
        evidence["felt"] += 1
    if _OWNS_ROLES.match(tail):
        evidence["owns"] += 1  # "Ann's sons"
