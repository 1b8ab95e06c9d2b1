"""Lists of people with one predicate (issue 26): each member holds a role or a feeling towards someone else,
and no member is related to another by it; a bond said of the list alone ("were friends", "hated each other")
is the members' bond among themselves. Each text is read as ``kith import-story`` reads a story (its people
first, then its relations), so a member the people reader misses fails here too. Every sentence is written
for these tests; none is taken from the labelled passages."""

from __future__ import annotations

from helpers.prose import relations_read as _relations

from game.graph.fast_extract.lists import list_end, list_readings
from game.graph.fast_extract.prose import read_story


def _people(text: str) -> set[str]:
    return {person.name for person in read_story(text).people}


def _among(found: set[tuple[str, str, str]], members: set[str]) -> set[tuple[str, str, str]]:
    """The relations ``found`` states between two members of a list."""
    return {r for r in found if r[0] in members and r[2] in members}


def test_a_list_that_is_friends_of_another_is_each_that_ones_friend_and_not_each_others() -> None:
    text = "Athos, Porthos and Aramis were friends of Tom."
    found = _relations(text)
    assert found == {(friend, "ALLY_OF", "Tom") for friend in ("Athos", "Porthos", "Aramis")}
    assert {"Athos", "Porthos", "Aramis", "Tom"} <= _people(text)


def test_a_role_said_of_a_list_is_each_members_in_every_form() -> None:
    sons = {("Tom", "KIN_OF", "Ann"), ("Will", "KIN_OF", "Ann")}
    assert _relations("Tom and Will were the sons of Ann.") == sons
    assert _relations("Tom and Will were Ann's sons.") == sons
    assert _relations("Tom and Will, the sons of Ann, came in.") == sons
    assert _relations("Tom, Will, and Harry were cousins of Mr. Hale.") == {
        (cousin, "KIN_OF", "Mr. Hale") for cousin in ("Tom", "Will", "Harry")}
    assert _relations("Tom and Will were the servants of Mr. Hale.") == {
        ("Tom", "SERVES", "Mr. Hale"), ("Will", "SERVES", "Mr. Hale")}
    assert _relations("Tom and Will were enemies of the Duke.") == {
        ("Tom", "ENEMY_OF", "the Duke"), ("Will", "ENEMY_OF", "the Duke")}


def test_a_role_in_apposition_to_a_list_is_each_members_and_the_main_clause_too() -> None:
    found = _relations("Tom and Will, Ann's sons, feared Meg.")
    assert found == {("Tom", "KIN_OF", "Ann"), ("Will", "KIN_OF", "Ann"), ("Tom", "FEARS", "Meg"),
                     ("Will", "FEARS", "Meg")}
    # a relative clause on the list says the same
    assert _relations("Tom and Will, who were friends of Ann, came to the door.") == {
        ("Tom", "ALLY_OF", "Ann"), ("Will", "ALLY_OF", "Ann")}


def test_a_singular_role_after_a_list_is_its_last_members_alone() -> None:
    # "the son of Will" describes Tom, not Ann
    assert _relations("Ann and Tom, the son of Will, came in.") == {("Tom", "KIN_OF", "Will")}


def test_a_listed_subject_shares_its_verb_in_every_shape_of_list() -> None:
    fear = {("Meg", "FEARS", "Ann"), ("Jo", "FEARS", "Ann")}
    assert _relations("Meg and Jo feared Ann.") == fear
    assert _relations("Both Meg and Jo feared Ann.") == fear
    assert _relations("Tom and Will served the Duke.") == {("Tom", "SERVES", "the Duke"), ("Will", "SERVES", "the Duke")}
    # with a comma before the list's "and", which elsewhere starts a clause of its own
    assert _relations("Athos, Porthos, and Aramis feared Richelieu.") == {
        (one, "FEARS", "Richelieu") for one in ("Athos", "Porthos", "Aramis")}


def test_a_listed_object_or_owner_is_each_members() -> None:
    assert _relations("Ann loved Tom and Will.") == {("Ann", "LOVES", "Tom"), ("Ann", "LOVES", "Will")}
    assert _relations("Ann was the sister of Tom and Will.") == {("Ann", "KIN_OF", "Tom"), ("Ann", "KIN_OF", "Will")}
    assert {"Ann", "Tom", "Will"} <= _people("Ann was the sister of Tom and Will.")


def test_a_predicate_naming_someone_else_never_relates_the_members_to_each_other() -> None:
    for text in ("Tom and Will were friends of Ann.", "Tom and Will were friends with Ann.",
                 "Tom and Will were enemies of the Duke.", "Tom and Will were related to Ann.",
                 "Tom and Will were brothers to Ann.", "Tom and Will were friends of his.",
                 "Athos, Porthos and Aramis were allies of the Cardinal."):
        members = {"Tom", "Will", "Athos", "Porthos", "Aramis"}
        assert _among(_relations(text), members) == set(), text


