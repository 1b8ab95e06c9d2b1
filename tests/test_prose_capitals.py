"""A capital by position or by name (game/graph/fast_extract/capitals.py): "Suddenly" opens a sentence,
"Polly" and "Emily" are people wherever the text writes them."""

from __future__ import annotations

from helpers.prose import related

from game.graph.fast_extract.prose import read_story


def people_of(text: str) -> set[str]:
    return {person.name for person in read_story(text).people}


def test_a_name_ending_in_ly_is_a_person_when_the_text_writes_it_with_a_capital_mid_sentence() -> None:
    assert "Polly" in people_of("“Go to bed, Polly,” said her mother.")
    # a full name keeps its first name ("Brown" alone was all that was left of Emily Brown)
    assert "Emily Brown" in people_of("Emily Brown looked at Tom Carr. Then Emily laughed, and Tom frowned.")
    assert "Nelly Dean" in people_of("He spoke to Nelly at the door. Nelly Dean said nothing at all.")
    # and so its relations are read
    assert related("Sally Forth was a lively girl. Tom Pike loved Sally dearly, and Sally trusted him.",
                   "Tom Pike", "LOVES", "Sally Forth")


def test_an_adverb_that_opens_a_sentence_is_nobody() -> None:
    assert people_of("Suddenly Holmes rose. “Really, Watson,” said he. Slowly Watson sat down.") == {"Holmes", "Watson"}
    # a "-ly" word the text also writes in lower case is an adverb even where a list capitalises it
    assert "Presently" not in people_of("Presently Tom came in, and presently, Bartholomew, Presently Ann left.")
    # a "-ly" name written only where a sentence starts is not guessed at
    assert people_of("Molly came in.") == set()
