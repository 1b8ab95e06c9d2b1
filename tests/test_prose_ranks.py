"""A line that calls the one it speaks to by rank ("Sire", "your Eminence"): the story's one person of that rank
is the "you" of the line, and nobody when the story has two of that rank or none."""

from __future__ import annotations

from helpers.prose import related, relations_read

from game.graph.fast_extract.gazetteer import Entity, NameIndex
from game.graph.fast_extract.ranks import called_by_rank


def test_sire_is_the_one_king_of_the_story() -> None:
    text = "The King sat alone. “Sire,” said the Cardinal, “I am your most faithful servant.”"
    assert related(text, "the Cardinal", "SERVES", "the King")


def test_your_eminence_is_the_one_cardinal_wherever_it_stands() -> None:
    text = "The Cardinal looked up. “Your Eminence is my enemy,” said d'Artagnan."
    assert related(text, "d'Artagnan", "ENEMY_OF", "the Cardinal")


def test_a_rank_two_people_hold_or_nobody_holds_calls_no_one() -> None:
    text = ("The King of Spain and the King of France met. "
            "“Sire,” said the Cardinal, “I am your most faithful servant.”")
    assert not {r for r in relations_read(text) if r[1] == "SERVES"}
    assert not {r for r in relations_read("“Sire,” said Tom, “I am your servant.”") if r[1] == "SERVES"}


def test_sire_inside_a_sentence_is_no_call() -> None:
    king = Entity("king", "the King", "individual")
    index = NameIndex({"the king": [king]})
    assert called_by_rank("His sire was a bay horse.", index) == []  # a horse's father
    assert called_by_rank("Pardon, sire, the horses are ready.", index) == [king]
    assert called_by_rank("If your Majesty would condescend to state your case.", index) == [king]


def test_the_king_and_the_cardinal_written_in_lower_case_are_people() -> None:
    # translations write the one king, queen and cardinal without a capital
    text = "the queen loved Buckingham, and the cardinal hated the queen."
    assert related(text, "the Queen", "LOVES", "Buckingham")
    assert related(text, "the Cardinal", "HATES", "the Queen")
    assert related("Tom hated the king.", "Tom", "HATES", "the King")
    # a lower-case word that only looks like a rank is no one: "the count" of votes, "the kingdom"
    assert not relations_read("Tom hated the count, and Ann loved the kingdom.")
