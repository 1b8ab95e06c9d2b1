"""Shared builders for the LLM narrator tests (no tests here): the tiny world, its seeded graph, settings
pointing at a ``ChatServer``, requests, and World IR / upsert payloads as a model would write them."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from game.config import LLMSettings
from game.graph.index import GraphIndex
from game.graph.upsert import UpsertExecution
from game.narrator.base import NarrationRequest, PastTurn
from game.narrator.llm.narrator import OpenAINarrator
from game.world import World, load_world
from game.world.scene import SceneState

WORLDS = Path(__file__).parent / "fixtures" / "worlds"
KEY = "sk-test-SECRET-1234567890abcdef"


def tiny_world() -> World:
    return load_world(WORLDS, "tiny")


def llm_settings(base_url: str, **overrides: Any) -> LLMSettings:
    """Fast settings for tests: short timeout, no retries unless a test asks."""
    values: dict[str, Any] = {"base_url": base_url, "model": "test-model", "timeout": 2.0, "retries": 0}
    values.update(overrides)
    return LLMSettings(**values)


async def seeded_graph(world: World) -> GraphIndex:
    """The world's turn-0 graph, built through real upserts as the session does."""
    index = GraphIndex()
    execution = UpsertExecution(index, world.vocabulary, 0, rng=random.Random(0))
    for call in world.initial_graph_calls():
        outcome = await execution.run(call)
        assert outcome.error is None, outcome.error
    index.apply(execution.writes)
    return index


def request(world: World, graph: GraphIndex, text: str, *, turn: int = 1, npc_context: str = "",
            history: Sequence[PastTurn] = (), scene: SceneState | None = None) -> NarrationRequest:
    return NarrationRequest(turn=turn, player_input=text, npc_context=npc_context,
                            scene=scene or world.initial_scene(), graph=graph, history=tuple(history))


def narrator(world: World, base_url: str, env: dict[str, str] | None = None, **overrides: Any) -> OpenAINarrator:
    return OpenAINarrator(llm_settings(base_url, **overrides), world, env=env if env is not None else {})


async def collect(deltas: AsyncIterator[str]) -> str:
    return "".join([delta async for delta in deltas])


def execution(world: World, graph: GraphIndex, turn: int = 1) -> UpsertExecution:
    return UpsertExecution(graph, world.vocabulary, turn, rng=random.Random(turn))


def ir(**fields: Any) -> dict[str, Any]:
    """A World IR as a model writes it (camelCase), empty lists unless given."""
    base: dict[str, Any] = {"charactersPresent": [], "entities": [], "relations": [], "endedRelations": [],
                            "nextCast": [], "location": None}
    base.update(fields)
    return base


def character(name: str, summary: str = "Someone the turn names.", kind: str = "character") -> dict[str, Any]:
    return {"name": name, "kind": kind, "summary": summary}


def relation(source: str, target: str, rel: str, strength: float, fact: str) -> dict[str, Any]:
    return {"source": source, "target": target, "relation": rel, "strength": strength, "fact": fact,
            "evidence": fact}


def edge(source: str, target: str, rel: str, strength: float, fact: str) -> dict[str, Any]:
    return {"sourceName": source, "targetName": target, "relation": rel, "strength": strength, "fact": fact}


def open_relations(graph: GraphIndex) -> set[tuple[str, str, str]]:
    """Open relations by names: (source, target, RELATION)."""
    names = {node.id: node.name for node in graph.nodes.values()}
    return {(names[e.source], names[e.target], e.relation) for e in graph.open_edges.values()}


def run_recorded(tmp_path: Path, base_url: str, save: str, lines: list[str]) -> tuple[int, Path]:
    """``kith run --transcript --record`` of ``lines`` on the tiny world against the server at ``base_url``,
    with an empty settings file and saves under ``tmp_path/saves``: the exit code and the recording's path."""
    from game.__main__ import main  # the whole command line, loaded only by the tests that run it

    commands = tmp_path / "commands.txt"
    commands.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = tmp_path / "kith.toml"
    config.write_text("", encoding="utf-8")
    record = tmp_path / "game.jsonl"
    code = main(["--config", str(config), "--saves-dir", str(tmp_path / "saves"), "--content-dir", str(WORLDS),
                 "run", "--transcript", "--save", save, "--world", "tiny", "--record", str(record),
                 "--base-url", base_url, "--model", "test-model", str(commands)])
    return code, record
