"""A capital by position or by name (game/graph/fast_extract/capitals.py): "Suddenly" opens a sentence,
"Polly" and "Emily" are people wherever the text writes them."""

from __future__ import annotations

from helpers.prose import people_of, related


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


def test_a_month_or_a_modal_that_is_also_a_girls_name_is_one_before_a_surname_in_mid_sentence() -> None:
    # "May" was dropped wherever it stood, so May Welland was nobody and her engagement went unread
    assert related("Newland Archer was engaged to May Welland.", "Newland Archer", "ENGAGED_TO", "May Welland")
    assert related("Ellen Olenska was the cousin of May Welland.", "Ellen Olenska", "KIN_OF", "May Welland")
    assert "June Hale" in people_of("Tom Carr looked at June Hale, and she smiled.")


def test_a_month_in_a_date_or_a_modal_opening_a_question_is_still_nobody() -> None:
    assert people_of("“May I come in?” asked Tom.") == {"Tom"}
    assert people_of("On the fifth of May Tom Hale married Ann.") == {"Tom Hale", "Ann"}
    assert people_of("In May Tom Hale rode home, and Ann went with him.") == {"Tom Hale", "Ann"}


def test_a_name_whose_capital_carries_an_accent_is_whole() -> None:
    # "Émile Zola" was read as "Zola", and "Élise Durand" was nobody
    assert related("Émile Zola loved Élise Durand.", "Émile Zola", "LOVES", "Élise Durand")
    assert people_of("Ørsted feared Åsa Berg.") == {"Ørsted", "Åsa Berg"}
    assert related("Mrs. Welland and her daughter May sat in the box.", "May", "KIN_OF", "Mrs. Welland")
    assert people_of("The wedding was fixed for the first of May. It was a fine May morning.") == set()


def test_a_month_after_a_title_is_a_name_not_a_date() -> None:
    # "Aunt March" was nobody, so the girls' fear of her went unread
    assert related("Meg and Jo feared Aunt March.", "Meg", "FEARS", "Aunt March")
    assert related("Meg and Jo feared Aunt March.", "Jo", "FEARS", "Aunt March")
    assert people_of("In March Tom came home.") == {"Tom"}
