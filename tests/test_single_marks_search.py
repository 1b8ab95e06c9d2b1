"""The said-tag search beside single quoting marks anchors on the marks (a 2 MB story took a second on
the one long pattern) and answers exactly what the one pattern answers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from game.graph.fast_extract.single_marks import _SAID_AFTER_SINGLE, said_after_single, single_quotes_doubled

PIECES = ["'", "‘", "’", ",", ".", "!", "?", " ", "  ", "\n", ":", "—", "-", "said", "asked", "Rat", "he",
          "she", "the Mole", "Hullo", "a", "X", "don't", "Toad's"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=24))
def test_the_mark_anchored_search_agrees_with_the_one_pattern(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert said_after_single(text) == bool(_SAID_AFTER_SINGLE.search(text))


def test_a_tag_far_before_its_quote_or_a_plain_apostrophe_is_no_said_tag() -> None:
    assert said_after_single("'Hullo, Mole!' said the Water Rat.")
    assert said_after_single("Mole said, 'Hullo.'")
    assert not said_after_single("The Toad's boat, don't you see, was the Rats' own.")
    assert not said_after_single("He said nothing for a long while" + " and walked" * 10 + ", 'Hullo.'")
    assert single_quotes_doubled("'Hullo, Mole!' said the Water Rat.") == "“Hullo, Mole!” said the Water Rat."
