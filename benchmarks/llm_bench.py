"""LLM narrator figures, offline: what a turn asks of the model, and what the engine costs besides.

1. **A live session against the local test server** (``tests/chat_server.py`` on 127.0.0.1, with the
   scripted replies of ``tests/fixtures/llm/make_recording.py``): each turn's wall time and the part of
   it spent waiting on the model, from the narrator's own accounting (``OpenAINarrator.usage``). The
   session is recorded as it goes.
2. **The recording replayed**, with the server's usage figures taken out so that the narrator's own
   estimate counts the tokens (the one it uses to fit the context: tool schemas included): requests and
   prompt/completion tokens per turn by step (narrate, World IR, extract). A replay never waits on a
   model, so a replayed turn's time is the engine's own: retrieval, prompts, validation, upserts, commit.
3. **The extractor prompt at 60 known nodes and 60 relations**, in characters and estimated tokens, and
   what is left of it once fitted to the default context size.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from benchmarks.engine_bench import used_bytes
from game.config import LLMSettings, Settings
from game.engine.events import TurnCommitted, TurnFailed
from game.engine.session import GameSession
from game.graph.index import GraphIndex
from game.graph.upsert import UpsertExecution
from game.narrator.llm.extract import existing_near
from game.narrator.llm.narrator import OpenAINarrator
from game.narrator.llm.prompts import extract_v1
from game.narrator.llm.tokens import message_tokens, tools_tokens
from game.narrator.llm.tools import extraction_tools
from game.narrator.llm.usage import TurnUsage
from game.world import World, load_world
from game.world.ir import WorldIR

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
WORLDS = TESTS / "fixtures" / "worlds"
STEPS = ("narrate", "world-ir", "extract")
REPLAYS = 9
"""Replays of the recorded session; the first only warms caches up and is not counted."""
KNOWN = 60


def _generator() -> ModuleType:
    """The scripted session of the committed regression recording (its replies and commands)."""
    path = TESTS / "fixtures" / "llm" / "make_recording.py"
    spec = importlib.util.spec_from_file_location("kith_make_recording", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # puts tests/ on sys.path, for chat_server
    return module


def _settings(folder: Path, llm: LLMSettings | None = None) -> Settings:
    return Settings(world="tiny", content_dir=WORLDS, saves_dir=folder, llm=llm or LLMSettings())


async def _play(session: GameSession, command: str) -> tuple[float, dict[str, float]]:
    """One turn's wall time in ms and the engine's own timings for it."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    async for event in session.play_turn(command):
        if isinstance(event, TurnFailed):
            raise RuntimeError(f"{command!r}: {event.message}")
        if isinstance(event, TurnCommitted):
            timings = event.timings
    return (time.perf_counter() - started) * 1000, timings


async def _live(folder: Path, generator: ModuleType, recording: Path) -> list[tuple[str, float, int]]:
    """Play the scripted session against the test server: (command, wall ms, model ms) per turn."""
    from chat_server import ChatServer

    rows: list[tuple[str, float, int]] = []
    with ChatServer(model=generator.MODEL) as server:
        llm = LLMSettings(base_url=server.base_url, model=generator.MODEL, timeout=10, retries=0)
        settings = _settings(folder / "live", llm)
        teller = OpenAINarrator(llm, _world(), env={}, record=recording)
        session = await GameSession.open(settings, save="live", new=True, world="tiny", narrator=teller)
        try:
            for command, replies in generator.TURNS:
                server.push(*replies)
                wall, _ = await _play(session, command)
                rows.append((command, wall, teller.usage(session.turn)["model_ms"]))
        finally:
            await session.close()
    return rows


def _without_usage(recording: Path, target: Path) -> None:
    """The recording with the server's token counts removed, so the narrator estimates its own."""
    lines = recording.read_text(encoding="utf-8").splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        record = json.loads(line)
        if isinstance(record.get("completion"), dict):
            record["completion"].pop("usage", None)
        if isinstance(record.get("chunks"), list):
            record["chunks"] = [c for c in record["chunks"] if not (isinstance(c, dict) and "usage" in c
                                                                     and not c.get("choices"))]
        out.append(json.dumps(record, ensure_ascii=False))
    target.write_text("\n".join(out) + "\n", encoding="utf-8")


