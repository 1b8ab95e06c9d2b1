"""Whose "his" or "her" is, when it owns a role noun set beside a name ("her sister Beth", "his man Jup").

Prose names people by what they are to someone whose name it does not repeat: "Meg walked home with her
sister Beth", "Mr. Fogg and his servant Passepartout", "he went to see his old friend the Rat". Read as
``⟨owner⟩'s sister ⟨Beth⟩`` the role patterns state the bond. The owner is taken only when it is plain:
the one person named before it in the sentence (the name set beside the role aside), else the one person
the last naming sentence named, and a
title that says a person is a man or a woman ("Mrs.", "Sir") rules them out for the other pronoun. Two
people who could own it mean nobody ("followed by Bessie and her maid Abbot" may be Bessie's maid or
Mrs. Reed's): precision comes first. "Her man" is not read as a servant: it is as often a husband.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.gazetteer import Entity
from game.graph.fast_extract.genders import Genders
from game.graph.fast_extract.patterns import ADJ, ROLE_NOUNS
from game.graph.names import normalize_name
from game.graph.sexes import FEMALE, FRENCH_TITLE_SEX, MALE, titles_of

# Beside the role nouns: a betrothal's and a servant's words that only ever name a bond when owned.
_OWNED_NOUNS = rf"{ROLE_NOUNS}|fianc[ée]e?|betrothed|intended|man|playmates?|companions?|comrades?|colleagues?|" \
    r"partners?|confidante?|lovers?|sweethearts?|masters?|mistress|landlady|landlord|pupils?|tutor|wards?|guardian"
POSSESSIVE = re.compile(rf"\b(?P<pronoun>his|her)\s+(?P<role>{ADJ}(?:{_OWNED_NOUNS}))(?![\w'-])(?P<gap>,?\s+(?:the\s+|old\s+|young\s+|little\s+|poor\s+)?|(?=[.;!?]|$))")
"""A possessive pronoun, its role noun, and what may stand before the name set beside it."""
_FORMER = re.compile(r"\b(?:former|late|ex|one-time|onetime|sometime|dead)\b")

_TITLED: dict[str, frozenset[str]] = {
    "his": frozenset({"mr", "mister", "sir", "lord", "king", "prince", "duke", "count", "baron", "uncle", "father",
                      "brother", "emperor", "master", "monsieur", "herr", "signor", "don", "captain"})
    | titles_of(MALE, FRENCH_TITLE_SEX),
    "her": frozenset({"mrs", "miss", "ms", "madame", "mademoiselle", "lady", "mistress", "queen", "princess",
                      "duchess", "countess", "baroness", "aunt", "mother", "sister", "empress", "widow", "dame"})
    | titles_of(FEMALE, FRENCH_TITLE_SEX),
}


def may_own(pronoun: str, entity: Entity) -> bool:
    """Whether ``pronoun`` ("his" or "her") may be ``entity``'s: not when a title says the other sex, nor
    when the node's pronouns do."""
    first = normalize_name(entity.name).replace(".", "").split()[:1]
    other = "her" if pronoun == "his" else "his"
    if set(first) & _TITLED[other]:
        return False
    if entity.pronouns:
        words = set(re.findall(r"[a-z-]+", entity.pronouns))
        mine = {"his": {"he", "him", "his", "male", "man", "m"}, "her": {"she", "her", "hers", "female", "woman", "f"}}
        return bool(words & mine[pronoun])
    return True


def owner_of(pronoun: str, before: list[tuple[int, int, Entity]], beside: Entity, context: list[Entity],
             genders: Genders | None = None) -> Entity | None:
    """The one person ``pronoun`` can be, or None. ``before`` holds ``(start, end, entity)`` of the people
    named earlier in the sentence, in order; ``beside`` is the person the role is set beside (never their
    own owner); ``context`` the last naming sentence's people; ``genders`` what the text says of whose sex
    ("Catherine and Heathcliff ... her husband": not Heathcliff's, once the text has called him "he")."""
    def fitting(among: list[Entity]) -> dict[str, Entity]:
        mine = [who for who in among if may_own(pronoun, who)]
        return {who.id: who for who in (genders.narrowed(pronoun, mine) if genders is not None else mine)}

    people = [who for _, _, who in before if who.type == "individual" and who.id != beside.id]
    unique = fitting(_distinct(people))
    if not people:
        unique = fitting(_distinct([who for who in context if who.id != beside.id]))
    return next(iter(unique.values())) if len(unique) == 1 else None


def _distinct(people: list[Entity]) -> list[Entity]:
    return list({who.id: who for who in people}.values())


def ended(role: str) -> bool:
    """Whether a role is one that has ended ("his former servant", "her late husband"): no bond now."""
    return bool(_FORMER.search(role))
