"""An unnamed spouse ("her husband", "his wife", "Emma's husband") read as the one marriage the story stated
before (``game.graph.fast_extract.spouses``), and every case where who is meant is not plain read as nobody."""

from __future__ import annotations

from helpers.prose import relations_read as _relations

_MARRIED = "Emma married Charles Bovary. "


def _said(text: str, sentence: str) -> set[tuple[str, str, str]]:
    """What ``text`` reads from its one sentence ``sentence`` (the marriage stated before it left out)."""
    from game.graph.fast_extract.extractor import FastExtractor
    from game.graph.fast_extract.prose import cast_index, read_story

    found = FastExtractor().extract(text, cast_index(read_story(text).people))
    return {(t.source, t.relation, t.target) for t in found.triples if t.sentence == sentence}


def test_her_husband_is_the_one_husband_a_marriage_stated_before() -> None:
    assert ("Emma", "FEARS", "Charles Bovary") in _relations(_MARRIED + "Emma feared her husband.")
    # the marriage said with a spouse's noun, a name as the owner, and "his wife" the other way round
    assert ("Emma", "FEARS", "Charles Bovary") in _relations(
        "Charles Bovary, Emma's husband, was a country doctor. Emma feared her husband.")
    assert ("Emma", "HATES", "Charles Bovary") in _relations(
        "Emma was the wife of Charles Bovary. Emma hated her husband.")
    assert ("Charles Bovary", "HATES", "Mr. Boldwood") in _relations(
        _MARRIED + "Mr. Boldwood came to the farm. Emma's husband hated Mr. Boldwood.")
    assert ("Charles Bovary", "LOVES", "Emma") in _relations(_MARRIED + "Charles loved his wife.")
    # "her" as the one person the sentence before named
    text = _MARRIED + "Emma sat alone by the window. She trusted her husband."
    assert ("Emma", "TRUSTS", "Charles Bovary") in _relations(text)


def test_a_spouse_named_beside_the_noun_is_read_once_as_before() -> None:
    for line in ("Emma feared her husband, Charles.", "Emma feared her husband Charles."):
        assert _said(_MARRIED + line, line) == {("Emma", "FEARS", "Charles Bovary")}
    line = "Emma's husband was Charles."
    assert _said(_MARRIED + line, line) <= {("Emma", "KIN_OF", "Charles Bovary"), ("Charles Bovary", "KIN_OF", "Emma")}
    line = "Charles was her husband, and Emma hated Mr. Boldwood."
    text = _MARRIED + "Mr. Boldwood came to the farm. " + line
    assert _said(text, line) == {("Emma", "HATES", "Mr. Boldwood")}


def test_no_marriage_stated_before_reads_nobody() -> None:
    assert _said("Emma walked with Ann. Emma feared her husband.", "Emma feared her husband.") == set()
    # a marriage stated in the same line, or only later, is not one stated before it
    line = "Emma feared her husband."
    assert _said(line + " " + _MARRIED, line) == set()
    # a marriage not stated: a hope, a denial
    assert _said("Emma hoped to marry Charles Bovary. " + line, line) == set()
    assert _said("Emma never married Charles Bovary. " + line, line) == set()


def test_two_husbands_stated_read_nobody() -> None:
    line = "Emma feared her husband."
    assert _said(_MARRIED + "Later Emma married Leon Dupuis. " + line, line) == set()
    assert _said("Charles Bovary, Emma's husband, was a doctor. Leon Dupuis, Emma's husband, was a clerk. " + line,
                 line) == set()


def test_an_owner_who_may_be_either_of_two_women_reads_nobody() -> None:
    text = _MARRIED + "Emma and Ann Lemoine came in from the garden. Her husband feared them."
    assert _said(text, "Her husband feared them.") == set()
    line = "Emma and Ann Lemoine sat together; her husband trusted Mr. Boldwood."
    assert _said(_MARRIED + "Mr. Boldwood came to the farm. " + line, line) == set()


def test_a_kin_word_beside_the_marriage_makes_no_spouse_of_the_kin() -> None:
    # Ann's marriage is Ann's: Emma's sister is not Emma's spouse, nor her sister's husband
    text = _MARRIED + "Emma's sister Ann married Tom Lemoine. Ann feared her husband. Emma feared her husband."
    found = _relations(text)
    assert ("Ann", "FEARS", "Tom Lemoine") in found
    assert ("Emma", "FEARS", "Ann") not in found and ("Emma", "FEARS", "Tom Lemoine") not in found
    # ... and as a line naming Emma spoke of a marriage that was not hers, Emma is no longer sure of
    assert ("Emma", "FEARS", "Charles Bovary") not in found


def test_a_marriage_the_patterns_did_not_read_makes_the_spouse_unsure() -> None:
    line = "Emma feared her husband."
    for before in ("Later Emma married Leon Dupuis. ", "Emma hoped to marry Leon Dupuis. ",
                   "Emma feared her new husband. ", "Emma thought of her late husband. "):
        assert _said(_MARRIED + before + line, line) == set(), before
    # a bare "her husband" only refers to the spouse: it states no second one
    text = _MARRIED + "Emma feared her husband's temper. Emma pitied her husband. Emma hated her husband."
    assert _said(text, "Emma hated her husband.") == {("Emma", "HATES", "Charles Bovary")}


def test_a_spouse_qualified_or_compounded_is_not_read() -> None:
    for line in ("Emma feared her late husband.", "Emma feared her new husband.", "Emma feared her ex-husband.",
                 "Emma feared her husband's mother.", "Emma feared her husband-to-be."):
        assert _said(_MARRIED + line, line) == set(), line


def test_a_quoted_line_is_left_alone() -> None:
    text = _MARRIED + "\"My husband is away,\" said Emma. \"Her husband frightens me,\" said Ann."
    assert _said(text, "\"My husband is away,\" said Emma.") == set()
    assert _said(text, "\"Her husband frightens me,\" said Ann.") == set()
    line = "\"I fear my husband,\" said Emma."
    assert ("Emma", "FEARS", "Charles Bovary") not in _said(_MARRIED + line, line)


def test_a_pronoun_after_the_spouse_read_without_them_leaves_the_line_alone() -> None:
    # "him" was read as someone other than the doer before it, and the doer is the husband: nobody is sure
    line = "Emma wrote to Mr. Boldwood; her husband hated him."
    assert _said(_MARRIED + "Mr. Boldwood came to the farm. " + line, line) == set()


def test_a_husband_the_text_calls_a_woman_is_no_husband() -> None:
    # "Mrs. Lemoine" is a woman: "his wife" of her husband reads her, "her husband" of Mrs. Lemoine nobody
    text = "Tom Lemoine married Mrs. Lemoine. Tom Lemoine loved his wife."
    assert ("Tom Lemoine", "LOVES", "Mrs. Lemoine") in _relations(text)
    line = "Tom Lemoine loved her husband."
    assert _said("Tom Lemoine married Mrs. Lemoine. " + line, line) == set()
