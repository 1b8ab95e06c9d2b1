"""Relations said inside a longer sentence (issue 26, ``game.graph.fast_extract.clauses``): a relative clause on
a name, a second predicate keeping its subject, a participle, a possessive role in apposition to a verb's
object, marriage said with the spouse's word; and the near misses each of them must refuse. Each text is read
as ``kith import-story`` reads a story (its people first, then its relations). Every sentence is written for
these tests; none is taken from the labelled passages."""

from __future__ import annotations

from helpers.prose import related as _related
from helpers.prose import relations_read as _relations

from game.graph.fast_extract.clauses import (
    apposition_readings,
    coordinated_readings,
    participle_readings,
    relative_readings,
)

_MET = "Tom Cole met John Pryor and Edward Hale at the inn. "


def _of(relations: set[tuple[str, str, str]], relation: str) -> set[tuple[str, str, str]]:
    return {r for r in relations if r[1] == relation}


def test_a_relative_clause_on_a_name_states_its_relation_of_that_name() -> None:
    # "said nothing" after the clause is what Edward did, not hearsay
    assert _related("Edward Hale, who was engaged to Lucy Garland, said nothing.", "Edward Hale", "ENGAGED_TO",
                    "Lucy Garland")
    assert _related("Edward Hale, who feared John Pryor, left the town.", "Edward Hale", "FEARS", "John Pryor")
    assert _related("Edward Hale, whom Lucy Garland loved, left the town.", "Lucy Garland", "LOVES", "Edward Hale")
    assert _related("Edward Hale, whose sister Lucy Garland was ill, left the town.", "Lucy Garland", "KIN_OF",
                    "Edward Hale")
    met = "Edward Hale met Lucy Garland. "
    assert _related(met + "Edward Hale, to whom Lucy Garland was engaged, left.", "Lucy Garland", "ENGAGED_TO",
                    "Edward Hale")
    assert _related(met + "Edward Hale, of whom Lucy Garland was afraid, left.", "Lucy Garland", "FEARS", "Edward Hale")
    assert _related(met + "Edward Hale, for whom Lucy Garland worked, left.", "Lucy Garland", "SERVES", "Edward Hale")
    assert not _of(_relations(met + "Edward Hale, to whom Lucy Garland was not engaged, left."), "ENGAGED_TO")
    # the main clause, with its subject's relative clause taken out
    assert _related("Edward Hale, who was tall, feared John Pryor.", "Edward Hale", "FEARS", "John Pryor")
    # a plural verb is about the whole list before it
    assert _related("Tom Cole met Will Barker. Tom Cole and Will Barker, who were old friends, sat down.",
                    "Tom Cole", "ALLY_OF", "Will Barker")


def test_a_relative_clause_that_may_be_another_s_or_is_denied_states_nothing() -> None:
    # "who" after "of" may describe the sister or Tom: nobody
    assert _relations("The sister of Tom Cole, who loved Anna Hale, sat down.") == set()
    # "who" without a comma is a question word here
    assert _relations("Tom Cole asked who loved Anna Hale.") == set()
    assert _relations("Edward Hale, who had never loved Lucy Garland, said nothing.") == set()
    assert _relations("If Edward Hale, who loved Lucy Garland, left, all was lost.") == set()
    # a singular verb after a list is one of them, and which is not sure
    assert not _of(_relations("Tom Cole met Will Barker. Tom Cole and Will Barker, who was tall, sat down."),
                   "ALLY_OF")
    assert relative_readings("⟨0⟩ said that ⟨1⟩, who loved ⟨2⟩, was gone.") == []
    assert relative_readings("⟨0⟩'s sister, who loved ⟨2⟩, was gone.") == []


def test_a_second_predicate_joined_by_and_keeps_the_first_subject() -> None:
    assert _related("John Pryor lived in the town and hated Thomas Hale heartily.", "John Pryor", "HATES",
                    "Thomas Hale")
    assert _related("Heath Cliffe loved Cathy Earn and hated Harold Earn.", "Heath Cliffe", "HATES", "Harold Earn")
    assert coordinated_readings("⟨0⟩ loved ⟨1⟩ but married ⟨2⟩") == ["⟨0⟩ married ⟨2⟩"]


def test_a_second_predicate_after_a_denial_a_clause_of_its_own_or_or_states_nothing() -> None:
    assert _relations(_MET + "John Pryor did not stay and hate Thomas Hale.") - _relations(_MET) == set()
    assert not _of(_relations(_MET + "John Pryor told Will Barker to go and serve Thomas Hale."), "SERVES")
    for text in ("John Pryor thought Will Barker was ill and hated Thomas Hale.",
                 "John Pryor said that Will Barker was ill and hated Thomas Hale.",
                 "John Pryor lived in the town or hated Thomas Hale."):
        assert not _of(_relations(_MET + text), "HATES"), text
    assert coordinated_readings("⟨0⟩ knew the man who lived there and loved ⟨1⟩") == []


