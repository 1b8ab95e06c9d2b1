"""A married couple named at once by their titles ("Mr. and Mrs. Bennet"): two people, husband and wife, and a
verb of the phrase is each one's."""

from __future__ import annotations

from helpers.prose import people_of, related, relations_read

from game.graph.fast_extract.couples import expanded


def test_mr_and_mrs_are_two_people_married_to_each_other() -> None:
    text = "Mr. and Mrs. Bennet had five daughters."
    assert {"Mr. Bennet", "Mrs. Bennet"} <= people_of(text)
    assert related(text, "Mr. Bennet", "KIN_OF", "Mrs. Bennet")
    text = "Monsieur and Madame de Rênal came to Verrières."
    assert related(text, "Monsieur de Rênal", "KIN_OF", "Madame de Rênal")


def test_the_phrase_s_verb_is_each_one_s() -> None:
    found = relations_read("Mr. and Mrs. Bennet loved Jane.")
    assert {("Mr. Bennet", "LOVES", "Jane"), ("Mrs. Bennet", "LOVES", "Jane")} <= found


def test_two_surnames_are_no_couple() -> None:
    assert not related("Mr. Darcy and Mrs. Bennet quarrelled.", "Mr. Darcy", "KIN_OF", "Mrs. Bennet")
    assert expanded("Mr. Darcy and Mrs. Bennet quarrelled.") == "Mr. Darcy and Mrs. Bennet quarrelled."
    assert expanded("Mr. and Mrs. Bennet came.") == "Mr. Bennet and Mrs. Bennet came."
