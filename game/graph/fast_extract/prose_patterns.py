"""Relation phrases of novels and stories, beside ``patterns``' plain ones (issue 26).

Prose says what people are to each other in appositions and compounds ("my friend and colleague, Dr.
Watson", "second daughter of the King of Scandinavia"), in betrothals and marriages ("about to be married
to Clotilde"), acquaintance ("made the acquaintance of the well-known adventuress, Irene Adler") and
threats. Dialogue reaches these patterns with "I" and "you" already replaced by the speaker and the one
spoken to (``quotes``), so "my friend" reads as the speaker's friend. A marriage is ``KIN_OF`` (a spouse
is kin, as ``patterns`` reads "his wife"); a betrothal is ``ENGAGED_TO``, a relation the default
vocabulary does not know and keeps as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from game.graph.fast_extract.patterns import (
    ADJ,
    ADV,
    BE,
    KIN,
    NAMES_ANOTHER,
    OBJ,
    SERVANT,
    SLOT,
    SUBJ,
    Pattern,
    Shape,
)

_LIST = rf"{SLOT}(?:(?:,\s*(?:the\s+)?{SLOT})*,?\s+and\s+(?:the\s+)?{SLOT})?"
_COUNT = r"a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|several|many"
_CHILDREN = r"sons?|daughters?|children|child|boys?|girls?"
_PLAIN_KIN = ("sister", "brother", "mother", "father", "son", "daughter", "wife", "husband", "cousin", "aunt",
              "uncle", "niece", "nephew", "sisters", "brothers", "sons", "daughters")
# "the sister of Tubalcain was Naamah": patterns start at a name, so the kin noun before it is looked
# behind for, one fixed-width look-behind per noun.
_KIN_OF_BEFORE = "(?:" + "|".join(rf"(?<=\b{noun}\sof\s)" for noun in _PLAIN_KIN) + ")"
# A possessive's kin noun ends the phrase: "Mira told Tomas her brother was dead" is news about a brother.
_KIN_ENDS = r"(?![\w-]|\s+(?:will|would|could|might|may|can|is|was|are|were|has|had|have|did|does|do|should|must|shall)\b)"
_WORDS = r"(?:[a-z][\w'-]*\s+){1,3}?"

_THE = r"(?:the\s+)?"
_BOND = r"friend|companion|colleague|partner|comrade|helper|confidant|confidante|ally"
# "friend and colleague", "partner and helper": two bond nouns are one bond.
_BONDS = rf"{ADJ}(?:[a-z]+\s+)?(?:{_BOND})(?:\s+and\s+{ADJ}(?:{_BOND}))?(?!['’]s)"
"""One word of praise may stand before the bond ("Ratty, my generous friend!"); "friend's" is another's."""
_PERSON = rf"{_THE}(?P<x>{SLOT})"
_OWNER = rf"{_THE}(?P<y>{SLOT})"
# "the well-known adventuress, Irene Adler": a few words of description, then the name.
_DESCRIBED = r"(?:(?:the|a|an|his|her|their)\s+(?:[\w-]+\s+){0,3}?(?:[\w-]+,\s+|named\s+|called\s+))?"


def _compile(body: str) -> re.Pattern[str]:
    return re.compile(body)


