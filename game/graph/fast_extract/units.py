"""A text read as the patterns read it: its units (sentences, quoted lines in their speaker's words), each with
its normalized text and the names it mentions, and what the whole text says of its people's sexes.

The extractor reads relations from these; ``kith import-story`` reads only the sexes, to tell a node's
identity questions apart ("Mr. Garland" is not asked about as the Lucy Garland the story calls "she"). One
way of reading for both, so that what the story says of someone is the same to each. Pure: no I/O.
"""

from __future__ import annotations

from game.graph.fast_extract.couples import couples, expanded
from game.graph.fast_extract.gazetteer import Entity, Mention, NameIndex
from game.graph.fast_extract.genders import FEMALE, MALE, Genders, learn
from game.graph.fast_extract.quotes import Reading, Unit, reading_units
from game.graph.fast_extract.single_marks import single_quotes_doubled
from game.graph.names import normalize_name
from game.text import strip_control

SEX_WORDS = {MALE: "male", FEMALE: "female"}
"""How a node's ``gender`` attribute says what the story says."""


def read_units(text: str, index: NameIndex, before: str = "") -> tuple[Reading, list[tuple[Unit, str, list[Mention]]]]:
    """``text``'s reading, and each of its units with its normalized text (slot marks made parentheses, so a
    text cannot forge a slot) and its mentions. Untrusted text: no escape sequence reaches a fact or a name."""
    reading = reading_units(expanded(single_quotes_doubled(strip_control(text))), index,
                            expanded(single_quotes_doubled(strip_control(before))))
    # "Mr. and Mrs. Bennet", written out: the phrase says the two are husband and wife
    for unit in reading.units:
        for his_name, hers_name in couples(unit.sentence.text):
            his, hers = _one(index, his_name), _one(index, hers_name)
            if his is not None and hers is not None and his.id != hers.id:
                reading.kin.append((his, hers, unit.sentence.text))
    read = [(unit, normalize_name(unit.sentence.text).replace("⟨", "(").replace("⟩", ")"),
             index.mentions(unit.sentence.text)) for unit in reading.units]
    return reading, read


def _one(index: NameIndex, name: str) -> Entity | None:
    """The one individual ``index`` holds under ``name``, or None (nobody, or more than one)."""
    held = [e for e in index.names.get(normalize_name(name), []) if e.type == "individual"]
    return held[0] if len(held) == 1 else None


def genders_read(read: list[tuple[Unit, str, list[Mention]]]) -> Genders:
    """What the units say of who is a man and who a woman (``genders``)."""
    return learn([(unit.sentence.text, norm, found, unit.quoted) for unit, norm, found in read])


def story_sexes(text: str, index: NameIndex) -> dict[str, str]:
    """Each person of ``text`` the text says is a man or a woman, by name: "male" or "female"."""
    _, read = read_units(text, index)
    genders = genders_read(read)
    found: dict[str, str] = {}
    for _, _, mentions in read:
        for mention in mentions:
            entity = mention.entity
            if entity is None or entity.type != "individual" or entity.name in found:
                continue
            sex = genders.of(entity)
            if sex is not None:
                found[entity.name] = SEX_WORDS[sex]
    return found
