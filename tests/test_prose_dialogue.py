"""Dialogue and people in prose (issue 26): who says a line and to whom, "I" and "you" read as them, people
told from words, and the names a story says are one person. Pure functions over short real-looking text;
the whole story's import is ``test_import_prose.py``."""

from __future__ import annotations

import pytest
from helpers.prose import related

from game.graph.fast_extract.extractor import FastExtractor
from game.graph.fast_extract.gazetteer import Entity, NameIndex
from game.graph.fast_extract.people import people
from game.graph.fast_extract.prose import cast_index, read_story
from game.graph.fast_extract.quotes import NARRATOR, read_dialogue
from game.graph.names import normalize_name


def _index(*names: str) -> NameIndex:
    index = NameIndex()
    for name in names:
        index.put(normalize_name(name.split("|")[0]), entity := Entity(name.split("|")[0], name.split("|")[0],
                                                                            "individual"))
        for alias in name.split("|")[1:]:
            index.put(normalize_name(alias), entity)
    return index


def _speakers(text: str, index: NameIndex) -> list[tuple[str | None, str | None]]:
    return [(line.speaker.name if line.speaker else None, line.addressee.name if line.addressee else None)
            for _, lines in read_dialogue(text, index) for line in lines]


def test_said_tags_turn_taking_and_vocatives_give_each_line_its_speaker_and_addressee() -> None:
    index = _index("Sherlock Holmes|Holmes", "the King")
    text = ("“It is quite a pretty little problem,” said Holmes.\n\n"
            "“But a very serious one to me,” returned the King reproachfully.\n\n"
            "“Very, indeed. And what does she propose to do with the photograph?”\n\n"
            "“To ruin me.”\n\n"
            "“My dear Holmes, you are too kind,” said he.")
    assert _speakers(text, index) == [("Sherlock Holmes", None), ("the King", "Sherlock Holmes"),
                                      ("Sherlock Holmes", "the King"), ("the King", "Sherlock Holmes"),
                                      ("the King", "Sherlock Holmes")]
    # Who answers a line nobody was named in before is someone not yet known, never a guess.
    assert _speakers("“But a very serious one to me,” returned the King.\n\n“Very, indeed.”", index) == [
        ("the King", None), (None, "the King")]


def test_a_pronoun_tag_is_the_one_person_the_paragraph_names_and_a_first_person_narrator_is_no_one() -> None:
    index = _index("Sherlock Holmes|Holmes", "Dr. Watson|Watson")
    text = ("Holmes laughed. “It is quite a pretty little problem,” said he.\n\n"
            "“I think that I had better go, Holmes,” said I.")
    lines = [line for _, found in read_dialogue(text, index) for line in found]
    assert lines[0].speaker is not None and lines[0].speaker.name == "Sherlock Holmes"
    assert lines[1].speaker is NARRATOR and lines[1].addressee is not None and lines[1].addressee.name == "Sherlock Holmes"


def test_an_apposition_is_not_a_call() -> None:
    index = _index("Sherlock Holmes|Holmes", "Dr. Watson|Watson")
    text = "“Pray take a seat,” said Holmes. “This is my friend and colleague, Dr. Watson, who is good enough to help me.”"
    assert _speakers(text, index) == [("Sherlock Holmes", None), ("Sherlock Holmes", None)]
    triples = FastExtractor().extract(text, index).triples
    assert [(t.source, t.relation, t.target) for t in triples] == [("Dr. Watson", "ALLY_OF", "Sherlock Holmes")]
    assert triples[0].sentence.startswith("Sherlock Holmes: “This is my friend and colleague")


@pytest.mark.parametrize(("text", "expected"), [
    # The speaker's own bonds are stated ...
    ("“I am about to be married to Clotilde Holt,” said Oren Vale.", {("Oren Vale", "ENGAGED_TO", "Clotilde Holt")}),
    ("“Clotilde Holt is afraid of me,” said Oren Vale.", set()),  # ... how others feel about them is a claim
    ("“I am afraid of you, Clotilde,” said Oren Vale.", {("Oren Vale", "FEARS", "Clotilde Holt")}),
    ("“I am afraid of you,” he said.", set()),  # nobody known says it
    ("“If I trusted you, Clotilde, I would stay,” said Oren Vale.", set()),  # a condition states nothing
    # "I am your servant, Clotilde": the role is the speaker's, so the name after it is a call, not an apposition
    ("“I am your servant, Clotilde,” said Oren Vale.", {("Oren Vale", "SERVES", "Clotilde Holt")}),
    ("“Here comes your servant, Clotilde,” said Oren Vale.", set()),  # whose servant Clotilde is, nobody says
])
def test_i_and_you_are_the_speaker_and_the_one_spoken_to(text: str, expected: set[tuple[str, str, str]]) -> None:
    index = _index("Oren Vale", "Clotilde Holt|Clotilde")
    found = FastExtractor().extract(text, index)
    assert {(t.source, t.relation, t.target) for t in found.triples} == expected