PROSE: tuple[Pattern, ...] = (
    # Tomas's friend and colleague, Dr. Watson / Dr. Watson, Tomas's old friend and companion
    Pattern("prose", "ALLY_OF", _compile(rf"{_OWNER}'s?\s+{_BONDS},?\s+{_PERSON}(?!')"), 0.65, anywhere=True, phrase=True),
    Pattern("prose", "ALLY_OF", _compile(rf"{_PERSON},\s+{_OWNER}'s?\s+{_BONDS}\b"), 0.65, anywhere=True, phrase=True),
    # Lord Henry, an old Oxford friend of Basil's / Lord Henry, Dorian, an old friend of mine: a friend "of" someone
    # in apposition, a word of description and a called name allowed (not "a friend of Basil's sister")
    Pattern("prose", "ALLY_OF", _compile(rf"{_PERSON},\s+(?:[a-z]+,\s+)?(?:a|an|the)\s+{ADJ}(?:[a-z]+\s+)?(?:{_BOND})\s+"
                                         rf"of\s+{_OWNER}(?:'s?(?=\s*(?:$|[,.;:!?])))?(?!['’])"), 0.6, anywhere=True,
            phrase=True),
    # Wilson has been Holmes's partner and helper
    Pattern("prose", "ALLY_OF", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}{_OWNER}'s?\s+{_BONDS}\b"), 0.65),
    # he found in Sir Francis Cromarty an enthusiastic ally: who one finds a friend in
    Pattern("prose", "ALLY_OF", _compile(rf"{SUBJ}\s+{ADV}(?:found|finds|had\s+found|has\s+found)\s+in\s+{_THE}(?P<y>{SLOT})"
                                         rf"\s+(?:a|an)\s+{ADJ}(?:[a-z]+\s+)?(?:{_BOND})\b"), 0.6),
    # Scrooge and Marley were partners
    Pattern("prose", "ALLY_OF", _compile(rf"{_THE}(?P<x>{SLOT}(?:,\s*{_THE}{SLOT})*,?\s+and\s+{_THE}{SLOT})\s+{ADV}"
                                         rf"(?:are|were|have\s+been|had\s+been)\s+{ADV}{ADJ}(?:partners|companions|"
                                         rf"comrades|colleagues)\b{NAMES_ANOTHER}"), 0.6, Shape.MUTUAL),
    # Clotilde, second daughter of the King of Scandinavia / the daughter of / the wife of
    Pattern("prose", "KIN_OF", _compile(rf"{_PERSON},\s+(?:the\s+|a\s+|an\s+)?{ADJ}(?:{KIN})\s+of\s+{_OWNER}(?!')"),
            0.65, anywhere=True),
    # The King is about to be married to Clotilde; Mira is engaged (betrothed) to Tomas
    Pattern("prose", "ENGAGED_TO", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}(?:about\s+to\s+be|soon\s+to\s+be|to\s+be|"
                                            rf"going\s+to\s+be)\s+(?:married|wed)\s+to\s+{_DESCRIBED}{OBJ}"), 0.65),
    Pattern("prose", "ENGAGED_TO", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}(?:engaged|betrothed|affianced|promised)\s+"
                                            rf"(?:in\s+marriage\s+)?to\s+{_DESCRIBED}{OBJ}"), 0.65),
    Pattern("prose", "ENGAGED_TO", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}(?:about\s+|going\s+|soon\s+)?to\s+(?:marry|wed)\s+"
                                            rf"{_DESCRIBED}{OBJ}"), 0.6),
    Pattern("prose", "ENGAGED_TO", _compile(rf"{_OWNER}'s?\s+{ADJ}(?:fianc[ée]e?|betrothed|intended|bride-to-be)"
                                            rf",?\s+{_PERSON}(?!')"), 0.65, anywhere=True, phrase=True),
    # Edith accepted Frank's proposal (his hand, his offer of marriage): a proposal alone is no betrothal
    Pattern("prose", "ENGAGED_TO", _compile(rf"{SUBJ}\s+{ADV}(?:accepted|accepts|has\s+accepted|had\s+accepted)\s+"
                                            rf"{_OWNER}'s?\s+(?:proposal|hand|offer\s+of\s+marriage|suit)\b"), 0.6),
    # Irene Adler is married to Godfrey Norton; Mira married Tomas
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}(?:married|wed)\s+to\s+{_DESCRIBED}{OBJ}"), 0.65),
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}(?:married|wed|wedded|espoused|has\s+married|had\s+married)\s+"
                                        rf"{_DESCRIBED}{OBJ}(?!\s+to\b)"), 0.6),
    # Heath took Cathy to wife; Harold took a wife, Frances ("married a wife named Ann"): a marriage said with
    # the spouse's word ("took Ann as his cook" is no marriage, "took a wife" without a name none to read)
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}(?:took|takes|taken)\s+{_THE}(?P<y>{SLOT})\s+(?:to|for|as)\s+"
                                        rf"(?:(?:his|her|a)\s+)?(?:wife|husband)\b"), 0.6),
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}(?:took|takes|married|marries)\s+(?:a|an)\s+{ADJ}(?:[a-z]+\s+)?"
                                        rf"(?:wife|husband)(?:,|\s+named|\s+called)\s+(?P<y>{SLOT})(?!['’])"
                                        rf"(?=\s*(?:$|[,.;:!?]|\s+(?:who|and|but)\b))"), 0.6),
    # The King made the acquaintance of the well-known adventuress, Irene Adler
    Pattern("prose", "KNOWS", _compile(rf"{SUBJ}\s+{ADV}(?:made|make|makes|has\s+made|had\s+made)\s+the\s+"
                                       rf"acquaintance\s+of\s+{_DESCRIBED}{OBJ}"), 0.6),
    # The captain threatened the doctor; Irene Adler threatens to ruin the King
    Pattern("prose", "ENEMY_OF", _compile(rf"{SUBJ}\s+{ADV}(?:threatened|threatens|threaten)\s+(?:to\s+[a-z]+\s+)?"
                                          rf"{OBJ}"), 0.55),
    # Shem, Ham, and Japheth, the sons of Noah (a list in apposition: in the plural, as "Ann and Tom, the son of
    # Will" is Tom's alone)
    Pattern("prose", "KIN_OF", _compile(rf"(?P<x>{SLOT}(?:,\s*{SLOT})*,?\s+and\s+{SLOT}),\s+the\s+{ADJ}(?:{KIN}|wives|husbands)(?<=s)\s+of\s+"
                                        rf"{_OWNER}(?!')"), 0.65, anywhere=True),
    # (he married) the second daughter of Sir Walter Ellis, Clara: the name after is the kin (a list is not)
    Pattern("prose", "KIN_OF", _compile(rf"{_KIN_OF_BEFORE}{_THE}(?P<y>{SLOT}),\s+{_THE}(?P<x>{SLOT})(?!')"
                                        rf"(?=\s*(?:$|[.;:!]|,\s+(?:who|whom|whose|a|an|the)\b|\s+(?:who|was|is|had|has)\b))"), 0.6,
            anywhere=True, phrase=True),
    # the sister of Tubalcain was Naamah
    Pattern("prose", "KIN_OF", _compile(rf"{_KIN_OF_BEFORE}(?P<x>{SLOT})\s+{BE}{_THE}(?P<y>{SLOT})(?!')"), 0.6,
            anywhere=True),
    # Adam knew Eve his wife; Cain rose up against Abel his brother: the possessive is the subject's
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}{_WORDS}{_THE}(?P<y>{SLOT}),?\s+(?:his|her|their)\s+{ADJ}"
                                        rf"(?:{KIN}){_KIN_ENDS}"), 0.6),
    # Mr. Bennet and his wife Anne / Bessie and her sister Eliza: as a subject only ("Mira met Tomas and her
    # brother Oren" is Mira's brother)
    Pattern("prose", "KIN_OF", _compile(rf"{_THE}(?P<x>{SLOT})\s+and\s+(?:his|her)\s+{ADJ}(?:{KIN}),?\s+{_THE}"
                                        rf"(?P<y>{SLOT})(?!')"), 0.6),
    # Irad begat Mehujael; Adah bare Jabal; Noah begat Shem, Ham, and Japheth
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}(?:begat|begot|begets|beget|bare|fathered|mothered|gave\s+"
                                        rf"birth\s+to|was\s+the\s+father\s+of|was\s+the\s+mother\s+of)\s+{OBJ}"), 0.65),
    # Mr. Hale had two daughters, Clara and Maud; Jesse begat three sons, Eliab, Abinadab and Shammah: a
    # number of children, then their names, is each of them the subject's child (a name after a verb of its
    # own is no list: "had two sons, Tom said" stops at Tom)
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}(?:had|has|have|begat|begot|bare|bore|left|raised)\s+"
                                        rf"(?:{_COUNT})\s+{ADJ}(?:{_CHILDREN})(?:,|\s+named|\s+called)\s+"
                                        rf"(?:namely\s+)?(?P<y>{_LIST})(?!['’])"
                                        rf"(?=\s*(?:$|[.;:!]|,\s+(?:who|whom|whose|both|all|the|a|an|and)\b|\s+(?:who|both|all)\b))"),
            0.6),
    # Adam begat a son ..., and called his name Seth; she bare a son, and called his name Seth
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}(?:begat|bare|had|bore)\s+(?:a|another)\s+(?:son|daughter|child)"
                                        rf"[^⟨]{{0,80}}?\b(?:called|named)\s+(?:his|her)\s+name\s+{OBJ}"), 0.6),
    # (Adam begat a son ...;) and called his name Seth: naming a child, with the subject carried over
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}(?:called|named)\s+(?:his|her)\s+name\s+{OBJ}"), 0.55),
    # unto Enoch was born Irad
    Pattern("prose", "KIN_OF", _compile(rf"(?:(?<=unto\s)|(?<=\bto\s))(?P<x>{SLOT})\s+(?:was|were)\s+born\s+{OBJ}"),
            0.6, anywhere=True),
    # Adam called his wife's name Eve
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}(?:called|named)\s+(?:his|her)\s+{ADJ}(?:{KIN})'s\s+name\s+"
                                        rf"{OBJ}"), 0.6),
    # Cain rose up against Abel; Cain slew Abel; Abel, whom Cain slew
    Pattern("prose", "ENEMY_OF", _compile(rf"{SUBJ}\s+{ADV}(?:rose\s+up\s+against|rises\s+up\s+against|slew|slays|"
                                          rf"murdered|murders)\s+{OBJ}"), 0.55),
    Pattern("prose", "ENEMY_OF", _compile(rf"{_THE}(?P<y>{SLOT}),\s+whom\s+{_THE}(?P<x>{SLOT})\s+{ADV}(?:slew|murdered|"
                                          rf"had\s+slain|had\s+murdered)\b"), 0.55, anywhere=True),
    # Lamech said unto his wives, Adah and Zillah / Mira wrote to her brother, Tomas: the possessive is the
    # subject's when it is whom the subject turns to ("Sera loves his sister Elin" is Oren's sister)
    Pattern("prose", "KIN_OF", _compile(rf"{SUBJ}\s+{ADV}{_WORDS}(?:(?<=\bto\s)|(?<=\bunto\s))(?:his|her|their)\s+{ADJ}(?:{KIN}|wives|husbands),?\s+"
                                        rf"(?P<y>{_LIST})(?!['’])"), 0.6),
    # Mother Wolf told him once or twice that Shere Khan was not a creature to be trusted ("untrustworthy")
    Pattern("prose", "DISTRUSTS", _compile(rf"{SUBJ}\s+{ADV}(?:told|tells|warned|warns)\s+(?:[a-z]+\s+){{0,5}}?that\s+"
                                           rf"{_OWNER}\s+{BE}untrustworthy\b"), 0.55),
    Pattern("prose", "DISTRUSTS", _compile(rf"{SUBJ}\s+{ADV}(?:thinks|thought|knows|knew|believes|believed|said|says)\s+"
                                           rf"(?:that\s+)?{_OWNER}\s+{BE}untrustworthy\b"), 0.55),
    # Mr. Ashby engaged Dick Hale as his valet; the Count took Jonathan on as his clerk: hiring for a post
    Pattern("prose", "EMPLOYS", _compile(rf"{SUBJ}\s+{ADV}(?:engaged|engages|hired|hires|employed|employs|retained|"
                                         rf"took\s+on|takes\s+on|took|takes)\s+{_THE}(?P<y>{SLOT})\s+(?:on\s+)?as\s+"
                                         rf"(?:his|her|their|a|an|the)\s+{ADJ}(?:{SERVANT}|man|cook|nurse|groom|"
                                         rf"page|companion|tutor|assistant)\b"), 0.65),
    # Dick Hale was engaged as a valet by Mr. Ashby; Dick entered the service of Mr. Ashby (or his service)
    Pattern("prose", "SERVES", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}(?:engaged|hired|employed|taken\s+on)\s+as\s+(?:a|an|"
                                        rf"the|his|her)\s+{ADJ}(?:{SERVANT}|cook|nurse|groom|page|tutor)\s+by\s+{OBJ}"),
            0.6),
    Pattern("prose", "SERVES", _compile(rf"{SUBJ}\s+{ADV}(?:entered|enters|went\s+into|goes\s+into|took|takes)\s+"
                                        rf"(?:(?:into\s+)?the\s+service\s+of|service\s+with)\s+{OBJ}"), 0.6),
    Pattern("prose", "SERVES", _compile(rf"{SUBJ}\s+{ADV}(?:entered|enters|went\s+into|goes\s+into)\s+"
                                        rf"{_OWNER}'s?\s+service\b"), 0.6),
    # Colin, whose father was Mr. Craven: a kinsman named in a relative clause of the one it describes
    Pattern("prose", "KIN_OF", _compile(rf"{_PERSON},?\s+whose\s+{ADJ}(?:{KIN})\s+(?:was|is|had\s+been|has\s+been)\s+"
                                        rf"{_OWNER}(?!['’])"), 0.6, anywhere=True, phrase=True),
    # Mr. Ashby took Dick Hale into his service
    Pattern("prose", "EMPLOYS", _compile(rf"{SUBJ}\s+{ADV}(?:took|takes|had\s+taken|received|receives)\s+{_THE}(?P<y>{SLOT})"
                                         rf"\s+into\s+(?:his|her|their)\s+(?:service|employ|pay|household)\b"), 0.6),
    # Holmes, who employs Wilson / Wilson is in the employ of Holmes
    Pattern("prose", "SERVES", _compile(rf"{SUBJ}\s+{ADV}{BE}{ADV}in\s+the\s+(?:employ|employment|service|pay)\s+of\s+"
                                        rf"{OBJ}"), 0.65),
)


