"""``cites-unknown``: a remark on a deed of the player's by someone the deeds feature says does not know it."""

from __future__ import annotations

from game.explore.deeds import deed_faults, relation_faults
from game.features.deeds.model import Deed, DeedBook, DeedKnowing
from game.graph.index import GraphIndex
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.world.scene import SceneState, StoryState

PEOPLE = [Node(id="npc-sam", name="Sam Reed", type="individual", summary="The player.", first_seen_turn=0,
               last_seen_turn=0),
          Node(id="npc-edda", name="Edda Marsh", type="individual", summary="The ferryman.", first_seen_turn=0,
               last_seen_turn=0),
          Node(id="npc-tobin", name="Tobin Hale", type="individual", summary="The apprentice.", first_seen_turn=0,
               last_seen_turn=0)]
THREAT = Deed(deed_id="deed-2-1", turn=2, actor="npc-sam", act="threaten", target="npc-tobin", place="shed",
              valence="harmful", witnesses=(), sentence="Sam Reed threatened Tobin Hale.")


def scene(told: list[str]) -> SceneState:
    return SceneState(location="jetty", story=StoryState(news_told=told))


def book(*knowers: tuple[str, float]) -> DeedBook:
    knowings = {(THREAT.deed_id, who): DeedKnowing(deed_id=THREAT.deed_id, knower=who, how="told", source="npc-tobin",
                                                    confidence=confidence, since_turn=3)
                for who, confidence in knowers}
    return DeedBook(deeds={THREAT.deed_id: THREAT}, knowings=knowings,
                    by_knower={who: {THREAT.deed_id} for who, _ in knowers})


def test_a_remark_on_a_deed_the_speaker_was_told_is_no_fault() -> None:
    faults = deed_faults(scene([]), scene(["Edda Marsh|deed-2-1"]), {"deeds": book(("npc-edda", 0.7))},
                         GraphIndex(PEOPLE))
    assert faults == []


def test_a_remark_on_a_deed_the_speaker_does_not_know_is_found_with_a_failing_deed_check() -> None:
    faults = deed_faults(scene([]), scene(["Edda Marsh|deed-2-1"]), {"deeds": book(("npc-tobin", 1.0))},
                         GraphIndex(PEOPLE))
    assert [f.kind for f in faults] == ["cites-unknown"]
    assert "Sam Reed threatened Tobin Hale." in faults[0].detail
    assert faults[0].checks == ("{deed} Edda Marsh: threaten Tobin Hale",)


def test_a_rumour_too_faint_to_act_on_does_not_count_as_knowing() -> None:
    faults = deed_faults(scene([]), scene(["Edda Marsh|deed-2-1"]), {"deeds": book(("npc-edda", 0.1))},
                         GraphIndex(PEOPLE))
    assert [f.kind for f in faults] == ["cites-unknown"]


def test_only_this_turns_remarks_on_deeds_are_judged() -> None:
    before = scene(["Edda Marsh|deed-2-1"])
    after = scene(["Edda Marsh|deed-2-1", "Edda Marsh|edge-7"])  # relation news is not a deed
    assert deed_faults(before, after, {"deeds": book()}, GraphIndex(PEOPLE)) == []
    nobody = deed_faults(scene([]), scene(["Edda Marsh|deed-9-9"]), {"deeds": book()}, GraphIndex(PEOPLE))
    assert [f.detail for f in nobody] == ["Edda Marsh spoke of deed-9-9, a deed nobody did"]


FEAR = Edge(id="edge-1", source="npc-tobin", target="npc-sam", relation="FEARS", strength=-0.6,
            fact="Tobin Hale fears Sam Reed since Sam threatened him.", valid_at=2)


def test_relation_news_from_someone_who_knows_it_is_no_fault() -> None:
    told = Knowing(edge_id="edge-1", knower="npc-edda", how="told", source="npc-tobin", confidence=0.7, since_turn=3)
    graph = GraphIndex(PEOPLE, [FEAR], ["edge-1"], knowings=[told])
    assert relation_faults(scene([]), scene(["Edda Marsh|edge-1"]), graph) == []


def test_relation_news_from_someone_who_does_not_know_it_is_found() -> None:
    graph = GraphIndex(PEOPLE, [FEAR], ["edge-1"])
    faults = relation_faults(scene([]), scene(["Edda Marsh|edge-1"]), graph)
    assert [(f.kind, f.detail) for f in faults] == [
        ("cites-unknown", "Edda Marsh spoke of a relation they do not know: Tobin Hale -> Sam Reed: FEARS")]
    assert faults[0].checks == ("{knows} Edda Marsh: Tobin Hale -> Sam Reed: FEARS",)
