"""Whether a person of a text is a "he" or a "she": what the text says, then a first name only one sex bears.

Literary prose rarely names one person a sentence: "Catherine loved Heathcliff, but she married Edgar Linton"
names two before its "she", and the one-individual rule (``extractor``) reads nothing there. What tells them
apart is what the same text has said of each: a gendered title written with the name ("Mrs. Bennet", "Sir
Walter"), a kin or role noun set beside it ("his wife, Emma", "her husband Charles", "Emma, his wife"), and a
pronoun that can only be that name (a narrated sentence naming only Tom and nobody else that goes on "and he
...", or a sentence naming only Tom followed by one opening "He"). A title or a noun is decisive; two
decisive words that disagree leave the person unknown; pronoun evidence counts only when it is all, or
nearly all, one way. Nothing is learned from a quoted line (its "he" is the speaker's frame, not the
narration's). Where the text says nothing decisive, a first name that only one sex bears settles it
(``given_names``: "Charles Bovary married Emma Rouault. He adored her."); a name both bear ("Evelyn", "Jean",
"Ashley") is never guessed at, and pronouns that go only the other way make the name unsure. A person of
unknown gender may be either, so they still compete with every candidate: the rule only ever removes a
candidate, never adds one. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from game.graph.fast_extract.gazetteer import Entity, Mention
from game.graph.given_names import sex_of_given_name
from game.graph.names import normalize_name
from game.graph.sexes import NOUN_SEX, TITLE_SEX

MALE, FEMALE = "m", "f"

# One table of each for both readers (``game.graph.sexes``): they must agree.
_TITLES = TITLE_SEX
_NOUNS = NOUN_SEX
_ADJ = r"(?:(?:own|dear|dearest|beloved|young|old|little|elder|eldest|younger|youngest|late|poor|new|only)\s+)*"
_NOUN = "|".join(sorted(map(re.escape, _NOUNS), key=len, reverse=True))
# "his wife, Emma", "her husband Charles", "Tom's sister Ann", "the widow Douglas": the noun right before the name
_NOUN_BEFORE = re.compile(rf"\b(?P<det>his|her|their|the|[a-z]+'s)\s+{_ADJ}(?P<noun>{_NOUN})(?!['’\w-]),?\s+$")
# "Emma, his wife,", "Charles, her husband", "Adam knew Eve his wife;": the noun set after the name (with no comma
# only when the phrase ends there: "told Mary her mother was dead" gives Mary no role)
_NOUN_AFTER = re.compile(rf"^\s*,?\s+(?P<det>his|her|the|[a-z]+'s)\s+{_ADJ}(?P<noun>{_NOUN})(?!['’\w-])\s*(?:[,.;:!?—]|$)")
_TITLE_BEFORE = re.compile(r"\b(?P<title>[^\W\d_]+)\.?\s+$")  # "abbé" too
_SUBJECT = re.compile(r"\b(?P<pronoun>he|she|his|himself|herself)\b")
# Words after which a "he" is someone the named person speaks, thinks or learns of: "Tom said she was ill".
_REPORTED = re.compile(r"\b(?:that|said|says|told|tells|asked|thought|knew|saw|heard|felt|believed|wondered|"
                       r"found|met|loved|hated|feared|married|whom|if|whether|what|who)\b")
_JOINED = re.compile(r"(?:,|;|\band|\bbut|\bthen|\bso|\bwhen|\bwhile|\bas|\buntil|\btill|\bbecause|\bafter|"
                     r"\bbefore|\bwhere|\bthough)\s*$")
_OPENING = re.compile(r"^[\"'“‘(\s]*(?P<pronoun>he|she|his)\b")
_FEW = 12
_ANY_PRONOUN = re.compile(r"\b(?:he|him|his|himself|she|her|hers|herself)\b")
_CAPITAL = re.compile(r"(?<![\w'’])[A-Z][a-z'’-]+")
_OF_PRONOUN = {"he": MALE, "his": MALE, "himself": MALE, "she": FEMALE, "herself": FEMALE}
PRONOUN_GENDER: dict[str, str] = {"he": MALE, "him": MALE, "his": MALE, "他": MALE,
                                  "she": FEMALE, "her": FEMALE, "hers": FEMALE, "她": FEMALE}
"""The gender a pronoun the extractor resolves asks for ("they" asks for none)."""


@dataclass
class _Evidence:
    decisive: set[str] = field(default_factory=set)
    votes: dict[str, int] = field(default_factory=lambda: {MALE: 0, FEMALE: 0})


@dataclass
class Genders:
    """What one text says of its people's genders, by entity id (``learn``), and what a pronoun may be."""

    evidence: dict[str, _Evidence] = field(default_factory=dict)

    def of(self, entity: Entity) -> str | None:
        """``MALE``, ``FEMALE`` or None (unknown, or the text's decisive words disagree)."""
        found = self.evidence.get(entity.id)
        own = title_sex(entity.name)
        decisive = (found.decisive if found is not None else set()) | ({own} if own else set())
        if decisive:
            return next(iter(decisive)) if len(decisive) == 1 else None
        named = sex_of_given_name(entity.name)
        if found is None:
            return named
        male, female = found.votes[MALE], found.votes[FEMALE]
        if named is not None:
            # a first name only one sex bears outweighs a pronoun count (which can mistake whom a "he" is), unless
            # the text's pronouns go only the other way, more than once: then it is unsure, not the name's
            against = female if named == MALE else male
            return named if against < 2 or found.votes[named] > 0 else None
        if male > 0 and (female == 0 or male >= 3 * female):
            return MALE
        if female > 0 and (male == 0 or female >= 3 * male):
            return FEMALE
        return None

    def allows(self, pronoun: str, entity: Entity) -> bool:
        """Whether the text leaves ``pronoun`` free to be ``entity``: not when it says they are the other sex."""
        wanted = PRONOUN_GENDER.get(pronoun)
        known = self.of(entity) if wanted is not None else None
        return known is None or known == wanted

    def narrowed(self, pronoun: str, candidates: list[Entity]) -> list[Entity]:
        """The candidates ``pronoun`` may still be. When the text's genders rule some out, only those it says
        are of the pronoun's sex remain, and none if one of unknown sex is left among them ("Heathcliff" a
        "he" and "Sam" unknown: "she" is Sam or a woman not named, so nobody)."""
        kept = [who for who in candidates if self.allows(pronoun, who)]
        if len(kept) < len(candidates) and any(self.of(who) is None for who in kept):
            return []
        return kept

    def _note(self, entity: Entity, gender: str, decisive: bool) -> None:
        found = self.evidence.setdefault(entity.id, _Evidence())
        if decisive:
            found.decisive.add(gender)
        else:
            found.votes[gender] += 1