_TWO = r"(?:two|three|four|twin)"
_FIRST_OF = r"(?:one|first|elder|eldest|older|oldest|boy|girl|son|daughter)"
_OTHER_OF = r"(?:other|second|younger|youngest|girl|boy|son|daughter)"
# "the name of the one was Adah, and the name of the other Zillah"; "the boy was called Hansel and the girl Gretel"
_NAMED_PAIR = re.compile(
    rf"(?:the\s+name\s+of\s+the\s+{_FIRST_OF}\s+(?:was|is)|the\s+{_FIRST_OF}\s+(?:was|is)\s+(?:called|named))\s+"
    rf"(?P<a>{SLOT}),?\s+and\s+(?:the\s+name\s+of\s+)?the\s+{_OTHER_OF}\s+(?:(?:was|is)\s+)?(?:(?:called|named)\s+)?"
    rf"(?P<b>{SLOT})(?!['’])")
_OWNER_OF_PAIR = re.compile(rf"^(?:and\s+)?{_THE}(?P<x>{SLOT})\s+(?:[a-z]+\s+){{1,3}}?{_TWO}\s+(?P<kin>wives|husbands|sons|"
                            rf"daughters|children)\b[^⟨]*$")
_PAIR_KIN = re.compile(rf"\b(?:his|her|their|{SLOT}'s?)\s+{_TWO}\s+(?P<kin>sons|daughters|children|brothers|sisters)\b")


