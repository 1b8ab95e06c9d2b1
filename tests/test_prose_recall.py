"""Recall rules of task i26 (issue 26), on sentences written for them: an object pronoun that ends its
phrase, a feeling that begins, a kin title inside an owned name, household servants, exclamations that are
not people, and quotes run together on one line taken as turns. Each text is read as ``kith import-story``
reads a story: its people found in it, then the fast path; the near misses must state nothing."""

from __future__ import annotations

import pytest
from helpers.prose import relations_read as _relations

from game.graph.fast_extract.prose import read_story
from game.graph.fast_extract.quotes import turns


@pytest.mark.parametrize(("text", "expected"), [
    # The object pronoun is the one named before, not the one doing.
    ("Oswin came down the lane with a basket of eggs, and Perpetua hated him.",
     {("Perpetua", "HATES", "Oswin")}),
    ("Perpetua sat by the fire. Oswin trusted her, and went out.", {("Oswin", "TRUSTS", "Perpetua")}),
    # A feeling that begins is the feeling.
    ("Oswin began to love Perpetua.", {("Oswin", "LOVES", "Perpetua")}),
    ("Perpetua came to trust Oswin.", {("Perpetua", "TRUSTS", "Oswin")}),
    # A name with a kin title, owned: "Oswin's Uncle Barnaby".
    ("“Give this to your Uncle Barnaby, Oswin,” said Perpetua. Oswin laughed.", {("Oswin", "KIN_OF", "Uncle Barnaby")}),
    # Servants of a household and a firm.
    ("Oswin laughed. Mrs. Tibbs, Oswin's housekeeper, laughed too.", {("Mrs. Tibbs", "SERVES", "Oswin")}),
    ("Oswin Hale sighed. Barnaby Rudd, clerk to Oswin Hale, wrote the letter.",
     {("Barnaby Rudd", "SERVES", "Oswin Hale")}),
])
def test_the_rule_reads_the_relation(text: str, expected: set[tuple[str, str, str]]) -> None:
    assert expected <= _relations(text)


@pytest.mark.parametrize("text", [
    # Two people before the pronoun besides the one doing: nobody sure.
    "Barnaby laughed. Oswin told Barnaby that Perpetua hated him.",
    # "her" before a noun is a possessive, not the one loved.
    "Perpetua sat with Oswin, and Barnaby loved her garden.",
    # "took unto him" is no object of a feeling.
    "Oswin took unto him two horses, and Perpetua laughed.",
    # A kin title that nobody owns.
    "Uncle Barnaby and Oswin walked to the mill together.",
])
def test_the_near_misses_state_no_relation(text: str) -> None:
    assert not {r for r in _relations(text) if r[1] in {"HATES", "LOVES", "KIN_OF"}}


def test_exclamations_that_open_a_line_are_not_people() -> None:
    text = "“Humph! tell your brother, Oswin, not to bother me,” said Barnaby. “Faith,” muttered Oswin, “I will.”"
    names = {p.name for p in read_story(text).people}
    assert "Humph" not in names and "Faith" not in names
    assert {"Oswin", "Barnaby"} <= names


def test_quotes_run_together_on_one_line_are_turns() -> None:
    line = "“Where is it?” asked Oswin. “In the mill.” “Then go there.”"
    assert turns(line) == ["“Where is it?” asked Oswin. “In the mill.”", "“Then go there.”"]
    assert turns('"Now?" "Yes."') == ['"Now?"', '"Yes."']
    # A quote that goes on after narration stays in its paragraph.
    assert turns("“Come,” said Oswin, “now.”") == ["“Come,” said Oswin, “now.”"]
