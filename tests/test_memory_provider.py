"""The MEMORY provider: what each person in focus remembers of the player, most relevant first, typed."""

from __future__ import annotations

from game.features.memories.book import Memory, MemoryBook
from game.features.memories.provider import MemoryProvider
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.mind.sections import ContextQuery
from game.world.scene import SceneState


def person(node_id: str, name: str, player: bool = False) -> Node:
    return Node(id=node_id, name=name, type="individual", summary=f"{name}, of the harbour.", first_seen_turn=0,
                last_seen_turn=0, attributes={"player": True} if player else {})


def remembered(npc: str, seq: int, text: str, turn: int, importance: float, valence: float = 0.0,
               heard: bool = False) -> Memory:
    return Memory(npc=npc, seq=seq, kind="episodic", text=text, turn=turn, importance=importance, valence=valence,
                  tags=("help",), strength=1.0, last_used=turn, heard=heard)


def book_of(*memories: Memory) -> MemoryBook:
    book = MemoryBook()
    book.apply([m.row() for m in memories])
    return book


async def test_the_section_holds_the_most_relevant_memories_of_each_person_in_focus() -> None:
    graph = GraphIndex([person("npc-wren", "Wren", player=True), person("npc-hob", "Hob"), person("npc-tib", "Tibby")])
    book = book_of(
        remembered("npc-hob", 1, "Wren asked me about the bell.", 1, 0.2),
        remembered("npc-hob", 2, "Wren threatened me.", 2, 0.85, -0.8),
        remembered("npc-hob", 3, "Wren helped me.", 3, 0.6, 0.6),
        remembered("npc-hob", 4, "Wren asked me about the ferry.", 4, 0.2),
        remembered("npc-tib", 1, "Heard from Hob: Wren is kind.", 4, 0.3, 0.5, heard=True),
        remembered("npc-nobody", 1, "Not in focus.", 4, 1.0),
    )
    query = ContextQuery(turn=5, player_input="talk to hob", focus=("npc-hob", "npc-wren", "npc-tib"), graph=graph,
                         scene=SceneState())
    section = await MemoryProvider(lambda: book, per_person=3).provide(query)

    assert section.name == "MEMORY"
    assert [(line.about, line.text) for line in section.lines] == [
        ("npc-hob", "Hob remembers (saw, turn 2): Wren threatened me."),
        ("npc-hob", "Hob remembers (saw, turn 3): Wren helped me."),
        ("npc-hob", "Hob remembers (saw, turn 4): Wren asked me about the ferry."),
        ("npc-tib", "Tibby remembers (heard, turn 4): Heard from Hob: Wren is kind."),
    ]
    weights = [line.weight for line in section.lines[:3]]
    assert weights == sorted(weights, reverse=True)
    assert dict(section.lines[0].facts) == {"kind": "episodic", "turn": 2, "importance": 0.85, "valence": -0.8}


async def test_nobody_in_focus_remembering_anything_gives_an_empty_section() -> None:
    graph = GraphIndex([person("npc-wren", "Wren", player=True), person("npc-hob", "Hob")])
    query = ContextQuery(turn=1, player_input="look", focus=("npc-hob",), graph=graph, scene=SceneState())
    section = await MemoryProvider(MemoryBook).provide(query)
    assert section.name == "MEMORY" and section.lines == ()