def named_pairs(template: str, before: str) -> list[tuple[str, str, str]]:
    """The kin a sentence names in pairs (as slot numbers ``(a, b, why)``): "Lamech took unto him two wives:
    the name of the one was Adah, and the name of the other Zillah" is Lamech's kin twice; "... with his
    wife and his two children. The boy was called Hansel and the girl Gretel" makes two siblings (``before``
    is the sentence told just before, as a template). Nothing else is read this way."""
    pair = _NAMED_PAIR.search(template)
    if pair is None:
        return []
    a, b = pair.group("a"), pair.group("b")
    found: list[tuple[str, str, str]] = []
    owner = _OWNER_OF_PAIR.match(template[:pair.start()])
    if owner is not None:
        found += [(owner.group("x"), a, "pair"), (owner.group("x"), b, "pair")]
        if owner.group("kin") in {"sons", "daughters", "children"}:
            found.append((a, b, "pair"))
    elif _PAIR_KIN.search(before) or _PAIR_KIN.search(template[:pair.start()]):
        found.append((a, b, "pair"))
    return found


_LISTED_KIN = re.compile(rf"(?P<list>{SLOT}(?:,\s*(?:and\s+)?(?:the\s+)?{SLOT})+),\s+the\s+{ADJ}(?:two\s+|three\s+|four\s+)?"
                         rf"(?:sons|daughters|children|brothers|sisters|wives|husbands)\s+of\s+{_THE}(?P<owner>{SLOT})(?!['’])")


