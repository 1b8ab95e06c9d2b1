"""Names a text writes once and treats as people (issue 26): the object of a verb of feeling or doing, the one
spoken to, danced with or afraid of, one seen doing something, a letter's writer and reader, a subject with a
phrase set beside it; and the near misses that stay no one (a place, a country, a nation's people, a form of
address, a participle opening a sentence, a thing a person owns). Every sentence is written for these tests;
none is taken from the labelled passages."""

from __future__ import annotations

import pytest
from helpers.prose import relations_read as _relations

from game.graph.fast_extract.people_objects import is_place_name
from game.graph.fast_extract.prose import read_story


def _people(text: str) -> set[str]:
    return {person.name for person in read_story(text).people}


@pytest.mark.parametrize(("text", "person"), [
    # the object of a verb of feeling or doing
    ("John Pryor disliked Thomas Hale.", "Thomas Hale"),
    ("In the spring she had dismissed James Forster for a trifle.", "James Forster"),
    ("The old woman pitied poor Matthew.", "Matthew"),
    ("Nobody thanked Edwin Marsh for the loaf.", "Edwin Marsh"),
    ("The wolves would hunt Rangi through the hills.", "Rangi"),
    ("She loved Anna, Tom and Will.", "Tom"),
    ("“Let Marmee think we are busy,” said Jo.", "Marmee"),
    # a word and the preposition its person follows
    ("Lucy spoke to Arthur Penrose about the plan.", "Arthur Penrose"),
    ("She gave the letter to Hetty at the door.", "Hetty"),
    ("She was walking hand in hand with Dinah.", "Dinah"),
    ("They had quarrelled with Roderick Vance.", "Roderick Vance"),
    ("The boy was afraid of Ulric.", "Ulric"),
    ("At noon they sent for Cobb.", "Cobb"),
    ("The girls laughed at Barnaby.", "Barnaby"),
    # seen doing something, going off, joined to "will"
    ("I saw Jethro starting off today.", "Jethro"),
    ("Tib'll miss me very much to-night.", "Tib"),
    # a subject with a phrase of its own beside it, or its own "his"
    ("Jasper, grinning from ear to ear, bustled about.", "Jasper"),
    ("Tobias, with all his cunning, could not hide it.", "Tobias"),
    ("Hence the great Morvan, when he set out, was ready.", "Morvan"),
    ("Corwin was in one of his moods.", "Corwin"),
    ("It is so seldom Amos sets his mind on anything.", "Amos"),
    ("Perhaps Ikko the Heron had told him.", "Ikko"),
    # what only a person has
    ("To Bertha's relief the rain stopped.", "Bertha"),
    ("The blazing eyes of Sher Ali were on them.", "Sher Ali"),
    # a letter's writer and reader
    ("Letter, Alys Penrose to Mina Tarr.", "Alys Penrose"),
    ("Letter, Alys Penrose to Mina Tarr.", "Mina Tarr"),
    ("Telegram from Arthur Penrose to Quincey Vail.", "Quincey Vail"),
    # named, and said to be someone, after a dash
    ("Her name was Aouli.", "Aouli"),
    ("Thomas Lyle--a meek little man--was sowing.", "Thomas Lyle"),
    ("He was recommended by the Harlings, with whom he had an open credit.", "Harlings"),
    ("Pitt's an old fellow.", "Pitt"),
    # a name after a dash, a name in -ian doing something, a title before a month's name
    ("_24 July._--Lucy met me at the station.", "Lucy"),
    ("Dorian bowed to him shyly.", "Dorian"),
    ("Mrs. March got her wet things off.", "Mrs. March"),
    ("Fifteen-year-old Jo was a tall girl.", "Jo"),
    ("“Poor Jo! It's too bad,” said Meg.", "Jo"),
    ("“I'm not Ada,” she said.", "Ada"),
    ("“Birds agree,” sang Bethan, the peacemaker.", "Bethan"),
    ("They went by Miss Fulsom's Kindergarten every morning, and Miss Fulsom waved.", "Miss Fulsom"),
])
def test_a_name_the_text_treats_as_a_person_is_one(text: str, person: str) -> None:
    assert person in _people(text)


@pytest.mark.parametrize(("text", "not_a_person"), [
    ("He sailed for France with his uncle, John Pryor.", "France"),
    ("He visited Paris and loved London.", "London"),
    ("He visited Paris and loved London.", "Paris"),
    ("She longed for Tostenby all winter.", "Tostenby"),
    ("They were pleased with Marlow Heights.", "Marlow Heights"),
    ("He came up to Starbridge on Monday.", "Starbridge"),
    ("He returned to Bramfield, when he had rested.", "Bramfield"),
    ("It is rather fashionable to marry Americans just now.", "Americans"),
    ("“Your Majesty, the Doctor is here,” said the page.", "Majesty"),
    ("“Your Majesty, the Doctor is here,” said the page.", "Doctor"),
    ("Having paid his debts, he retreated to the town.", "Having"),
    ("They went by Miss Fulsom's Kindergarten every morning, and Miss Fulsom waved.", "Miss Fulsom's Kindergarten"),
    ("“I've told Missis often, and Missis agreed with me,” said the maid.", "Missis"),
    ("In Tarrow the spirit of Tarrow was high, and the face of Tarrow was grey.", "Tarrow"),
    ("The betting was on the Parsee and the Hindoo.", "Parsee"),
    ("Trust Him, and obey Him.", "Him"),
    ("Fifteen-year-old Jo was a tall girl.", "Fifteen-year-old Jo"),
    ("He disliked Latin and loved Greek.", "Latin"),
    ("She feared Providence and trusted Fate.", "Providence"),
    ("He hated Sundays and loved Christmas Eve.", "Sundays"),
    ("He passed Tostenby at noon, and left Yarrowfield, when he was tired.", "Yarrowfield"),
    ("Gimmerby, lying in its valley, looked grey.", "Gimmerby"),
    ("Something tells me you are right, and Something'll turn up.", "Something"),
    ("Hob Tarrant hates the Saltwrights' Guild.", "Saltwrights"),
])
def test_a_near_miss_stays_no_one(text: str, not_a_person: str) -> None:
    assert not_a_person not in _people(text)


def test_a_name_ending_in_ing_that_does_something_is_still_a_name() -> None:
    assert "Fielding" in _people("They say he is like Fielding: Fielding could stoop on carrion.")


def test_a_name_done_to_after_a_negation_or_a_relative_is_still_a_name() -> None:
    assert "Micah" in _people("Ahab did not like Micah, because he never prophesied good.")
    assert "Flambard" in _people("There was one thing which Flambard, with all his cunning, could not cover.")
    assert "Saltwrights' Guild" in _people("Hob Tarrant hates the Saltwrights' Guild.")


def test_a_person_written_once_as_an_object_makes_a_relation_readable() -> None:
    assert _relations("John Pryor hated Thomas Hale.") == {("John Pryor", "HATES", "Thomas Hale")}
    assert _relations("Edith Marsh was afraid of Ulric Vane.") == {("Edith Marsh", "FEARS", "Ulric Vane")}


def test_well_known_places_are_known_and_names_of_people_are_not_among_them() -> None:
    assert is_place_name("France") and is_place_name("new  york") and is_place_name("London")
    assert not is_place_name("Florence") and not is_place_name("Virginia") and not is_place_name("Israel")
