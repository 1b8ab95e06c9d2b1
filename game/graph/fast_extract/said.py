"""What a quoted line states by who says it to whom, and what a letter's signature states.

A line's words say a bond its patterns cannot read: calling the one spoken to "Son" or "my lord" (the
speaker is their kin, or serves them), naming "Father and Mother" as only their children do, or a letter
signed "Your affectionate brother, R. Walton" to the one it greets. Kept apart from ``quotes`` (who says a
line) so that each stays a module one can read. Pure: no I/O.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.gazetteer import CASED_NAMES, Entity, NameIndex
from game.graph.fast_extract.genders import title_sex
from game.graph.fast_extract.prose_patterns import KIN_TITLE
from game.graph.given_names import sex_of_given_name
from game.graph.names import normalize_name
from game.graph.sexes import FEMALE, MALE, NOUN_SEX, opposite


def individuals(index: NameIndex, text: str) -> list[Entity]:
    """The individuals ``text`` names, each once, in order."""
    seen: dict[str, Entity] = {}
    for mention in index.mentions(text):
        if mention.entity is not None and mention.entity.type == "individual":
            seen.setdefault(mention.entity.id, mention.entity)
    return list(seen.values())


def said_bonds(body: str, speaker: Entity | None, addressee: Entity | None, index: NameIndex,
               evidence: str) -> tuple[list[tuple[Entity, Entity, str]], list[tuple[Entity, str, Entity, str]]]:
    """The kin ``(speaker, other, evidence)`` and the bonds ``(source, relation, target, evidence)`` a line
    states by its words to the one spoken to (both known people, or None)."""
    kin: list[tuple[Entity, Entity, str]] = []
    bonds: list[tuple[Entity, str, Entity, str]] = []
    if speaker is not None and addressee is not None and speaker.id != addressee.id:
        # "“What is it, Son?” she said": a kinship word or a servant's word calls the one spoken to.
        call = _KIN_CALL.search(body)
        if call is not None and not opposite(_CALL_SEX.get(call.group("word").casefold()), _sex_of_name(addressee.name)):
            kin.append((speaker, addressee, evidence))
        if _LORD_CALL.search(body) and _sex_of_name(addressee.name) != FEMALE:
            bonds.append((speaker, "SERVES", addressee, evidence))
        if _called_by_kin_title(body, addressee, index):
            kin.append((speaker, addressee, evidence))
    if speaker is not None:
        kin.extend((speaker, parent, evidence) for parent in _parents_named(body, index) if parent.id != speaker.id)
    return kin, bonds


def _called_by_kin_title(body: str, addressee: Entity, index: NameIndex) -> bool:
    """Whether a line calls the one it speaks to by a kin title ("... just now, Uncle George."): only their kin
    call them so."""
    for mention in index.mentions(body):
        if mention.entity is None or mention.entity.id != addressee.id:
            continue
        if KIN_TITLE.match(body[mention.start:mention.end]) and re.search(r"(?:^\W*|,\s)$", body[:mention.start]) \
                and re.match(r"\s*(?:[,!?]|\.?\W*$)", body[mention.end:]):
            return True
    return False


_CALLED = r"(?:^|,\s+|\bO\s+)(?:my\s+)?(?:dear\s+)?(?:good\s+)?"
# "Brother" and "sister" are left out: "Little Brother" is as often a comrade's call as a family's.
_KIN_CALL = re.compile(rf"{_CALLED}(?P<word>son|daughter|mother|father|papa|mama|mamma|grandma|grandpa|granny|grandmother|"
                       rf"grandfather|uncle|aunt|auntie|aunty|nephew|niece|wife|husband)(?=\s*(?:[,!?]|\.?\s*$))",
                       re.IGNORECASE)
# "“Let me sort your papers, uncle,” said Dorothea" is not said to Celia, whoever spoke last: the word calls a man.
_CALL_SEX = {**NOUN_SEX, "papa": MALE, "grandpa": MALE, "mama": FEMALE, "mamma": FEMALE, "grandma": FEMALE,
             "granny": FEMALE, "auntie": FEMALE, "aunty": FEMALE}


def _sex_of_name(name: str) -> str | None:
    """The sex a name says by its title or its first name ("Mr. Brooke", "Celia"), or None."""
    return title_sex(name) or sex_of_given_name(name)


_LORD_CALL = re.compile(rf"{_CALLED}(?:(?<=my\s)lord|(?<=my\s)liege|master|sire)(?=\s*(?:[,!?]|\.?\s*$))", re.IGNORECASE)
_SIGNED = re.compile(r"\b(?:your|yours)\s+(?:(?:ever|most|very|own|truly)\s+)*(?:[a-z]+\s+)?(?P<role>brother|sister|son|"
                     r"daughter|father|mother|cousin|friend|husband|wife|niece|nephew|uncle|aunt)\s*,\s*"
                     r"(?P<name>[A-Z][^,;:!?“”\"\n]{0,40}?)\s*\.?\s*$", re.IGNORECASE)
_SALUTED = re.compile(r"(?:\bdear(?:est)?,?\s+(?:[a-z]+,?\s+){0,2}|^\s*to\s+)(?P<whom>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})",
                      re.IGNORECASE | re.MULTILINE)


def signed(text: str, index: NameIndex) -> list[tuple[Entity, str, Entity, str]]:
    """A letter signed "Your affectionate brother, R. Walton" to the one it calls "my dear, excellent
    Margaret" (or heads "To Mrs. Saville"): the signer is what the signature says to the one written to,
    when each is one person of the story."""
    signature = _SIGNED.search(text.rstrip())
    if signature is None:
        return []
    signers = individuals(index, signature.group("name"))
    hearers = {e.id: e for m in _SALUTED.finditer(text[:signature.start()]) for e in individuals(index, m.group("whom"))}
    if len(signers) != 1 or len(hearers) != 1:
        return []
    (hearer,) = hearers.values()
    if hearer.id == signers[0].id:
        return []
    relation = "ALLY_OF" if signature.group("role").casefold() == "friend" else "KIN_OF"
    return [(signers[0], relation, hearer, signature.group(0).strip())]


def _parents_named(body: str, index: NameIndex) -> list[Entity]:
    """The people a line calls by a parent's word as a name ("We've got Father and Mother"): the speaker's
    parents, as only their children call them so."""
    found: dict[str, Entity] = {}
    for mention in index.mentions(body):
        entity = mention.entity
        if entity is not None and entity.type == "individual" and normalize_name(entity.name) in CASED_NAMES:
            found.setdefault(entity.id, entity)
    return list(found.values())