def test_a_participle_s_doer_is_the_subject_beside_it() -> None:
    assert _related(_MET + "Fearing John Pryor, Edward Hale fled.", "Edward Hale", "FEARS", "John Pryor")
    assert _related("Edward Hale met Lucy Garland in May. Lucy Garland, loving Edward Hale, stayed.", "Lucy Garland",
                    "LOVES", "Edward Hale")
    assert participle_readings("having married ⟨1⟩, ⟨0⟩ left the town.") == ["⟨0⟩ had married ⟨1⟩"]
    # denied, or a verb whose "-ed" is no pattern's: nothing
    assert not _of(_relations(_MET + "Not fearing John Pryor, Edward Hale stayed."), "FEARS")
    assert not {r for r in _relations(_MET + "Seeing John Pryor, Edward Hale fled.") if r[0] == "Edward Hale"}
    # a bare past participle is as often passive ("Loved by ⟨1⟩, ⟨0⟩ ..."): not read
    assert participle_readings("loved by ⟨1⟩, ⟨0⟩ smiled.") == []


def test_a_verb_s_object_named_by_a_possessive_role_in_apposition_is_both() -> None:
    text = "Edward Hale feared his uncle, John Pryor."
    assert _related(text, "Edward Hale", "FEARS", "John Pryor") and _related(text, "John Pryor", "KIN_OF", "Edward Hale")
    # denied: the kinship stands, the fear does not
    assert _relations("Edward Hale never feared his uncle, John Pryor.") == {("John Pryor", "KIN_OF", "Edward Hale")}
    # a comma splice: the name after the comma begins a clause of its own
    assert ("Edward Hale", "FEARS", "John Pryor") not in _relations("Edward Hale feared his uncle, John Pryor hated him.")
    # a list after the role: which of them is the uncle is not sure
    assert not _of(_relations("Edward Hale loved his uncle, John Pryor, Lucy Garland and Tom Cole."), "LOVES")


def test_marriage_said_with_the_spouse_s_word_and_service_of_a_pronoun() -> None:
    assert _related("Mr. Earn and Harold Earn sat down. Harold Earn took a wife, Frances.", "Harold Earn", "KIN_OF",
                    "Frances")
    assert _related("Catherine Earnshaw loved Heathcliff, but married Edgar Linton.", "Catherine Earnshaw", "KIN_OF",
                    "Edgar Linton")
    # a father marrying his daughter to someone is not his marriage
    assert not _of(_relations("Mr. Earn married Cathy Earn to Heath Cliffe."), "KIN_OF")
    assert _related("Mr. Garland came in. Thomas Hale had served him as a clerk.", "Thomas Hale", "SERVES", "Mr. Garland")
    assert _related("Mr. Garland came in. Thomas Hale had served him for years.", "Thomas Hale", "SERVES", "Mr. Garland")
    assert _related("Old Joseph, the servant of Mr. Earn, said nothing.", "Joseph", "SERVES", "Mr. Earn")
    assert _related("Fogg Vane was bold, and he found in Sir Francis Drew an enthusiastic ally.", "Fogg Vane", "ALLY_OF",
                    "Sir Francis Drew")


def test_a_feeling_owned_as_a_noun_is_its_owner_s() -> None:
    assert _related("Hindley Earn met Heath Cliffe. Hindley Earn's hatred of Heath Cliffe grew.", "Hindley Earn",
                    "HATES", "Heath Cliffe")
    assert _related("Cathy Earn spoke to Edgar Lint, and her love for Edgar Lint was plain.", "Cathy Earn", "LOVES",
                    "Edgar Lint")
    met = "Tom Cole met John Pryor at the inn. "
    assert _related(met + "Tom Cole hid his fear of John Pryor.", "Tom Cole", "FEARS", "John Pryor")
    # mastered, denied, ended, in a condition, or owned by one of two: nothing
    for text in ("Tom Cole had overcome his fear of John Pryor.", "Tom Cole felt no fear of John Pryor.",
                 "If his fear of John Pryor grew, he would leave."):
        assert not _of(_relations(met + text), "FEARS"), text
    assert not _of(_relations("Cathy Earn smiled at Edgar Lint. Her love for Edgar Lint had died long ago."), "LOVES")
    assert not _of(_relations("Tom Cole and Will Barker talked with John Pryor. His fear of John Pryor was great."),
                   "FEARS")


