"""Feelings a novel tells with an adverb between the name and the verb, or in the present tense ("Dorothea quite
despises Sir James Chettam", "She soon hated him"): the one who feels is a person, and the feeling is read."""

from __future__ import annotations

from helpers.prose import people_of, related


def test_a_feeling_in_the_present_makes_its_subject_a_person() -> None:
    assert "Dorothea" in people_of("Dorothea despises James.")
    assert related("Dorothea despises James.", "Dorothea", "HATES", "James")
    assert related("Isolde adores Tristan.", "Isolde", "LOVES", "Tristan")
    # a place does none of these: "London" before a plain verb in the present stays nobody
    assert "London" not in people_of("London sleeps under the fog, and Tom walks home.")


def test_an_adverb_of_degree_or_time_between_the_one_who_feels_and_the_verb_is_read_through() -> None:
    text = "Celia thought privately, “Dorothea quite despises Sir James Chettam; I believe she would not accept him.”"
    assert related(text, "Dorothea", "HATES", "Sir James Chettam")
    assert related("Charles married Emma. She soon hated him.", "Emma", "HATES", "Charles")
    assert related("Tom thoroughly distrusted Will.", "Tom", "DISTRUSTS", "Will")
    # "never" denies the feeling: nothing is read past it
    assert not related("Tom never loved Ann.", "Tom", "LOVES", "Ann")
    assert not related("Tom once loved Ann.", "Tom", "LOVES", "Ann")  # a feeling that was, not one that is