# "⟨0⟩ had two children: ⟨1⟩ and ⟨2⟩" (a colon ends a clause, so this is read over the whole sentence); "⟨0⟩ had
# a son, ⟨1⟩, and a daughter, ⟨2⟩": children counted, then named, each in its own phrase
_CHILD_NAMED = rf"(?:{_COUNT})\s+{ADJ}(?:{_CHILDREN})(?:,|\s+named|\s+called)\s+"
_COUNTED_KIN = re.compile(
    rf"(?:^|[,;]\s+|\band\s+)(?:the\s+)?(?P<owner>{SLOT})\s+{ADV}(?:had|has|begat|begot|bare|bore|left|raised)\s+"
    rf"(?:(?:{_COUNT})\s+{ADJ}(?:{_CHILDREN})\s*:\s*(?:namely\s+)?(?P<list>{_LIST})"
    rf"|{_CHILD_NAMED}(?P<first>{SLOT}),?\s+and\s+{_CHILD_NAMED}(?P<second>{SLOT}))"
    rf"(?!['’])(?=\s*(?:$|[.;!]|,\s+(?:who|whom|whose|both|all)\b))")


def listed_kin(template: str) -> list[tuple[str, str, str]]:
    """Each of a list set beside "the sons of X" as X's kin, as slot pairs: "Noah, and Shem, and Ham, and Japheth,
    the sons of Noah" (a list joined by ", and" as well as by commas; the owner in the list is no kin of its own);
    and children counted, then named after a colon or one by one ("had a son, Harold, and a daughter, Cathy")."""
    found: list[tuple[str, str, str]] = []
    for match in _COUNTED_KIN.finditer(template):
        owner = match.group("owner")
        named = re.findall(SLOT, match.group("list")) if match.group("list") else [match.group("first"),
                                                                                   match.group("second")]
        found.extend((owner, one, "counted") for one in named if one != owner)
    if " of " not in template:
        return found
    for match in _LISTED_KIN.finditer(template):
        owner = match.group("owner")
        found.extend((owner, one, "listed") for one in re.findall(SLOT, match.group("list")) if one != owner)
    return found


