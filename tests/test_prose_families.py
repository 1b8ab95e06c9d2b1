"""Families, servants and letters in prose dialogue (issue 26): the forms novels state kin and service in
without a relation word between two names. Each text is read the way ``kith import-story`` reads a story
(its people found first, then its relations), so a person the reader cannot find fails here too. The
lines are written for these tests, in the manner of the held-out passages but none of them."""

from __future__ import annotations

from helpers.prose import relations_read as _relations

from game.graph.fast_extract.prose import read_story
from game.graph.fast_extract.single_marks import single_quotes_doubled


def _people(text: str) -> set[str]:
    return {person.name for person in read_story(text).people}


def test_a_parent_written_as_a_name_is_a_person_and_the_speaker_is_their_child() -> None:
    text = "“We shall have Mother home by Christmas, and Father soon after,” said Amy, looking up from her work."
    assert {"Mother", "Father", "Amy"} <= _people(text)
    assert _relations(text) == {("Amy", "KIN_OF", "Mother"), ("Amy", "KIN_OF", "Father")}
    # The same word as a common noun is nobody: "her father" neither makes a person nor names Father.
    assert _people("Amy wrote to her father every week, as her mother asked.") == {"Amy"}
    # Narration naming Father states nothing about whoever happens to speak nearby.
    assert _relations("Father was away at the war. “It is cold,” said Amy.") == set()


def test_a_kinship_word_or_a_servants_word_calling_the_one_spoken_to_states_the_bond() -> None:
    text = "Mrs. Fenn looked up as Tobin came in from the rain. “Where have you been, Son?” she said."
    assert ("Mrs. Fenn", "KIN_OF", "Tobin") in _relations(text)
    text = "Grell stood behind Lord Harrow's chair. “My lord, my lord, the riders are at the gate!” cried Grell."
    assert ("Grell", "SERVES", "Lord Harrow") in _relations(text)
    # "Little Brother" between friends is a name of affection, not kin.
    assert not {r for r in _relations("Tobin looked at Grell. “Come, Little Brother,” said Grell.")
                if r[1] == "KIN_OF"}


def test_dialogue_in_single_marks_is_dialogue_and_apostrophes_stay() -> None:
    text = "'Hullo, Pim!' said the Badger. 'By the way--my friend Mr. Tolly.' 'Charmed, I'm sure,' said Pim."
    assert single_quotes_doubled(text) == (
        "“Hullo, Pim!” said the Badger. “By the way--my friend Mr. Tolly.” “Charmed, I'm sure,” said Pim.")
    assert ("Mr. Tolly", "ALLY_OF", "Badger") in _relations(text)
    # Possessives and elisions are no quotes, and a text quoting in double marks is left as it is.
    assert single_quotes_doubled("Toad's boat and the rabbits' holes, and some of 'em.") == \
        "Toad's boat and the rabbits' holes, and some of 'em."
    assert single_quotes_doubled("“It's Pim's,” said the Badger.") == "“It's Pim's,” said the Badger."


def test_a_tag_before_a_quote_and_narration_handing_on_give_each_quote_its_own_speaker() -> None:
    text = ("“I'm the eldest,” began Nell, but Kit cut in with a decided, “I'm the one Father left in charge, "
            "and Father said so.”")
    relations = _relations(text)
    assert ("Kit", "KIN_OF", "Father") in relations
    assert ("Nell", "KIN_OF", "Father") not in relations  # Nell's line does not name him
    text = "The fire had burnt low when Kit said softly, “We have Mother still.”"
    assert ("Kit", "KIN_OF", "Mother") in _relations(text)


def test_a_signed_letter_states_what_the_signature_says_to_the_one_written_to() -> None:
    text = ("To Jane Arden, Bristol.\n\nI reached the harbour safely, and the ship sails on Monday. Farewell, my "
            "dear, good Jane.\n\nYour loving brother, T. Arden")
    assert ("T. Arden", "KIN_OF", "Jane Arden") in _relations(text)
    unsigned = "Farewell, my dear, good Jane. The ship sails on Monday."
    assert _relations(unsigned) == set()


def test_kin_named_in_pairs_and_a_possessive_list_are_kin() -> None:
    text = "A poor miller lived by the river with his two daughters. The elder was called Rosa and the younger Lene."
    assert _relations(text) == {("Lene", "KIN_OF", "Rosa")} or _relations(text) == {("Rosa", "KIN_OF", "Lene")}
    text = "Harl took unto him two wives: the name of the one was Mira, and the name of the other Sela."
    assert {r for r in _relations(text)} >= {("Harl", "KIN_OF", "Mira"), ("Harl", "KIN_OF", "Sela")}
    text = "Harl turned to his sons, Oswin and Bran, and spoke."
    assert {r for r in _relations(text)} >= {("Harl", "KIN_OF", "Oswin"), ("Harl", "KIN_OF", "Bran")}


def test_not_to_be_trusted_is_distrust_by_whoever_says_so() -> None:
    cast = "Mira said so. Tomas said so. "
    told = "Mira warned him once or twice that Tomas was not a man to be trusted."
    assert _relations(cast + told) >= {("Mira", "DISTRUSTS", "Tomas")}
    # A doubt or a condition around it still states nothing, and "once" alone is a thing of the past.
    for text in ("Mira did not think that Tomas was not to be trusted.",
                 "If Mira told him that Tomas was not to be trusted, he would go.",
                 "Mira once told him that Tomas was not to be trusted."):
        assert not {r for r in _relations(cast + text) if r[1] == "DISTRUSTS"}, text
