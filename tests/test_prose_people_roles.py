"""People a novel names once by what they are to another, set before them in commas ("Margaret Hale's
brother, John Pryor,"), or brings on with a verb of coming or sitting before the name ("Next came Walter
Gilbert", "At the table sat Anne, Diana, and little Minnie May")."""

from __future__ import annotations

from helpers.prose import people_of, related

from game.graph.fast_extract.prose import read_story


def test_a_role_another_owns_set_before_a_name_makes_the_name_a_person_and_the_bond_is_read() -> None:
    text = "Margaret Hale's brother, John Pryor, hated Thomas Hale."
    assert "John Pryor" in people_of(text)
    assert related(text, "John Pryor", "KIN_OF", "Margaret Hale")
    assert related(text, "John Pryor", "HATES", "Thomas Hale")
    assert "Jem Bolt" in people_of("It was the Squire's old servant, Jem Bolt, who opened the gate.")
    # what is owned is no role: a place or a thing after "'s ..., " stays nobody
    assert "Hartfield" not in people_of("Emma's home, Hartfield, stood by the road, and Emma Wood loved it.")


def test_who_comes_or_sits_before_the_name_is_a_person_and_so_is_each_of_a_list() -> None:
    text = "Next came Walter Gilbert with his cousin Fred."
    assert "Walter Gilbert" in people_of(text)
    assert related(text, "Fred", "KIN_OF", "Walter Gilbert")
    assert {"Anne", "Diana", "Minnie May"} <= people_of("At the table sat Anne, Diana, and little Minnie May.")
    # a day or a city that comes is nobody
    assert people_of("He went to the window. Then came Christmas, and the snow. At last came London, grey.") == set()


def test_one_said_to_be_in_anothers_service_is_a_person_and_serves_them() -> None:
    # "Passepartout" was no one: being in the service of someone was no evidence of being someone
    assert related("Passepartout was in the service of Mr. Fogg.", "Passepartout", "SERVES", "Mr. Fogg")
    assert related("Jupiter is in the employ of Legrand.", "Jupiter", "SERVES", "Legrand")


def test_the_one_whose_lackey_or_grandchild_someone_is_said_to_be_is_a_person() -> None:
    assert related("Planchet was the lackey of Athos.", "Planchet", "SERVES", "Athos")
    assert related("Mrs. Manson Mingott was the grandmother of May Welland.", "Mrs. Manson Mingott", "KIN_OF",
                   "May Welland")


def test_a_short_name_the_text_says_is_kin_to_the_full_name_is_someone_else() -> None:
    # "Heathcliff" was taken for Linton Heathcliff, the only full name it ends
    found = {p.name: [a for a, _ in p.aliases] for p in read_story("Linton Heathcliff was Heathcliff's son.").people}
    assert found == {"Linton Heathcliff": [], "Heathcliff": []}
    assert related("Linton Heathcliff was Heathcliff's son.", "Linton Heathcliff", "KIN_OF", "Heathcliff")
    # a surname nobody is said to be kin to is still the full name's
    found = {p.name: [a for a, _ in p.aliases] for p in read_story("Hareton Earnshaw was Hindley's son. Earnshaw laughed.").people}
    assert found["Hareton Earnshaw"] == ["Earnshaw"]


def test_one_said_to_be_the_guardian_or_tutor_of_another_is_a_person() -> None:
    # "Tom" was nobody: "guardian" and "tutor" were no role nouns, and "was" no doing
    for text in ("Tom was the guardian of Ann.", "Tom was the tutor of Ann.", "Tom became the guardian of Ann.",
                 "Tom was the godfather of Ann.", "Tom had been the mentor of Ann."):
        assert people_of(text) == {"Tom", "Ann"}, text
    assert people_of("Ann was the pupil of Tom.") == {"Tom", "Ann"}
    assert "Tom" in people_of("Tom was the guardian of his nephew.")
    assert "Tom" in people_of("Tom was Ann's guardian.")
    assert "Hale" in people_of("Ann loved her tutor, Hale.")
    # the vocabulary has no guardian's or tutor's relation: none is made up from a kin's or a servant's
    assert not related("Tom was the guardian of Ann.", "Tom", "KIN_OF", "Ann")
    assert not related("Tom was the tutor of Ann.", "Tom", "SERVES", "Ann")


def test_an_abstraction_said_to_be_the_guardian_or_patron_of_a_thing_stays_nobody() -> None:
    for text in ("Reason is the guardian of virtue.", "Wisdom, the guardian of youth, slept.",
                 "The Church was the guardian of the poor.", "Westmoor was the guardian of its people.",
                 "Commerce was the patron of the arts."):
        assert people_of(text) == set(), text
