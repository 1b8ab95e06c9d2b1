"""A month that is also a girl's name ("May") at a sentence's start or owning a person: "May Welland came in"
and "May's cousin" are a woman, "May Heaven forgive you" a wish and "In May Tom married Ann" a date."""

from __future__ import annotations

from helpers.prose import people_of, related


def test_may_and_a_surname_opening_a_sentence_with_a_past_verb_is_a_woman() -> None:
    assert "May Welland" in people_of("May Welland came in. Archer bowed.")
    assert "June Carter" in people_of("June Carter sang, and Tom listened.")


def test_may_owning_a_person_is_the_woman_the_story_names() -> None:
    text = "May Welland came in. Ellen Olenska was May's cousin."
    assert related(text, "Ellen Olenska", "KIN_OF", "May Welland")


def test_a_wish_or_a_date_is_no_one() -> None:
    assert not people_of("May Heaven forgive you.")
    assert people_of("In May Tom married Ann.") == {"Tom", "Ann"}
    assert "May" not in people_of("May's roses bloomed, and Tom loved Ann.")
