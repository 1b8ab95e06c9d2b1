"""NPCs' memories come from the memories feature, through the registry: the told turn's last step is every
registered feature's ``remember`` (docs/architecture.md, "Features and the registry"), so a game whose
registry lists no memories feature forms none, and the built-in one forms them as it always did."""

from __future__ import annotations

from pathlib import Path

from playthrough import Playthrough

from game.features.deeds import DeedsFeature
from game.features.gossip import GossipFeature
from game.features.memories import MemoriesFeature
from game.features.notes import NotesFeature
from game.registry import Registry, register_builtin
from game.world.loader import load_world

CONTENT = Path(__file__).resolve().parent.parent / "content"


async def _hob_remembers(registry: Registry) -> list[str]:
    game = await Playthrough.start(load_world(CONTENT, "brinefall"), seed=0)
    game.pipeline.registry = registry
    await game.play("talk to hob")
    state = game.pipeline.state
    hob = next(n for n in state.graph.nodes.values() if n.name == "Hob Tarrant")
    return [memory.text for memory in state.memories.of(hob.id)]


async def test_the_built_in_memories_feature_forms_a_first_meeting() -> None:
    registry = Registry()
    register_builtin(registry)
    assert isinstance(registry.feature("memories"), MemoriesFeature)
    remembered = await _hob_remembers(registry)
    assert remembered == ["Met Wren Tallis for the first time."]


async def test_without_the_memories_feature_nobody_remembers_anything() -> None:
    registry = Registry()
    for feature in (GossipFeature(), DeedsFeature(), NotesFeature()):
        registry.register_feature(feature)
    assert await _hob_remembers(registry) == []
