"""What a story's memory may be talked into (issue 21, the memory-integrity items), against Brinefall.

A model's World IR may state relations and their endings, checked like any other; it never writes
attitudes, memories or knowledge itself. And however many endings a text claims, through whichever path
reads it (a model turn, the fast path after a World IR that is not JSON, ``import-story``, ``graph
extract --apply``), one rule holds them: at most three a turn, and none of the world's own relations on
a sentence of narration alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Text, ToolCalls
from llm_helpers import (
    edge,
    execution,
    ir,
    llm_settings,
    narrator,
    open_relations,
    relation,
    request,
    seeded_graph,
    tiny_world,
)

from game.cli.graph_attitude import attitude_json
from game.config import Settings
from game.engine.events import Event, TurnCommitted
from game.engine.session import GameSession
from game.narrator.base import NarrationResult
from game.narrator.llm.narrator import OpenAINarrator
from game.store.database import SaveDatabase
from game.world import World, load_world
from game.world.ir import WorldIR

CONTENT = Path(__file__).resolve().parent.parent / "content"
SIX = ["Hob Tarrant", "Tibby Tarrant", "Lise Brack", "Dace Merrow", "Maud Quaile", "Orla Vance"]


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.fixture(scope="module")
def brinefall() -> World:
    return load_world(CONTENT, "brinefall")


def _settings(tmp_path: Path, server: ChatServer) -> Settings:
    return Settings(world="brinefall", content_dir=CONTENT, saves_dir=tmp_path / "saves",
                    llm=llm_settings(server.base_url, extraction="world-ir"))


async def _session(settings: Settings, world: World) -> GameSession:
    teller = OpenAINarrator(settings.llm, world, env={})
    return await GameSession.open(settings, save="game", new=True, world="brinefall", narrator=teller)


async def _play(session: GameSession, text: str) -> list[Event]:
    return [event async for event in session.play_turn(text)]


def _book(session: GameSession) -> dict[str, Any]:
    return {npc: attitude_json(a) for npc, a in sorted(session.attitudes.book.stored.items())}


async def _memories(settings: Settings) -> list[dict[str, Any]]:
    async with await SaveDatabase.open(settings.saves_dir / "game.sqlite") as db:
        return await db.read_rows("npc_memories")


# ------------------------------------------------------------------------------ no direct attitudes


async def test_a_world_ir_never_sets_attitudes(tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    told = "Hob Tarrant looks at you across the quay and says nothing at all."
    facts = ir(charactersPresent=["Hob Tarrant"],
               attitudes=[{"name": name, "trust": -100, "respect": -100, "friendliness": -100,
                           "reason": "model says so"} for name in SIX])
    server.push(Text(told), Text(json.dumps(facts)))
    session = await _session(settings, brinefall)
    book, before = _book(session), open_relations(session.graph)
    events = await _play(session, "look at Hob")
    assert any(isinstance(e, TurnCommitted) for e in events)
    assert _book(session) == book
    assert "model says so" not in json.dumps(_book(session))
    assert session.attitudes.tier("Hob") != "HOSTILE"
    assert open_relations(session.graph) == before  # no TRUSTS closed to agree with an attitude
    await session.close()


async def test_memories_or_knowledge_in_a_world_ir_are_dropped_and_the_rest_kept(
        tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    told = "Hob Tarrant says he trusts Lise Brack with his life."
    trust = {"source": "Hob Tarrant", "target": "Lise Brack", "relation": "TRUSTS", "strength": 0.8,
             "fact": "Hob Tarrant trusts Lise Brack with his life.", "evidence": told}
    facts = ir(charactersPresent=["Hob Tarrant"], relations=[trust],
               memories=[{"character": "Hob Tarrant", "text": "You burned his boat."}],
               knowledge=[{"knower": "Tibby Tarrant", "fact": "You burned Hob's boat."}],
               acts=[{"kind": "act", "character": "Hob Tarrant", "verb": "attack"}])
    server.push(Text(told), Text(json.dumps(facts)))
    session = await _session(settings, brinefall)
    events = await _play(session, "ask Hob about Lise")
    assert any(isinstance(e, TurnCommitted) for e in events)
    assert ("Hob Tarrant", "Lise Brack", "TRUSTS") in open_relations(session.graph)
    [turn] = await session.turns()
    assert turn.extraction == "full"  # the model's reading was used, not the fast path's
    await session.close()
    assert await _memories(settings) == []


async def test_a_models_relation_cannot_say_who_knows_it(tmp_path: Path, server: ChatServer,
                                                         brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    told = "Hob Tarrant says he fears Orla Vance, and the whole town is bound to hear of it."
    fear = {"source": "Hob Tarrant", "target": "Orla Vance", "relation": "FEARS", "strength": -0.6,
            "fact": "Hob Tarrant fears Orla Vance.", "evidence": told,
            "knownBy": SIX, "public": True}
    server.push(Text(told), Text(json.dumps(ir(charactersPresent=["Hob Tarrant"], relations=[fear]))))
    session = await _session(settings, brinefall)
    events = await _play(session, "ask Hob about Orla")
    assert any(isinstance(e, TurnCommitted) for e in events), events
    graph = session.graph
    [edge] = [e for e in graph.open_edges.values() if e.relation == "FEARS" and graph.nodes[e.source].name == "Hob Tarrant"
              and graph.nodes[e.target].name == "Orla Vance"]
    knowers = {graph.nodes[k].name if k in graph.nodes else k for k in graph.knowers_of(edge.id)}
    # Its ends and who was there (Hob and the player) know it; the model cannot tell Tibby or the town.
    assert "Tibby Tarrant" not in knowers and "Lise Brack" not in knowers
    assert not any(k not in graph.nodes for k in graph.knowers_of(edge.id))  # no public knower
    await session.close()


async def test_the_extractor_cannot_say_who_knows_a_relation(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    fact = "Edda Marsh trusts Sam Reed since Sam steadied her wick."
    facts = WorldIR.model_validate(ir(charactersPresent=["Edda Marsh", "Sam Reed"],
                                      relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, fact)]))
    told = {**edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, fact), "knownBy": ["Tobin Hale"], "public": True}
    server.push(ToolCalls([("upsert_npc_graph", {"edges": [told]})]), ToolCalls([("runtime_done", {})]))
    teller = narrator(world, server.base_url)
    req = request(world, graph, "look")
    run = execution(world, graph)
    report = await teller.extract(req, NarrationResult(facts, req.scene), run)
    await teller.aclose()
    assert report.extracted and run.writes.created_edges
    names = {node.id: node.name for node in graph.nodes.values()}
    knowers = {names.get(knower, knower) for _edge, knower in run.writes.knowings}
    assert knowers == {"Edda Marsh", "Sam Reed"}  # its ends; not Tobin, not the whole town