# "tell your Aunt Agatha", "Dorothy's Uncle Henry": a kin title that is part of a name, owned by someone.
# "Brother" and "Sister" are left out: as titles they are as often a religious order's as a family's.
KIN_TITLE = re.compile(r"^(?:aunt|auntie|aunty|uncle|cousin|grandmother|grandfather|grandmama|grandpapa|granny|"
                       r"grandma|grandpa|great-aunt|great-uncle)\s+\S", re.IGNORECASE)
_OWNED = re.compile(rf"(?P<x>{SLOT})'s?\s+(?P<y>{SLOT})(?!['’])")


def titled_kin(template: str, names: list[str | None]) -> list[tuple[str, str, str]]:
    """The owner of a name that carries a kin title, as slot pairs ``(owner, titled, why)``: "⟨0⟩'s ⟨1⟩"
    with ⟨1⟩ "Aunt Agatha" is ⟨0⟩'s kin. ``names`` holds each slot's name (None when nobody sure)."""
    found: list[tuple[str, str, str]] = []
    for match in _OWNED.finditer(template):
        owner, titled = match.group("x"), match.group("y")
        name = names[int(titled.strip("⟨⟩"))]
        if name is not None and names[int(owner.strip("⟨⟩"))] is not None and KIN_TITLE.match(name):
            found.append((owner, titled, "titled"))
    return found



_THE_TWO = re.compile(r"^(?:(?:and|then|so|now|but)\s+)?(?:the|these|those)\s+two\s+(?:(?:old|young|little|good|faithful|"
                      r"loyal|firm|fast|true)\s+)?(?P<bond>friends|companions|comrades|allies|partners|brothers|sisters|"
                      r"cousins|lovers|enemies|foes|rivals)\b")
_BOND_OF = {"friends": "ALLY_OF", "companions": "ALLY_OF", "comrades": "ALLY_OF", "allies": "ALLY_OF",
            "partners": "ALLY_OF", "brothers": "KIN_OF", "sisters": "KIN_OF", "cousins": "KIN_OF",
            "enemies": "ENEMY_OF", "foes": "ENEMY_OF", "rivals": "RIVAL_OF"}


def the_two(template: str) -> str | None:
    """The bond a sentence opening "The two friends ..." (brothers, enemies, ...) gives the two people it
    refers back to, or None; the caller holds who they are (the two the sentence just before named, and
    no one else). "The two lovers" names no relation the vocabulary keeps."""
    match = _THE_TWO.match(template)
    return _BOND_OF.get(match.group("bond")) if match is not None else None


_BETWEEN = re.compile(rf"\b(?P<bond>friendship|alliance|enmity|feud|rivalry|engagement)\s+(?:[a-z]+\s+){{0,5}}?between\s+"
                      rf"{_THE}(?P<a>{SLOT})\s+and\s+{_THE}(?P<b>{SLOT})(?!['’])")
_BOND_BETWEEN = {"friendship": "ALLY_OF", "alliance": "ALLY_OF", "enmity": "ENEMY_OF", "feud": "ENEMY_OF",
                 "rivalry": "RIVAL_OF", "engagement": "ENGAGED_TO"}
