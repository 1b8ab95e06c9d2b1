"""Words that say a person is a man or a woman: titles written with a name ("Mrs. Bennet", "Sir Walter") and
the nouns that say what someone is ("a widow", "the butler").

Two readers need them and must agree: the prose reader learns from them who a "he" or a "she" can be
(``fast_extract.genders``), and identity never asks whether "Mr. Garland" is "Mrs. Garland"
(``identity_match``): a husband and a wife share a surname in every family novel, and the question would
invite the player to merge two people. Only words that name a sex outright are here; a first name never is
("Evelyn", "Jean" and "Ashley" are both). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

MALE, FEMALE = "m", "f"

FRENCH_TITLE_SEX: dict[str, str] = {
    **dict.fromkeys(("m", "monsieur", "abbé", "abbe", "comte", "marquis", "vicomte", "duc", "chevalier", "père"), MALE),
    **dict.fromkeys(("mme", "madame", "mlle", "mademoiselle", "comtesse", "marquise", "vicomtesse", "duchesse",
                     "baronne", "mère"), FEMALE),
}
"""The French titles English prose writes ("M. de Treville", "Mme. Bovary", "Mademoiselle de la Mole", "the
Marquise de Merteuil"), and their sex: the readers that list titles of each sex take these in too."""
TITLE_SEX: dict[str, str] = {
    **dict.fromkeys(("mr", "mister", "sir", "lord", "herr", "signor", "senor", "don", "king", "prince",
                     "duke", "count", "baron", "emperor", "uncle", "brother", "father", "master"), MALE),
    **dict.fromkeys(("mrs", "miss", "ms", "lady", "dame", "frau", "signora",
                     "senora", "queen", "princess", "duchess", "countess", "baroness", "empress", "aunt", "sister",
                     "mother", "widow", "mistress"), FEMALE),
    **FRENCH_TITLE_SEX,
}
"""A title's sex, keyed by the title case-folded and without its dot."""


def titles_of(sex: str, table: dict[str, str]) -> frozenset[str]:
    """The titles of ``table`` that say ``sex`` ("m", "monsieur" for ``MALE``)."""
    return frozenset(title for title, said in table.items() if said == sex)


NOUN_SEX: dict[str, str] = {
    **dict.fromkeys(("husband", "brother", "father", "son", "uncle", "nephew", "grandfather", "grandson",
                     "stepfather", "stepson", "widower", "bridegroom", "king", "prince", "butler", "valet",
                     "footman", "manservant", "half-brother", "brother-in-law", "father-in-law", "son-in-law"), MALE),
    **dict.fromkeys(("wife", "sister", "mother", "daughter", "aunt", "niece", "grandmother", "granddaughter",
                     "stepmother", "stepdaughter", "widow", "bride", "queen", "princess", "maid", "housemaid",
                     "governess", "nursemaid", "half-sister", "sister-in-law", "mother-in-law", "daughter-in-law"),
                   FEMALE),
}
"""A role or kin noun's sex: "his wife, Emma" says Emma is a woman."""


SEX_ATTRIBUTE: dict[str, str] = {"male": MALE, "man": MALE, "m": MALE, "female": FEMALE, "woman": FEMALE, "f": FEMALE}
"""A node's ``gender`` attribute, as an imported story writes it ("male", "female") or an author might."""


def sex_of_words(words: Iterable[str], table: dict[str, str]) -> str | None:
    """``MALE`` or ``FEMALE`` when the words in ``table`` all say the same, else None (none, or they disagree)."""
    found = {table[word] for word in words if word in table}
    return next(iter(found)) if len(found) == 1 else None


def opposite(one: str | None, other: str | None) -> bool:
    """Whether two sexes are known and differ."""
    return one is not None and other is not None and one != other