async def _replay(folder: Path, recording: Path, commands: list[str], run: int
                  ) -> tuple[list[float], list[dict[str, float]], list[TurnUsage], float]:
    """Replay the session once: wall ms, the engine's timings and the narrator's usage, per turn, and the
    bytes the save grew by per turn."""
    teller = OpenAINarrator(LLMSettings(), _world(), replay=recording)
    session = await GameSession.open(_settings(folder / f"replay{run}"), save="replay", new=True, world="tiny",
                                     narrator=teller)
    walls: list[float] = []
    timings: list[dict[str, float]] = []
    usages: list[TurnUsage] = []
    try:
        before = await used_bytes(session._db)
        for command in commands:
            wall, timing = await _play(session, command)
            walls.append(wall)
            timings.append(timing)
            counts = teller.usage(session.turn)
            usages.append(TurnUsage({k: v for k, v in counts.items() if k != "model_ms"}, counts["model_ms"] / 1000))
        grown = (await used_bytes(session._db) - before) / len(commands)
    finally:
        await session.close()
    return walls, timings, usages, grown


def _step_words(usage: TurnUsage, step: str) -> str:
    calls = usage.counts.get(f"{step}.calls", 0)
    if not calls:
        return f"{step} -"
    prompt = usage.counts.get(f"{step}.prompt_tokens", 0)
    completion = usage.counts.get(f"{step}.completion_tokens", 0)
    return f"{step} {calls}x {prompt:,}+{completion:,}"


@functools.cache
def _world() -> World:
    return load_world(WORLDS, "tiny")


FIRST = ["Ada", "Bram", "Cora", "Dunstan", "Elsie", "Fenn", "Greta", "Hal", "Ilse", "Jory", "Kit", "Lorna"]
LAST = ["Marsh", "Hale", "Tarrant", "Quill", "Rooke", "Salter", "Vane", "Wick"]
RELATIONS = ["TRUSTS", "DISTRUSTS", "OWES", "FEARS", "SERVES", "RIVAL_OF", "KIN_OF", "KNOWS_SECRET_OF"]


async def _known_graph(world: World) -> tuple[GraphIndex, WorldIR]:
    """The tiny world's graph with enough people and relations that the extractor sees 60 of each."""
    index = GraphIndex()
    execution = UpsertExecution(index, world.vocabulary, 0, rng=random.Random(0))
    for call in world.initial_graph_calls():
        await execution.run(call)
    index.apply(execution.writes)
    names = [f"{FIRST[i % len(FIRST)]} {LAST[i // len(FIRST)]}" for i in range(KNOWN + 10)]
    rng = random.Random(60)
    for turn, start in enumerate(range(0, len(names), 8), start=1):
        execution = UpsertExecution(index, world.vocabulary, turn, rng=rng)
        outcome = await execution.run({"nodes": [
            {"name": name, "type": "individual", "aliases": [name.split()[0]],
             "summary": f"{name} works the harbour at the foot of the light and knows every boat by its lamp."}
            for name in names[start:start + 8]]})
        assert outcome.error is None, outcome.error
        index.apply(execution.writes)
    for turn in range(20, 28):
        execution = UpsertExecution(index, world.vocabulary, turn, rng=rng)
        edges = []
        for _ in range(12):
            a, b = rng.sample(names, 2)
            relation = rng.choice(RELATIONS)
            strength = round(rng.uniform(-0.9, 0.9), 2)
            valence = world.vocabulary.valence(relation)  # a strength against it is refused
            strength = abs(strength) if valence == "positive" else -abs(strength) if valence == "negative" else strength
            edges.append({"sourceName": a, "targetName": b, "relation": relation, "strength": strength,
                          "fact": f"{a} {relation.lower().replace('_', ' ')} {b} since the storm of the long "
                                  f"night, and the whole harbour knows it."})
        outcome = await execution.run({"edges": edges})
        assert outcome.error is None, outcome.error
        index.apply(execution.writes)
    ir = WorldIR.model_validate({
        "charactersPresent": ["Sam Reed", "Edda Marsh", names[0]],
        "entities": [{"name": names[0], "kind": "character", "summary": "A harbour hand who came up the stair."}],
        "relations": [{"source": names[0], "target": "Sam Reed", "relation": "TRUSTS", "strength": 0.4,
                       "fact": f"{names[0]} trusts Sam Reed after Sam carried the oil up for them.",
                       "evidence": "You carry the oil up for them."}],
        "nextCast": ["Edda Marsh", names[0]],
    })
    return index, ir


