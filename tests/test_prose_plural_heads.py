"""A plural that says what a list of names are to each other, set before the list ("The two sisters, Dorothea and
Celia, lived with their uncle", "the brothers Tom and Will"): each of the list is a person, every two of them
are kin (or allies, for "friends"), and the list is still the subject of its verb."""

from __future__ import annotations

from helpers.prose import people_of, related, relations_read

from game.graph.fast_extract.prose import read_story


def test_the_two_sisters_named_after_their_plural_are_people_and_kin() -> None:
    text = "The two sisters, Dorothea and Celia, lived with their uncle, Mr. Brooke."
    assert {"Dorothea", "Celia"} <= people_of(text)
    assert related(text, "Dorothea", "KIN_OF", "Celia")
    assert {"Tom", "Will"} <= people_of("The two brothers, Tom and Will, were never friends.")
    assert related("The two brothers, Tom and Will, were never friends.", "Tom", "KIN_OF", "Will")
    assert related("Both friends, Athos and Porthos, drew their swords.", "Athos", "ALLY_OF", "Porthos")


def test_the_list_after_a_plural_head_is_the_subject_of_its_verb() -> None:
    found = relations_read("The brothers Tom and Will hated Ann.")
    assert {("Tom", "HATES", "Ann"), ("Will", "HATES", "Ann")} <= found
    assert {("Tom", "HATES", "Ann"), ("Will", "HATES", "Ann")} <= relations_read("The boys Tom and Will hated Ann.")


def test_a_plural_that_owns_the_list_or_is_the_object_relates_no_member_to_another() -> None:
    assert not related("The sisters of Tom and Will came in.", "Tom", "KIN_OF", "Will")
    assert not related("The friends of Tom and Will laughed.", "Tom", "ALLY_OF", "Will")
    # "the boys Tom and Will" after a verb is its object: they hate nobody here
    assert not {r for r in relations_read("Ann met the boys Tom and Will.") if r[1] == "HATES"}


def test_two_roles_joined_before_of_give_the_first_its_relation() -> None:
    assert related("Mr. Brooke was the uncle and guardian of Dorothea.", "Mr. Brooke", "KIN_OF", "Dorothea")


def test_the_plural_of_a_surname_the_story_gives_a_person_is_that_family() -> None:
    text = "Edgar Linton came in. Catherine stayed five weeks with the Lintons, and Heathcliff hated the Lintons."
    found = {person.name: person.type for person in read_story(text).people}
    assert found.get("Lintons") == "group"
    assert related(text, "Heathcliff", "HATES", "Lintons")
    assert "Joneses" in people_of("Mr. Jones came. The Joneses hated Tom.")
    # a plural nobody's surname is nobody's family: mountains stay mountains
    assert "Alps" not in people_of("Tom Bell loved the Alps.")


def test_an_owner_s_plural_role_then_a_list_gives_each_of_the_list_that_role() -> None:
    text = "Mr. Earnshaw's children, Hindley and Catherine, ran to meet him."
    assert {"Hindley", "Catherine"} <= people_of(text)
    assert related(text, "Hindley", "KIN_OF", "Mr. Earnshaw")
    assert related(text, "Catherine", "KIN_OF", "Mr. Earnshaw")
    text = "Ann's servants, Tom and Will, fled."
    assert related(text, "Tom", "SERVES", "Ann") and related(text, "Will", "SERVES", "Ann")
    # a list that owns something is not the role's: "Tom and Will's mother" is their mother, no child of Ann's
    assert not related("Ann's sons, Tom and Will's mother, came.", "Will", "KIN_OF", "Ann")
