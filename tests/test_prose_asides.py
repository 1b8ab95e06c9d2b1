"""Asides in commas taken out before a clause is read (game/graph/fast_extract/asides.py): comment,
common knowledge, manner and a subject's description; never a hedge, a denial or someone named."""

from __future__ import annotations

from helpers.prose import related, relations_read


def test_an_aside_of_comment_or_common_knowledge_does_not_hide_the_clause() -> None:
    assert related("Tom Pike, of course, loved Ann Carr.", "Tom Pike", "LOVES", "Ann Carr")
    assert related("Tom Pike, as everyone knew, loved Ann Carr.", "Tom Pike", "LOVES", "Ann Carr")
    assert related("Tom Pike had always, in his quiet way, loved Ann Carr.", "Tom Pike", "LOVES", "Ann Carr")
    assert related("Tom Pike, however, feared Will Barker.", "Tom Pike", "FEARS", "Will Barker")
    # inside a relative clause too
    assert related("Edward Ferrars, who, as everyone knew, loved Lucy Steele, said nothing.",
                   "Edward Ferrars", "LOVES", "Lucy Steele")


def test_a_description_set_after_the_subject_is_taken_out() -> None:
    # (Tom Pike is a person by what the story says of him elsewhere: a description alone makes nobody a person,
    # "Paris, the capital, welcomed him")
    known = "Tom Pike said nothing. "
    assert related(known + "Tom Pike, the miller, feared Will Barker.", "Tom Pike", "FEARS", "Will Barker")
    assert related(known + "Tom Pike, a quiet man of forty, hated Will Barker.", "Tom Pike", "HATES", "Will Barker")


def test_a_hedge_a_denial_or_a_clause_of_its_own_in_the_aside_states_nothing() -> None:
    for text in ("Tom Pike, perhaps, feared Will Barker.", "Tom Pike, it was said, hated Will Barker.",
                 "Tom Pike, not unkindly, hated Will Barker.", "Tom Pike, probably, loved Ann Carr.",
                 "Tom Pike, the man who hated Ann Carr, feared Will Barker."):
        assert relations_read(text) & {("Tom Pike", r, t) for r in ("FEARS", "HATES", "LOVES")
                                       for t in ("Will Barker", "Ann Carr")} == set(), text