def test_a_bond_said_of_the_list_alone_is_its_members_bond() -> None:
    assert _relations("Tom and Will were friends.") == {("Tom", "ALLY_OF", "Will")}
    assert _relations("Tom and Will were brothers.") == {("Tom", "KIN_OF", "Will")}
    assert _relations("Tom and Will were enemies.") == {("Tom", "ENEMY_OF", "Will")}
    assert _relations("Tom and Will were friends of long standing.") == {("Tom", "ALLY_OF", "Will")}
    # a feeling for each other is each one's, both ways round
    assert _relations("Tom and Will hated each other.") == {("Tom", "HATES", "Will"), ("Will", "HATES", "Tom")}
    assert _relations("Tom and Will loved one another.") == {("Tom", "LOVES", "Will"), ("Will", "LOVES", "Tom")}
    # ... but not a denied one, nor a feeling for what each other owns
    assert _relations("Tom and Will did not trust each other.") == set()
    assert _relations("Tom and Will feared each other's dogs.") == set()
    found = _relations("Tom and Will feared Ann and hated each other.")
    assert {("Tom", "FEARS", "Ann"), ("Will", "FEARS", "Ann"), ("Tom", "HATES", "Will"), ("Will", "HATES", "Tom")} == found


def test_a_denied_or_doubted_role_of_a_list_states_nothing() -> None:
    assert _relations("Tom and Will were not the sons of Ann.") == set()
    assert _relations("Tom and Will were never friends of Ann.") == set()
    assert _relations("Tom and Will might be the sons of Ann.") == set()
    assert _relations("If Tom and Will were the sons of Ann, she never said so.") == set()


def test_two_lists_joined_by_a_marriage_pair_nobody_off() -> None:
    # which of the two married which is not said
    text = "Meg Hale laughed. Ann smiled. Tom and Will were married to Ann and Meg Hale."
    assert {r for r in _relations(text) if r[1] == "KIN_OF"} == set()


def test_a_list_owning_something_is_no_list_of_subjects() -> None:
    # the mother feared Ann, not Tom
    assert not {r for r in _relations("Tom and Will's mother feared Ann.") if r[0] == "Tom"}


def test_every_member_of_a_listed_subject_is_a_person() -> None:
    assert {"Athos", "Porthos", "Aramis"} <= _people("Athos, Porthos and Aramis feared Richelieu.")
    assert {"Tom", "Will", "Ann"} <= _people("Tom and Will were the sons of Ann.")
    assert {"Tom", "Will", "Ann"} <= _people("Tom and Will, Ann's sons, feared Meg.")
    assert {"Tom", "Will", "Harry"} <= _people("Tom, and Will, and Harry, the friends of Mr. Hale, came in.")
    # a word capitalised because it opens the sentence is no member of the list after its comma
    assert "Outside" not in _people("Outside, Tom and Will were friends of Ann.")


def test_list_readings_make_the_copula_and_the_role_singular() -> None:
    assert list_readings("⟨0⟩, ⟨1⟩ and ⟨2⟩ were friends of ⟨3⟩") == [
        "⟨0⟩ was a friend of ⟨3⟩", "⟨1⟩ was a friend of ⟨3⟩", "⟨2⟩ was a friend of ⟨3⟩"]
    assert list_readings("⟨0⟩ and ⟨1⟩ were ⟨2⟩'s old allies") == ["⟨0⟩ was ⟨2⟩'s old ally", "⟨1⟩ was ⟨2⟩'s old ally"]
    assert list_readings("⟨0⟩ and ⟨1⟩ were enemies of ⟨2⟩") == ["⟨0⟩ was an enemy of ⟨2⟩", "⟨1⟩ was an enemy of ⟨2⟩"]
    # a bond among themselves, a singular copula or no one else named: nothing to share
    assert list_readings("⟨0⟩ and ⟨1⟩ were friends") == []
    assert list_readings("⟨0⟩ and ⟨1⟩ was the son of ⟨2⟩") == []
    assert list_readings("⟨0⟩ and ⟨1⟩ were the sons of a miller") == []


def test_a_lists_members_are_weighed_by_what_follows_the_whole_list_unless_its_last_name_owns_it() -> None:
    text = "Athos, Porthos and Aramis were friends of Tom."
    assert text[list_end(text, len("Athos")):] == " were friends of Tom."
    owned = "Tom and Will's mother feared Ann."
    assert list_end(owned, len("Tom")) == len("Tom")


def test_a_list_of_names_with_french_titles_shares_its_role() -> None:
    found = _relations("Mme. Bonacieux and M. Bonacieux were the friends of d'Artagnan.")
    assert {("Mme. Bonacieux", "ALLY_OF", "d'Artagnan"), ("M. Bonacieux", "ALLY_OF", "d'Artagnan")} <= found
    assert _among(found, {"Mme. Bonacieux", "M. Bonacieux"}) == set()
