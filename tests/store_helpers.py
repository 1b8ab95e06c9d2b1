"""Small builders shared by store tests: real saves in tmp folders, real upsert executions."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from helpers.saves import SCHEMA

from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.store import node_identity, turn_log
from game.store.database import SaveDatabase, TurnRecord

VOCABULARY = Vocabulary.default()


def person(name: str, summary: str | None = None) -> dict[str, Any]:
    return {"name": name, "type": "individual", "summary": summary or f"{name} of the harbour."}


def relation(source: str, target: str, rel: str, strength: float, fact: str) -> dict[str, Any]:
    return {"sourceName": source, "targetName": target, "relation": rel, "strength": strength, "fact": fact}


async def play(db: SaveDatabase, turn: int, *calls: dict[str, Any], scene: dict[str, Any] | None = None,
               witnesses: tuple[str, ...] = ()) -> None:
    """Commit one turn made of upsert calls, as the engine does: one transaction."""
    execution = UpsertExecution(db.graph, VOCABULARY, turn, rng=random.Random(turn), witnesses=witnesses)
    for call in calls:
        outcome = await execution.run(call)
        assert outcome.error is None, outcome.error
    record = TurnRecord(number=turn, input=f"command {turn}", narration=f"story {turn}", npc_context="")
    await db.commit_turn(record, execution.writes, scene or {"location": f"place-{turn}"})


async def seeded(path: Path) -> SaveDatabase:
    db = await SaveDatabase.open(path, schema=SCHEMA, create=True, world_id="test-world")
    execution = UpsertExecution(db.graph, VOCABULARY, 0, rng=random.Random(0))
    outcome = await execution.run({
        "nodes": [person("Mira"), person("Tomas"), person("Oren"),
                  {"name": "Harbour Watch", "type": "faction", "summary": "The town's paid guard."}],
        "edges": [relation("Mira", "Tomas", "TRUSTS", 0.7, "Mira trusts Tomas since the harbour fire."),
                  relation("Tomas", "Harbour Watch", "MEMBER_OF", 0.5, "Tomas wears the Watch's grey coat.")],
    })
    assert outcome.error is None
    await db.start_game({"location": "quay"}, execution.writes, {})
    return db


async def state(db: SaveDatabase) -> tuple[Any, ...]:
    """Everything undo must restore exactly: nodes, edges, who knows what, the turn, scene and merges."""
    nodes = [n.to_json_dict() for n in await db.graph.all_nodes()]
    edges = [e.to_json_dict() for e in await db.graph.all_edges()]
    knowings = [k.to_json_dict() for k in await db.graph.all_knowings()]
    turn = await db.current_turn()
    return nodes, edges, knowings, turn, await turn_log.scene_at(db, turn), [m.to_json_dict() for m in await node_identity.merges(db)]