# "what might be called friendship": a hedge on the word, not on the bond
_NAMING_HEDGE = re.compile(r"\b(?:might|may|could|would)\s+(?:well\s+)?be\s+(?:called|named|termed)\s+$")
_ENDED_AFTER = re.compile(r"^[\s,]*(?:[a-z]+\s+){0,3}?(?:ended|broke|was\s+broken|had\s+been\s+broken|was\s+over|ceased|"
                          r"cooled|died|came\s+to\s+an\s+end)\b")


def bonds_between(clause: str, stated: Callable[[str, str], bool]) -> list[tuple[str, str, str]]:
    """The two a clause says a bond stands between, as slot pairs ``(a, b, relation)``: "a friendship existed
    between ⟨0⟩ and ⟨1⟩", "the feud between ⟨0⟩ and ⟨1⟩". ``stated`` is the guard every pattern passes (no
    negation or hedge before, none after); a bond said to end ("the friendship between them ended") is none."""
    found: list[tuple[str, str, str]] = []
    if "between" not in clause:
        return found
    for match in _BETWEEN.finditer(clause):
        before = _NAMING_HEDGE.sub("", clause[:match.start()])
        if not stated(before + match.group(0), clause[match.end():]) or _ENDED_AFTER.match(clause[match.end():]):
            continue
        found.append((match.group("a"), match.group("b"), _BOND_BETWEEN[match.group("bond")]))
    return found


# "The two sisters, Dorothea and Celia, lived ...", "the brothers Tom and Will": a plural that says what each
# listed is to the others, set before the list (never "the sisters of Tom and Will", whose list is the owners)
_NAMED_PLURAL = re.compile(r"\b(?:the|both|two|three)\s+(?:(?:two|three|four|young|little|elder|old|orphan|twin)\s+)*"
                           r"(?P<plural>sisters|brothers|cousins|twins|siblings|friends|comrades|companions|allies)"
                           r",?\s+(?P<list>⟨\d+⟩(?:(?:,\s*⟨\d+⟩)*,?\s+and\s+⟨\d+⟩))(?![\'’])(?=\s*(?:$|[,.;:!?—]|"
                           r"\s+(?:who|were|had|lived|came|sat|stood|went|walked|ran|[a-z]+ed)\b))")
_PLURAL_BOND = {"friends": "ALLY_OF", "comrades": "ALLY_OF", "companions": "ALLY_OF", "allies": "ALLY_OF",
                "servants": "SERVES"}
# "Mr. Earnshaw's children, Hindley and Catherine,": an owner's plural role, then the list who hold it
_OWNED_PLURAL = re.compile(r"(?P<owner>⟨\d+⟩)['’]s?\s+(?:(?:two|three|four|young|little|elder|old|own)\s+)*"
                           r"(?P<plural>sons|daughters|children|brothers|sisters|cousins|nephews|nieces|friends|"
                           r"servants),\s+(?P<list>⟨\d+⟩(?:(?:,\s*⟨\d+⟩)*,?\s+and\s+⟨\d+⟩))(?![\'’])(?=\s*(?:$|[,.;:!?—]))")


def bonds_named(clause: str, stated: Callable[[str, str], bool]) -> list[tuple[str, str, str]]:
    """Every two of a list a plural names before it, as slot pairs ``(a, b, relation)``: "the two sisters, ⟨0⟩
    and ⟨1⟩" are kin, "the friends ⟨0⟩ and ⟨1⟩" allies; and each of a list an owner's plural names towards
    the owner ("⟨0⟩'s children, ⟨1⟩ and ⟨2⟩,"). ``stated`` guards it as every pattern is guarded."""
    found: list[tuple[str, str, str]] = []
    for match in _NAMED_PLURAL.finditer(clause):
        if not stated(clause[:match.end()], clause[match.end():]):
            continue
        members = re.findall(r"⟨\d+⟩", match.group("list"))
        relation = _PLURAL_BOND.get(match.group("plural"), "KIN_OF")
        found.extend((a, b, relation) for number, a in enumerate(members) for b in members[number + 1:])
    for match in _OWNED_PLURAL.finditer(clause):
        if not stated(clause[:match.end()], clause[match.end():]):
            continue
        relation = _PLURAL_BOND.get(match.group("plural"), "KIN_OF")  # each holds the role towards the owner
        found.extend((member, match.group("owner"), relation) for member in re.findall(r"⟨\d+⟩", match.group("list")))
    return found