def title_sex(name: str) -> str | None:
    """The sex a name's title says ("Mrs. Pike", "the Marquise de ..."), or None."""
    first = [w for w in normalize_name(name).replace(".", "").split() if w != "the"][:1]  # "the Marquise de ..."
    return _TITLES.get(first[0]) if first else None


def learn(units: Sequence[tuple[str, str, list[Mention], bool]]) -> Genders:
    """The genders ``units`` say: each ``(text, normalized text, mentions, quoted)`` in reading order. Titles and
    nouns are read everywhere; pronoun evidence only from narration, where "he" is the narrator's."""
    genders = Genders()
    alone: Entity | None = None
    for text, norm, mentions, quoted in units:
        owners: list[tuple[int, str, str]] = []
        for mention in mentions:
            if mention.entity is None or mention.entity.type != "individual":
                continue
            title = _TITLE_BEFORE.search(norm, max(0, mention.start - 16), mention.start)
            if title is not None and title.end() == mention.start and title.group("title") in _TITLES:
                genders._note(mention.entity, _TITLES[title.group("title")], True)
            window = max(0, mention.start - 60)
            noun, at = _NOUN_BEFORE.search(norm[window:mention.start]), window
            if noun is None:
                noun, at = _NOUN_AFTER.match(norm[mention.end:mention.end + 60]), mention.end
            if noun is not None:
                genders._note(mention.entity, _NOUNS[noun.group("noun")], True)
                if noun.group("det") in ("his", "her"):
                    owners.append((at + noun.start("det"), noun.group("det"), mention.entity.id))
        # (a sentence naming thousands is a list, not a couple: its owners are not weighed, so reading stays linear)
        for where, det, beside in owners if not quoted and len(mentions) <= _FEW else ():
            # "Adam knew Eve his wife": the one other person named before "his" is the one it can be
            before = {m.entity.id: m.entity for m in mentions if m.end <= where and m.entity is not None
                      and m.entity.type == "individual" and m.entity.id != beside}
            if len(before) == 1 and all(m.entity is not None for m in mentions if m.end <= where):
                genders._note(next(iter(before.values())), _OF_PRONOUN[det if det == "his" else "herself"], False)
        if quoted:
            alone = None
            continue
        people = {m.entity.id: m.entity for m in mentions if m.entity is not None and m.entity.type == "individual"}
        clear = all(m.entity is not None for m in mentions) and len(people) <= 1 and not _strangers(text, norm, mentions)
        if not clear:
            alone = None
            continue
        if not people:
            opening = _OPENING.match(norm)
            if alone is not None and opening is not None:
                # "Tom came in. He sat down.": the sentence after one naming only Tom, naming nobody
                genders._note(alone, _OF_PRONOUN[opening.group("pronoun")], False)
            alone = None
            continue
        one = next(iter(people.values()))
        last = max(m.end for m in mentions)
        following = _SUBJECT.search(norm, last)
        between = norm[last:following.start()] if following is not None else ""
        if following is not None and (following.group("pronoun") not in ("he", "she") or _JOINED.search(between)) \
                and not _REPORTED.search(between):
            # "Tom took off his hat", "Tom came in, and he sat down": the only one named, not someone spoken of
            genders._note(one, _OF_PRONOUN[following.group("pronoun")], False)
        # "Nana also troubled him. He had a feeling ...": a sentence with a pronoun of its own has someone else
        # about, whom the next "He" may be
        alone = None if _ANY_PRONOUN.search(norm) else one
    return genders