def test_turn_taking_runs_on_from_the_paragraphs_told_before() -> None:
    index = _index("Sherlock Holmes|Holmes", "the King")
    before = "“But a very serious one to me,” returned the King reproachfully.\n\n“Very, indeed. And how?”"
    text = "“I am about to be married to Clotilde Holt.”"
    index.put("clotilde holt", Entity("Clotilde Holt", "Clotilde Holt", "individual"))
    alone = FastExtractor().extract(text, index)
    told = FastExtractor().extract(text, index, before)
    assert alone.triples == []
    assert [(t.source, t.relation, t.target) for t in told.triples] == [("the King", "ENGAGED_TO", "Clotilde Holt")]


@pytest.mark.parametrize(("text", "found", "not_found"), [
    ("“The paper was made in Bohemia,” I said. “A Bohemian nobleman wrote it, and the German writes so.”",
     set(), {"Bohemia", "Bohemian", "German"}),
    ("“If your Majesty would condescend to state your case,” he remarked to Dr. Watson.", {"Dr. Watson"}, {"Majesty"}),
    ("“Not a bit, Doctor. Stay where you are,” said Holmes.", {"Holmes"}, {"Doctor"}),
    ("Suddenly Uncle Henry stood up. “There's a cyclone coming, Em,” he called to his wife.",
     {"Uncle Henry", "Em"}, {"Suddenly Uncle Henry"}),
    ("Dorothy lived in the midst of the great Kansas prairies, at Briony Lodge, near Baker Street.",
     set(), {"Kansas", "Briony Lodge", "Baker Street"}),
    ("Tom’s younger brother (or rather half-brother) Sid was a quiet boy. Tom whistled.", {"Tom", "Sid"}, set()),
])
def test_people_are_names_the_text_treats_as_people(text: str, found: set[str], not_found: set[str]) -> None:
    names = {name for person in people(text) for name in (person.name, *(a for a, _ in person.aliases))}
    assert found <= names and not names & not_found, names


def test_a_surname_is_its_full_name_s_alias_but_mr_and_mrs_stay_two_people() -> None:
    found = {p.name: [a for a, _ in p.aliases] for p in people(
        "Sherlock Holmes laughed. Holmes whistled. Mr. Bennet sighed; Mrs. Bennet cried. “Come, Holmes!”")}
    assert found["Sherlock Holmes"] == ["Holmes"]
    assert "Mr. Bennet" in found and "Mrs. Bennet" in found


def test_a_knight_s_or_a_lady_s_first_name_with_the_title_is_the_one_full_name_but_mr_and_a_first_name_is_not() -> None:
    found = {p.name: [a for a, _ in p.aliases] for p in people(
        "Sir James Chettam came in. Sir James sat down. Lady Catherine de Bourgh laughed. Lady Catherine frowned. "
        "Sir Walter Elliot smiled. Mr. Walter bowed.")}
    assert found["Sir James Chettam"] == ["Sir James"]
    assert found["Lady Catherine de Bourgh"] == ["Lady Catherine"]
    assert "Mr. Walter" in found  # "Mr." goes with a surname: Mr. Walter is some other man
    # a first name with "Sir" is no plain-named man's: James Hale is not Sir James
    assert {"James Hale", "Sir James"} <= {p.name for p in people("James Hale came. Sir James sat down.")}


def test_a_kin_word_that_calls_a_man_is_not_said_to_a_woman() -> None:
    # turn-taking would make Celia the one spoken to; "uncle" says it is a man, so no kinship with her is read
    text = ("“I think she is,” said Celia.\n\n“There may be good reasons,” said Dorothea.\n\n"
            "“I wish you would let me sort your papers for you, uncle,” said Dorothea.")
    assert not related(text, "Dorothea", "KIN_OF", "Celia")
    text = ("“I think she is,” said Tom.\n\n“There may be good reasons,” said Dorothea.\n\n"
            "“I wish you would let me sort your papers for you, uncle,” said Dorothea.")
    assert related(text, "Dorothea", "KIN_OF", "Tom")


def test_names_the_dialogue_equates_are_one_person_or_a_question() -> None:
    text = ("“Come in!” said Holmes.\n\nThe Count Von Kramm sat down. “Then I must begin,” said he.\n\n"
            "“If your Majesty would condescend,” Holmes remarked.\n\n“You are right,” he cried; “I am the King.”\n\n"
            "The King took a bag from his cloak.")
    reading = read_story(text)
    assert {p.name for p in reading.people} >= {"Holmes", "Count Von Kramm", "the King"}
    (same,) = reading.same
    assert {same.name, same.other} == {"Count Von Kramm", "the King"} and not same.sure
    assert "I am the King" in same.evidence
    # A speaker named outright in the tag is one person with the name he gives.
    told = read_story("“I am the King,” said the Count Von Kramm. The King laughed. The Count Von Kramm sat down.")
    assert [(s.name, s.other, s.sure) for s in told.same] == [("the King", "Count Von Kramm", True)]
    index = cast_index(told.people)
    assert index.names  # the people of the story are what the fast path reads relations against
