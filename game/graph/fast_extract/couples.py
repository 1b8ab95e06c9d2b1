"""A married couple named at once by their titles: "Mr. and Mrs. Bennet", "Monsieur and Madame Bovary".

English (and French) prose writes a husband and wife as one phrase with one surname, and the phrase names two
people: the readers, which find people one name at a time, saw only "Mrs. Bennet". The phrase is written out as
the two names it stands for ("Mr. Bennet and Mrs. Bennet"), so that each reader finds both, a list's verb is
read for both ("had five daughters"), and the pair is kin: the phrase itself says they are husband and wife.
Text only (the readers look the names up): it imports nothing of the readers, so the gazetteer can
expand a text before it looks up its names. Pure: no I/O.
"""

from __future__ import annotations

import re

_HIS = r"Mr\.?|Monsieur|M\.|Herr|Signor"
_HERS = r"Mrs\.?|Madame|Mme\.?|Frau|Signora"
# the surname: capitalised words, a particle allowed ("Monsieur and Madame de Rênal")
_SURNAME = r"(?:(?:de|du|de\s+la|von|van)\s+)?[A-ZÀ-ÖØ-Þ][\w'’-]+(?:\s+[A-ZÀ-ÖØ-Þ][\w'’-]+)?"
_COUPLE = re.compile(rf"\b(?P<his>{_HIS})\s+and\s+(?P<hers>{_HERS})\s+(?P<surname>{_SURNAME})")
# the phrase as written out, to find the pair again after the text was expanded
_WRITTEN_OUT = re.compile(rf"\b(?P<his>{_HIS})\s+(?P<one>{_SURNAME})\s+and\s+(?P<hers>{_HERS})\s+(?P<two>{_SURNAME})")


def expanded(text: str) -> str:
    """``text`` with each "Mr. and Mrs. X" written out as "Mr. X and Mrs. X"."""
    if " and " not in text:
        return text
    return _COUPLE.sub(lambda m: f"{m.group('his')} {m.group('surname')} and {m.group('hers')} {m.group('surname')}", text)


def couples(sentence: str) -> list[tuple[str, str]]:
    """The husband's and the wife's names of each written-out couple of ``sentence`` (``(his, hers)``)."""
    if " and " not in sentence:  # every unit of every turn passes here: most hold no couple at all
        return []
    return [(f"{m.group('his')} {m.group('one')}", f"{m.group('hers')} {m.group('two')}")
            for m in _WRITTEN_OUT.finditer(sentence) if m.group("one") == m.group("two")]  # not "Mr. Darcy and Mrs. Bennet"