def test_brother_and_sister_said_of_two_is_kinship() -> None:
    met = "Hindley Earn kissed Cathy Earn. "
    assert _related(met + "Hindley Earn and Cathy Earn were brother and sister.", "Hindley Earn", "KIN_OF", "Cathy Earn")
    assert _relations(met + "Hindley Earn and Cathy Earn were never brother and sister.") == set()


def test_a_marriage_or_betrothal_owned_as_a_noun_unless_still_to_come_or_broken_off() -> None:
    kissed = "Ethan Frame kissed Zelda Pierce. "
    assert _related(kissed + "His marriage to Zelda Pierce was a sad one.", "Ethan Frame", "KIN_OF", "Zelda Pierce")
    smiled = "Cathy Earn smiled at Edgar Lint. "
    assert _related(smiled + "Her engagement to Edgar Lint surprised everyone.", "Cathy Earn", "ENGAGED_TO", "Edgar Lint")
    assert not _of(_relations(kissed + "His marriage to Zelda Pierce would take place in May."), "KIN_OF")
    assert not _of(_relations(smiled + "Her engagement to Edgar Lint was broken off."), "ENGAGED_TO")
    assert not _of(_relations(smiled + "Her marriage to Edgar Lint was arranged by her brother."), "KIN_OF")


def test_children_counted_then_named_after_a_colon_or_one_by_one() -> None:
    assert _related("Mr. Earn had two children: Hindley and Cathy.", "Mr. Earn", "KIN_OF", "Cathy")
    text = "Hugh Earn had a son, Harold, and a daughter, Cathy."
    assert _related(text, "Hugh Earn", "KIN_OF", "Harold") and _related(text, "Hugh Earn", "KIN_OF", "Cathy")
    for text in ("Hugh Earn never had two children: Hindley and Cathy.",
                 "If Hugh Earn had a son, Harold, and a daughter, Cathy, all would be well.",
                 "Hugh Earn had two children: Hindley and Cathy loved them."):
        assert not _of(_relations(text), "KIN_OF"), text


def test_an_object_pronoun_before_an_adverb_is_the_one_named_before() -> None:
    assert _related("Mr. Garland came in. Thomas Hale feared him bitterly.", "Thomas Hale", "FEARS", "Mr. Garland")
    assert _related("Mrs. Garland came in. Thomas Hale loved her more than anyone.", "Thomas Hale", "LOVES",
                    "Mrs. Garland")
    # "her" before an adjective owns what follows: no love of Mrs. Garland herself
    assert not _of(_relations("Mrs. Garland came in. Thomas Hale loved her lovely daughter."), "LOVES")


def test_dislike_and_fondness_are_no_relation_of_the_vocabulary() -> None:
    # weaker than HATES and LOVES, whose weight they would overstate
    kissed = "Cathy Earn kissed Heath Cliffe. "
    assert _relations(kissed + "Cathy Earn disliked Heath Cliffe.") == _relations(kissed)
    assert _relations(kissed + "Cathy Earn was fond of Heath Cliffe.") == _relations(kissed)


def test_a_subject_with_a_role_beside_it_in_commas_does_what_the_main_clause_says() -> None:
    # The role is read as before; what the subject does is read with the role taken out.
    text = "John Pryor, Margaret Hale's brother, lived in the town and hated Thomas Hale heartily."
    assert {("John Pryor", "KIN_OF", "Margaret Hale"), ("John Pryor", "HATES", "Thomas Hale")} <= _relations(text)
    assert ("John Pryor", "HATES", "Thomas Hale") in _relations(
        "John Pryor, the miller's cousin, hated Thomas Hale. John Pryor laughed.")
    before = '"Go home," said John Pryor. Margaret Hale\'s brother, John Pryor, hated Thomas Hale.'
    assert ("John Pryor", "HATES", "Thomas Hale") in _relations(before)
    assert apposition_readings("⟨0⟩, ⟨1⟩'s brother, hated ⟨2⟩") == ["⟨0⟩ hated ⟨2⟩"]


def test_an_apposition_refuses_lists_denials_conditions_and_reported_words() -> None:
    # A list of three ("John, Margaret's brother, and Thomas"): the one after "and" is no role's.
    assert not _of(_relations("John Pryor, Margaret Hale's brother, and Thomas Hale hated Edward Hale."), "HATES") \
        - {("Thomas Hale", "HATES", "Edward Hale")}
    assert not _of(_relations("John Pryor, Margaret Hale's brother, did not hate Thomas Hale."), "HATES")
    assert not _of(_relations("If John Pryor, Margaret Hale's brother, hated Thomas Hale, nobody knew it."), "HATES")
    assert apposition_readings("⟨0⟩, ⟨1⟩'s brother, and ⟨2⟩ left") == []
