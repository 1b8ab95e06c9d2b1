"""Names with lowercase parts: "Gaspard de Coligny", "d'Artagnan", "M. de Treville", "Mademoiselle de la Mole".

The people reader finds a name as a run of capitalised words (``NAME_RUN``). French, Dutch, German, Italian
and Spanish names hold lowercase particles ("de", "van", "von", "della", "de la") and elided ones
("d'Artagnan", "d'Urberville"), and French titles come with a full stop ("M.", "Mme.") or none
("Monsieur", "Madame", "Mademoiselle", "Abbé"). Read as English capitals alone, "d'Artagnan" is no word
and "M. de Treville" is "Treville": the run here lets a particle join a name only where a name stands on
both sides of it, or after a title, so a lowercase word never starts a name unless it is a particle that
no English sentence uses ("de", "du", "von": never "van", which is a vehicle, nor "la" or "le"). An
English "d'" only ever ends a word ("I'd"), so "d'" before a capital starts one. Pure: no I/O.
"""

from __future__ import annotations

import re

UPPER = "A-ZÀ-ÖØ-Þ"
"""A capital, accented ones too ("Émile", "Ángel"): a name may start with any of them."""
CAP = rf"(?:d['’])?[{UPPER}][\w'’]*(?:-[{UPPER}]?[\w'’]+)*"
"""A capitalised word of a name, an elided "d'" before it allowed ("d'Artagnan", "d'Urberville")."""
DOTTED = r"(?:Mr|Mrs|Ms|Dr|St|Capt|Prof|Col|Gen|Lt|Sgt|Hon|Rev|Mme|Mlle|M)\."
"""Titles written with a full stop ("Mr.", "Mme.", "M."): the stop is the title's, not a sentence's."""
INITIALS = rf"(?:[{UPPER}]\. )*"  # "R. M. Renfield", "Mr. Quincey P. Morris"
JOIN = (r"(?:de\s+la|de\s+las|de\s+los|van\s+der|van\s+den|von\s+der|von\s+und\s+zu|della|del|des|von|van|de|da|"
        r"di|du|der|den|le|la|zu|ibn|of)")
"""Lowercase words that join two parts of one name ("Ludwig van Beethoven", "Mademoiselle de la Mole",
"Count von Kramm", "King of Bohemia"): only ever between a name's words, or after a title."""
LEAD = r"(?:de\s+la|de|du|von\s+der|von|van\s+der|van\s+den)"
"""Particles that may open a name written without its first name or title ("de Treville", "von Kramm"):
words English never writes in lower case before a capital ("van" and "la" it does: "the van Tom drove")."""
NAME_RUN = re.compile(rf"(?<![\w'’.])(?<![\w'’.]-)(?:[Tt]he )?(?:(?:{LEAD}|van) |(?:{DOTTED} (?:{JOIN} )?)?{INITIALS})"
                      rf"{CAP}(?: (?:{JOIN} )?(?:{DOTTED} )?{INITIALS}{CAP})*")
"""A run of a name's words: capitals, the particles between them, the titles and initials before them."""
FRENCH_TITLES = frozenset({"m", "mme", "mlle", "monsieur", "madame", "mademoiselle", "abbé", "abbe", "comte",
                           "comtesse", "marquis", "marquise", "vicomte", "vicomtesse", "duc", "duchesse",
                           "chevalier", "baronne", "père", "mère"})
"""Titles French names carry in English prose ("M. de Treville", "Abbé Pirard", "the Marquis de la Mole"):
before a name they make it a person's, as "Mr." does; alone ("Monsieur", "Madame") they only address."""
SHORT_TITLES = {"m": "monsieur", "mme": "madame", "mlle": "mademoiselle", "abbe": "abbé"}
"""A French title's short or unaccented form and the title it is: "M. d'Artagnan" and "Monsieur d'Artagnan" are
one man, as "Mr. Hale" and "Mr Hale" are."""
PARTICLE_WORDS = frozenset({"de", "la", "las", "los", "van", "der", "den", "von", "und", "zu", "della", "del",
                            "des", "da", "di", "du", "le", "ibn"})
"""The lowercase words of ``JOIN`` but "of": a name's words between its capitals, never a name alone."""
_ELIDED = re.compile(rf"d['’][{UPPER}]")
_LOOSE = re.compile(rf"(?:{JOIN} )+")
_LEADING = re.compile(rf"{LEAD} [{UPPER}]")
_VAN = re.compile(rf"van [{UPPER}]")
# What makes "van" a vehicle: a determiner just before it, or before a word or two that describe it ("the
# van Tom drove", "a removal van Harris owned", "the old red van Ann hired"); a verb between them is no
# describing word ("the man trusted van Helsing", "the man saw van Helsing").
_VERB = r"[a-z]{2,}(?:ed|s)|saw|met|knew|told|found|heard|left|sent|brought|took|gave|thought|felt|led|sought|fought|was|had"
_VEHICLE_BEFORE = re.compile(r"\b(?i:the|a|an|this|that|these|those|his|her|my|our|your|their|its|whose|one|each|"
                             rf"every|no|some|any|another|which|what)\s+(?:(?!(?:{_VERB})\s)[a-z-]+\s+){{0,2}}$")


def loose_particles(run: str, before: str = "") -> int:
    """How much of a run's start is particles no name opens with, left where an opening word was cut off it
    ("The van Tom drove" is "van Tom" once "The" is gone; "the King of France" gives "of France"): 0 when it
    opens with a capital or with a particle that may open a name ("de Treville"). A lowercase "van" opens a
    name ("Lucy trusted van Helsing") but where ``before``, the text before the run, makes it a vehicle."""
    loose = _LOOSE.match(run)
    if loose is None or _LEADING.match(run):
        return 0
    if _VAN.match(run) and not _VEHICLE_BEFORE.search(before[-40:]):
        return 0
    return loose.end()


def written_as_name(word: str) -> bool:
    """Whether ``word`` is written as a name's word: with a capital, or a capital after "d'" ("d'Artagnan")."""
    return word[:1].isupper() or _ELIDED.match(word) is not None


def surname_forms(cores: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """Each untitled name of ``cores`` (name -> its words, titles off) that is a surname with its particle
    ("de Coligny", "van Beethoven", "de la Mole"), and the one longer name that ends in those words ("Gaspard
    de Coligny"), when only one does. Two of them ("Gaspard" and "Louise de Coligny") leave it its own name;
    a titled one ("Madame de Rênal") is left apart as a bare titled surname is: she may be a kinswoman."""
    # Each name under the particle-led tails of its words, so a long cast costs one pass, never a pass each.
    ending: dict[tuple[str, ...], list[str]] = {}
    for name, core in cores.items():
        for start in range(1, len(core) - 1):
            if core[start] in PARTICLE_WORDS:
                ending.setdefault(core[start:], []).append(name)
    found: dict[str, str] = {}
    for name, core in cores.items():
        longer = ending.get(core, [])
        if len(core) >= 2 and core[0] in PARTICLE_WORDS and words(name)[0] == core[0] and len(longer) == 1:
            found[name] = longer[0]
    return found


def words(name: str) -> list[str]:
    """A name's words, case-folded, without their full stops ("M. de Treville" is "m", "de", "treville")."""
    return [w.strip(".").casefold() for w in re.findall(r"[\w'’.-]+", name)]
