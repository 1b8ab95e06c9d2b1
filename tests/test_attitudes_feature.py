"""Attitudes and memories are feature packages that plug in through the registry (issue 22): the attitudes
move only by the registered attitudes feature's step, its state follows the rows a turn writes, `/npc` is
the memories feature's command and `/relationship` the attitudes', and the mind keeps only the narrator's context."""

from __future__ import annotations

from pathlib import Path

from playthrough import Playthrough

from game.engine.meta import help_text, parse_meta
from game.features.attitudes import AttitudesFeature
from game.features.attitudes.model import TABLE, Attitude, AttitudeBook
from game.features.deeds import DeedsFeature
from game.features.feature import Delta
from game.features.gossip import GossipFeature
from game.features.memories import MemoriesFeature
from game.features.notes import NotesFeature
from game.registry import Registry, default_registry
from game.world.loader import load_world

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"


async def _hob_after_helping(registry: Registry) -> tuple[Attitude, dict[str, Attitude]]:
    game = await Playthrough.start(load_world(CONTENT, "brinefall"), seed=0)
    game.pipeline.registry = registry
    await game.play("talk to hob")
    await game.play("help hob")
    state = game.pipeline.state
    hob = next(n for n in state.graph.nodes.values() if n.name == "Hob Tarrant")
    return state.attitudes.of(state.graph, hob), state.attitudes.stored


async def test_attitudes_move_by_the_registered_feature_and_not_without_it() -> None:
    hob, stored = await _hob_after_helping(default_registry())
    assert "you helped them" in [change.reason for change in hob.history]
    assert hob.npc_id in stored
    bare = Registry()
    for feature in (GossipFeature(), DeedsFeature(), NotesFeature(), MemoriesFeature()):
        bare.register_feature(feature)
    hob, stored = await _hob_after_helping(bare)
    assert stored == {} and hob.history == ()  # the core moves no attitude of its own


def test_the_attitudes_state_is_read_from_its_table_and_follows_a_turns_rows() -> None:
    feature = AttitudesFeature()
    before = Attitude("npc-hob", "Hob Tarrant", trust=10.0)
    state = feature.load({TABLE: [before.row().row or {}]})
    assert isinstance(state, AttitudeBook) and state.stored["npc-hob"].trust == 10.0
    after = before.changed(Delta(trust=15.0, reason="you helped them"), 3)
    moved = feature.apply(state, [after.row()])
    assert moved.stored["npc-hob"].trust == 25.0
    assert moved.stored["npc-hob"].history[-1].reason == "you helped them"
    assert state.stored["npc-hob"].trust == 10.0  # the book a turn began with is not changed under it


def test_npc_is_the_memories_features_command_with_its_help_line() -> None:
    registry = default_registry()
    owner = registry.command_owner("npc")
    assert isinstance(owner, MemoriesFeature)
    assert "`/npc NAME` what NAME remembers of you." in help_text(registry)
    assert parse_meta("/npc Hob", registry) is not None
    assert parse_meta("npc Hob", registry) is None  # bare, it is a word of the story
    without = Registry()
    without.register_feature(NotesFeature())
    assert without.command_owner("npc") is None  # no memories feature, no /npc (the game says it has none)


def test_relationship_is_the_attitudes_features_command_and_goes_with_it() -> None:
    registry = default_registry()
    assert isinstance(registry.command_owner("relationship"), AttitudesFeature)
    assert "`/relationship NAME set trust|respect|friendliness VALUE` sets one" in help_text(registry)
    assert parse_meta("/relationship Hob", registry) is not None
    assert parse_meta("relationship Hob", registry) is None  # bare, it is a word of the story
    without = Registry()
    without.register_feature(MemoriesFeature())
    assert without.command_owner("relationship") is None  # no attitudes feature, no /relationship
    assert "/relationship" not in help_text(without)


def test_kith_graph_attitude_is_the_attitudes_features_command() -> None:
    assert default_registry().feature("attitudes").graph_commands == ("attitude",)


def test_the_mind_keeps_only_the_narrators_context() -> None:
    # What moves out (identity's modules) may go; nothing of attitudes or memories may come back.
    allowed = {"__init__", "context", "context_budget", "context_graph", "sections", "scene_provider",
               "identity_provider", "merging", "mind_merge", "merge_traces"}
    modules = {path.stem for path in (ROOT / "game" / "mind").glob("*.py")}
    assert modules <= allowed, modules - allowed


async def test_the_peoples_minds_are_listed_after_what_they_know_and_before_the_features_findings() -> None:
    from game.engine.mind_context import ContextInputs, default_providers
    from game.engine.presence import present_knowers, scoped_context
    from game.graph.retrieve import RetrievalSettings

    game = await Playthrough.start(load_world(CONTENT, "brinefall"), seed=0)
    await game.play("talk to hob")
    state = game.pipeline.state
    scoped = await scoped_context(state.graph, "hob", state.scene.cast, RetrievalSettings())
    inputs = ContextInputs(state, scoped, await present_knowers(state.graph, state.scene.cast))
    names = [provider.name for provider in default_providers(inputs)]
    assert names == ["SCENE", "GRAPH", "KNOWLEDGE", "RELATIONSHIP", "MEMORY", "DEEDS"]  # no question waits
    # A waiting question's IDENTITY goes between the two lists the registry gives.
    minds = default_registry().context_providers(state.features, minds=True)
    others = default_registry().context_providers(state.features)
    assert [p.name for p in minds] == ["RELATIONSHIP", "MEMORY"] and [p.name for p in others] == ["DEEDS"]
