"""Who might a new name be: the pure scoring (game/graph/identity_match.py)."""

from __future__ import annotations

from typing import Any

from game.graph.identity_match import ASK, ASSUME, Verdict, judge, question, score, typo_distance
from game.graph.models import Node
from game.graph.names import slugify


def make_node(name: str, *, aliases: list[str] | None = None, labels: list[str] | None = None,
              attributes: dict[str, Any] | None = None) -> Node:
    return Node(id=f"npc-{slugify(name)}", name=name, aliases=aliases or [], type="individual", labels=labels or [],
                summary=f"{name}, a person of the story.", first_seen_turn=0, last_seen_turn=0,
                attributes=attributes or {})


BRAM = make_node("Bram Kettle", aliases=["Bram"], labels=["sailor", "captain"])
HOB = make_node("Hob Tarrant", aliases=["Hob", "Old Hob"])
TIBBY = make_node("Tibby Tarrant")
ANNA = make_node("Anna Lee")
PEOPLE = [BRAM, HOB, TIBBY, ANNA]


def verdict(name: str, aliases: list[str] | None = None, nodes: list[Node] | None = None,
            kind: str = "individual") -> Verdict:
    return judge(name, kind, aliases or [], PEOPLE if nodes is None else nodes)


def test_a_title_and_a_surname_is_asked_about_never_assumed() -> None:
    found = verdict("Captain Kettle")
    assert found.decision == "ask" and found.candidate is not None
    assert found.candidate.node.id == BRAM.id
    assert ASK <= found.candidate.confidence < ASSUME
    assert "surname" in found.candidate.evidence and "captain" in found.candidate.evidence
    # The title the candidate is known by makes it likelier, still a question.
    plain = verdict("Captain Kettle", nodes=[make_node("Bram Kettle")])
    assert plain.decision == "ask" and plain.candidate is not None
    assert plain.candidate.confidence < found.candidate.confidence


def test_a_typo_in_a_long_name_is_assumed_a_different_letter_is_asked() -> None:
    typo = verdict("Bram Kettel")
    assert typo.decision == "assume" and typo.candidate is not None and typo.candidate.node.id == BRAM.id
    assert typo.candidate.confidence >= ASSUME
    other_letter = verdict("Brom Kettle")
    assert other_letter.decision == "ask"


def test_different_people_with_close_names_stay_apart() -> None:
    assert verdict("Anna Leigh").decision == "new"  # the module's own example: two people
    assert verdict("Sam Reed").decision == "new"
    assert verdict("Tarrant").decision == "new"  # Hob's and Tibby's surname: two people could be meant
    assert verdict("Mr Tarrant").decision == "new"


def test_a_title_before_a_full_name_and_a_declared_alias_are_assumed() -> None:
    assert verdict("Capt. Bram Kettle").decision == "assume"
    aliased = verdict("Jory", aliases=["Bram"])
    assert aliased.decision == "assume" and aliased.candidate is not None
    assert "'Bram'" in aliased.candidate.evidence


def test_only_someone_of_the_same_type_and_never_the_player() -> None:
    assert verdict("Captain Kettle", kind="group").decision == "new"
    player = make_node("Wren Tallis", attributes={"player": True})
    assert verdict("Captain Tallis", nodes=[player]).decision == "new"


def test_a_description_that_fits_one_person_is_a_question() -> None:
    found = verdict("the sailor")
    assert found.decision == "ask" and found.candidate is not None and found.candidate.node.id == BRAM.id
    two = [BRAM, make_node("Jory Pike", labels=["sailor"])]
    assert verdict("the sailor", nodes=two).decision == "new"


def test_when_another_person_could_be_meant_the_best_is_only_asked_about() -> None:
    alone = verdict("Bram Kettel", nodes=[make_node("Bram Kettle")])
    assert alone.decision == "assume"
    found = verdict("Bram Kettel", nodes=[make_node("Bram Kettle"), make_node("Bram Kettels")])
    assert found.decision == "ask" and found.candidate is not None
    assert found.candidate.node.name == "Bram Kettle" and found.candidate.confidence < ASSUME
    assert "could be Bram Kettels" in found.candidate.evidence


def test_scores_and_words() -> None:
    assert score("Nobody Here", [], BRAM) is None
    assert typo_distance("kettle", "kettel") == (1, True)
    assert typo_distance("kettle", "ketle") == (1, True)
    assert typo_distance("reed", "read") == (1, False)
    assert typo_distance("lee", "leigh")[0] >= 3


def test_the_question_the_story_asks() -> None:
    assert question("the sailor", "Bram Kettle") == "The sailor — is that Bram Kettle?"


def test_a_title_of_the_other_sex_is_never_the_same_person() -> None:
    # Every family novel has a Mr. and a Mrs. of one surname: asking whether they are one person invites the
    # player to merge a husband and a wife.
    husband = make_node("Mr. Bennet")
    assert verdict("Mrs. Bennet", nodes=[husband]).decision == "new"
    assert verdict("Miss Bennet", nodes=[husband]).decision == "new"
    assert verdict("Lady Walter", nodes=[make_node("Sir Walter")]).decision == "new"
    # a label that says a sex counts as a title does; so does any of the node's names
    assert verdict("Mrs. Reed", nodes=[make_node("John Reed", labels=["father"])]).decision == "new"
    assert verdict("Mrs. Kettle", nodes=[make_node("Bram Kettle", aliases=["Mr. Kettle"])]).decision == "new"
    # the same sex, or nothing said of it, is judged as before
    assert verdict("Mr. Bennet", nodes=[make_node("Thomas Bennet")]).decision == "ask"
    assert verdict("Mrs. Reed", nodes=[make_node("Sarah Reed", labels=["widow"])]).decision == "ask"
    assert verdict("Mrs. Kettle", nodes=[make_node("Bram Kettle")]).decision == "ask"
    # names whose sexes disagree say nothing of the node's: still a question
    assert verdict("Mrs. Kettle", nodes=[make_node("Bram Kettle", aliases=["Mr. Kettle", "Mrs. Kettle Sr."])]) \
        .decision != "new"


def test_the_same_words_but_for_a_stop_are_the_same_name() -> None:
    found = verdict("Mrs Hudson", nodes=[make_node("Mrs. Hudson")])
    assert found.decision == "assume" and found.candidate is not None
    assert "stops" in found.candidate.evidence