def _strangers(text: str, norm: str, mentions: list[Mention]) -> bool:
    """Whether a capitalised word past the first is no part of a name found: someone the index may not know."""
    named = set(" ".join(norm[m.start:m.end] for m in mentions).replace("'", " ").split())
    words = _CAPITAL.findall(text)
    for number, word in enumerate(words):
        bare = re.sub(r"['’]s$", "", word).casefold()
        if (number == 0 and text.lstrip("\"'“‘( ").startswith(word)) or re.match(r"I['’]", word):
            continue
        if bare not in named and bare not in _TITLES:
            return True
    return False


# "Before he left, Tom thanked Will": a pronoun in an opening clause of circumstance points ahead, to the name
# after its comma, not back to the sentence before; "he who hesitates" is anyone.
_OPENING_CLAUSE = re.compile(r"^[\"'“‘(\s]*(?:before|after|when|whenever|while|as|since|until|till|though|although|"
                             r"if|once|because|unless|whilst)\b[^,;]*$")
_GENERIC = re.compile(r"\s+who\b")


def points_ahead(norm: str, start: int, end: int, mentions: Sequence[Mention]) -> bool:
    """Whether the pronoun at ``norm[start:end]`` is cataphoric or generic, so no one named before it is meant."""
    if _GENERIC.match(norm, end):
        return True
    if not _OPENING_CLAUSE.match(norm[:start]):
        return False
    comma = norm.find(",", end)
    if comma < 0:
        return False
    after = re.match(r",\s*(?:then\s+)?", norm[comma:])
    place = comma + (after.end() if after else 1)
    return any(m.start == place and m.entity is not None and m.entity.type == "individual" for m in mentions)