async def _extract_prompt(recording: Path) -> list[str]:
    world = _world()
    graph, ir = await _known_graph(world)
    nodes, edges, names = await existing_near(graph, ir)
    full = extract_v1(world, 30, ir, nodes, edges, names)
    chars = sum(len(m["content"]) for m in full.messages)
    tokens = message_tokens(full.messages)
    schema = tools_tokens(extraction_tools())
    lines = [
        f"extractor prompt at {len(nodes)} known nodes and {len(edges)} relations: {chars:,} characters, "
        f"about {tokens:,} tokens (+{schema:,} for the tool schemas); "
        f"sections: npcs {full.sections['existingNpcs']:,} chars, relations {full.sections['existingRelations']:,}",
    ]
    for context in (LLMSettings().context_size, 4096):
        # The same fitting a turn does (private to the narrator: measured here, not re-implemented). A
        # replaying narrator makes no request; only the prompt is built.
        teller = OpenAINarrator(LLMSettings(context_size=context), world, replay=recording)
        fitted = teller._fitted_extract_prompt(30, ir, nodes, edges, names)
        await teller.aclose()
        user = fitted.messages[-1]["content"]
        lines.append(f"  fitted to context_size {context}: {_section_lines(user, 'existing-npcs')} nodes and "
                     f"{_section_lines(user, 'existing-relations')} relations kept, "
                     f"{sum(len(m['content']) for m in fitted.messages):,} characters, "
                     f"about {message_tokens(fitted.messages):,} tokens")
    return lines


def _section_lines(text: str, tag: str) -> int:
    body = text.split(f"<{tag}>", 1)[1].split(f"</{tag}>", 1)[0]
    return sum(1 for line in body.splitlines() if line.startswith("- "))


async def _measure(replays: int) -> list[str]:
    generator = _generator()
    commands = [command for command, _ in generator.TURNS]
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="kith-llm-bench-") as tmp:
        folder = Path(tmp)
        recording = folder / "live.jsonl"
        live = await _live(folder, generator, recording)
        estimated = folder / "estimated.jsonl"
        _without_usage(recording, estimated)
        runs = [await _replay(folder, estimated, commands, run) for run in range(replays)]
        prompt_lines = await _extract_prompt(estimated)
    usages = runs[0][2]
    lines.append(f"session: {len(commands)} turns of the tiny world, scripted replies from the local test server; "
                 "tokens are Kith's own estimate (prompt+completion, tool schemas included)")
    totals: dict[str, int] = {}
    for number, (command, usage) in enumerate(zip(commands, usages, strict=True), start=1):
        for key, value in usage.counts.items():
            totals[key] = totals.get(key, 0) + value
        lines.append(f"{f'turn {number} {command!r}':43} " + "; ".join(_step_words(usage, s) for s in STEPS))
    lines.append(f"{'all turns':43} " + "; ".join(_step_words(TurnUsage(totals), s) for s in STEPS))
    lines.append("")
    # Engine time: the median over the replays of each turn (the first replay warms caches up too).
    engine = [statistics.median(run[0][i] for run in runs[1:]) for i in range(len(commands))]
    phases: dict[str, float] = {}
    for key in ("retrieve_ms", "narrate_ms", "world_ir_ms", "extract_ms", "commit_ms"):
        phases[key] = statistics.median(t.get(key, 0.0) for run in runs[1:] for t in run[1])
    lines.append(f"engine's own time per turn (replay, no model; median of {replays - 1} runs): "
                 + ", ".join(f"{ms:.1f}" for ms in engine) + f" ms; median {statistics.median(engine):.1f} ms")
    reading = statistics.median(u.model_seconds * 1000 for run in runs[1:] for u in run[2])
    lines.append(f"  of which the replay's own reading of the recording (digests): about {reading:.0f} ms a turn")
    lines.append("  by phase (median): " + ", ".join(f"{k.removesuffix('_ms')} {v:.1f}" for k, v in phases.items())
                 + " ms")
    lines.append(f"save bytes per model turn (replay, {len(commands)} turns): {runs[0][3]:,.0f}")
    lines.append("live against the test server (wall / waiting on the model / the rest), ms: "
                 + ", ".join(f"{wall:.0f}/{model}/{wall - model:.0f}" for _, wall, model in live))
    lines.append("")
    lines.extend(prompt_lines)
    return lines


def run(quick: bool = False) -> list[str]:
    """Quick: the same session and prompt, replayed twice instead of nine times."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    return asyncio.run(_measure(2 if quick else REPLAYS))
