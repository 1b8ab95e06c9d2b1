"""Relations prose states in its own forms (issue 26): kin in apposition and in lists, begetting and
births, a subject that runs on into the next clause, killing; and the near misses that state nothing.
Each text is read as ``kith import-story`` reads a story: its people found in it, then the fast path."""

from __future__ import annotations

import pytest

from game.graph.fast_extract.extractor import FastExtractor
from game.graph.fast_extract.prose import cast_index, read_story


def _relations(text: str) -> set[tuple[str, str, str]]:
    reading = read_story(text)
    found = FastExtractor().extract(text, cast_index(reading.people))
    return {_order(t.source, t.relation, t.target) for t in found.triples}


def _order(source: str, relation: str, target: str) -> tuple[str, str, str]:
    """Kin and enmity run both ways: one order for either direction."""
    if relation in {"KIN_OF", "ENEMY_OF", "ALLY_OF"} and target < source:
        source, target = target, source
    return (source, relation, target)


@pytest.mark.parametrize(("text", "expected"), [
    # A name, then "his wife" / "his brother": the possessive is the subject's.
    ("Adam knew Eve his wife. Adam wept, and Eve smiled.", {("Adam", "KIN_OF", "Eve")}),
    ("Cain rose up against Abel his brother, and slew him. Cain fled; Abel lay still.",
     {("Cain", "KIN_OF", "Abel"), ("Cain", "ENEMY_OF", "Abel")}),
    # Begetting, a list of children with its Oxford comma, a birth.
    ("Noah begat Shem, Ham, and Japheth.", {("Noah", "KIN_OF", "Shem"), ("Noah", "KIN_OF", "Ham"),
                                            ("Noah", "KIN_OF", "Japheth")}),
    ("Irad begat Mehujael: and Mehujael begat Lamech.", {("Irad", "KIN_OF", "Mehujael"),
                                                        ("Mehujael", "KIN_OF", "Lamech")}),
    # The subject runs on past a clause of circumstance into "and begat", "and called his name".
    ("Seth lived an hundred and five years, and begat Enos.", {("Seth", "KIN_OF", "Enos")}),
    ("Adam lived an hundred and thirty years, and begat a son in his own likeness, and after his image; and "
     "called his name Seth.", {("Adam", "KIN_OF", "Seth")}),
    ("Mira Holt trusts Tomas Reed, and fears Oren Vale.", {("Mira Holt", "TRUSTS", "Tomas Reed"),
                                                          ("Mira Holt", "FEARS", "Oren Vale")}),
    # A list in apposition; "the sister of X was Y"; "X and his wife Y"; "whom X slew".
    ("Noah wept, and loved Shem, Ham, and Japheth. Shem, Ham and Japheth, the sons of Noah, went in.",
     {("Shem", "KIN_OF", "Noah"), ("Ham", "KIN_OF", "Noah"), ("Japheth", "KIN_OF", "Noah"),
      ("Noah", "LOVES", "Shem"), ("Noah", "LOVES", "Ham"), ("Noah", "LOVES", "Japheth")}),
    ("Tubal Roe laughed. The sister of Tubal Roe was Naamah Roe, and Naamah Roe laughed too.",
     {("Naamah Roe", "KIN_OF", "Tubal Roe")}),
    ("Mr. Bennet and his wife Anne Bennet came in.", {("Mr. Bennet", "KIN_OF", "Anne Bennet")}),
    ("She wept for Abel, whom Cain slew. Cain said nothing.", {("Cain", "ENEMY_OF", "Abel")}),
])
def test_prose_kinship_begetting_and_killing_are_read(text: str, expected: set[tuple[str, str, str]]) -> None:
    assert _relations(text) == {_order(*relation) for relation in expected}


@pytest.mark.parametrize("text", [
    # News about a brother is not kinship with the one told it.
    "Mira Holt told Tomas Reed her brother was dead. Tomas Reed wept.",
    # A new subject ends the one before: nobody's fear is Mira's.
    "Mira Holt trusts nobody, and nobody fears Oren Vale. Oren Vale laughed.",
    # ", and" with a verb after it still ends a clause: Oren's fear is not Mira's trust.
    "Mira Holt trusts Tomas Reed, and Oren Vale fears nobody.",
])
def test_near_misses_state_nothing_more(text: str) -> None:
    found = _relations(text)
    assert not {r for r in found if r[1] in {"KIN_OF", "FEARS"}}, found
    assert ("Mira Holt", "TRUSTS", "Oren Vale") not in found
