"""``make bench``'s context figures are the game's own: the real RELATIONSHIP and MEMORY providers over
real memory and attitude books at 10 and at 200 memories per NPC, nothing synthetic, nothing left out."""

from __future__ import annotations

from benchmarks.context_bench import STAGE, measure, minds, run, world_graph
from game.engine.presence import present_knowers
from game.features.memories.rules import CONTEXT_RECALL
from game.settings_source import default_content_dir
from game.world import load_world
from game.world.tiers import TIERS


async def test_the_books_hold_as_many_memories_as_asked_and_attitudes_that_differ() -> None:
    world = load_world(default_content_dir(), "brinefall")
    graph = await world_graph(world)
    people = [n for n in await present_knowers(graph, [c.name for c in world.characters[:STAGE]])
              if n.id not in graph.player_ids]
    attitudes, book = minds(graph, people, 200)
    assert len(people) == STAGE
    assert all(len(book.of(p.id)) == 200 for p in people)
    assert {a.tier for a in attitudes.stored.values()} != {"NEUTRAL"}
    assert all(a.interactions > 0 for a in attitudes.stored.values())


async def test_each_size_is_composed_by_the_real_providers_within_the_budget() -> None:
    world = load_world(default_content_dir(), "brinefall")
    for per_npc in (10, 200):
        _timings, context, prompt = await measure(world, per_npc, 1)
        assert context.omitted == ()
        assert [s.name for s in context.sections][:5] == ["SCENE", "GRAPH", "KNOWLEDGE", "RELATIONSHIP", "MEMORY"]
        memory = context.lines("MEMORY")
        assert len(memory) == STAGE * CONTEXT_RECALL
        assert all(" remembers (saw, turn " in line.text and "Wren Tallis" in line.text for line in memory)
        assert all(0 < int(line.facts["turn"]) <= per_npc for line in memory)
        tiers = [str(line.facts["tier"]) for line in context.lines("RELATIONSHIP")]
        assert len(tiers) == STAGE and set(tiers) <= set(TIERS)
        assert 0 < context.tokens <= context.budget < prompt


def test_the_printed_figures_name_every_section_at_both_sizes() -> None:
    lines = run(quick=True)
    assert sum("orchestrator per turn median" in line for line in lines) == 2
    assert any(line.startswith(" 10 memories") for line in lines) and any(line.startswith("200 memories") for line in lines)
    memory = [line for line in lines if line.split()[0] == "MEMORY"]
    assert len(memory) == 2 and all(" 0 of " not in line for line in memory)
