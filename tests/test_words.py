"""One word per concept (issue 22; docs/architecture.md, "Words"): the old words do not come back.

NPCs' memories are the only memories; the graph (and the session's graph index of it) is never "memory",
in the models' prompts least of all, where the model would read it as the minds' MEMORY section; the
player's ``/memory`` note is "the Memory note" in the docs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from llm_helpers import tiny_world

from game.narrator.llm.compact import world_ir_compact_v1
from game.narrator.llm.narrate_prompt import narrate_system
from game.narrator.llm.prompts import world_ir_v1

ROOT = Path(__file__).resolve().parents[1]


def test_the_prompts_call_the_graph_the_relationship_graph() -> None:
    world = tiny_world()
    scene = world.initial_scene()
    prompts = [world_ir_v1(world, scene, 1, "greet the keeper", "The keeper nods.", [], None),
               world_ir_compact_v1(world, scene, 1, "greet the keeper", "The keeper nods.", [])]
    for prompt in prompts:
        text = "\n".join(str(message["content"]) for message in prompt.messages)
        assert "relationship graph" in text and "relationship memory" not in text.lower(), prompt.version
    assert "relationship memory" not in narrate_system(world, "Hob owes me a crossing.").lower()


OLD_WORDS = {
    r"relationship[ -]memory": "the graph is the relationship graph",
    r"in-memory (index|graph|playthrough|``graph``)": "the graph index; a game without a save",
    r"\bmemory follows\b": "the game in play (or the state) follows the store",
    r"\bas memory holds\b": "the game as the session holds it",
    r"\bmemory is recorded\b": "the graph update reads the World IR",
    r"\bsupplementary memory\b": "the graph supplements the world's profiles",
}
"""Phrases removed for the graph or the game in play, and the words that replaced them."""


def _sources() -> list[Path]:
    return [*sorted((ROOT / "game").rglob("*.py")), *sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]


@pytest.mark.parametrize("pattern", sorted(OLD_WORDS))
def test_an_old_word_for_the_graph_does_not_come_back(pattern: str) -> None:
    found = [f"{path.relative_to(ROOT)}:{number}" for path in _sources()
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(pattern, line, re.IGNORECASE)]
    assert not found, f"say {OLD_WORDS[pattern]!r} instead: {found}"


def test_the_docs_call_the_players_note_the_memory_note() -> None:
    # "the Memory" alone reads as one of NPCs' memories; the command stays /memory, the replies "Memory".
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / "docs").glob("*.md"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\bthe Memory\b(?! note)", line)]
    assert not found, found
