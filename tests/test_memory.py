"""NPCs' memories of the player: formed from the turn's facts, bounded, fading unless used, consolidated,
stored with the turn and undone with it, and shown by ``/npc`` and ``kith graph memories``."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from chat_server import ChatServer, Failure, Text
from helpers.play import collect, play_session, text_of
from helpers.saves import migration_of, older_save
from llm_helpers import narrator, tiny_world
from playthrough import Playthrough
from test_cli_graph import Kith

from game.config import load_settings
from game.engine.session import GameSession
from game.errors import SaveError
from game.features.feature import HeardDeed
from game.features.memories.book import Memory, MemoryBook, MemorySettings
from game.features.memories.consolidate import consolidate, deterministic_summary, valid_summary
from game.features.memories.rules import memory_rows
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.narrator.llm.ir import tidy_ir
from game.world import World, load_world
from game.world.ir import IRRelation, WorldIR

CONTENT = Path(__file__).resolve().parent.parent / "content"


@pytest.fixture(scope="module")
def brinefall() -> World:
    return load_world(CONTENT, "brinefall")


def episode(seq: int, text: str, turn: int, tags: tuple[str, ...] = ("help", "kind"), importance: float = 0.6,
            valence: float = 0.6, npc: str = "npc-hob") -> Memory:
    return Memory(npc=npc, seq=seq, kind="episodic", text=text, turn=turn, importance=importance, valence=valence,
                  tags=tags, strength=1.0, last_used=turn)


async def game_with(world: World, settings: MemorySettings, commands: Sequence[str]) -> Playthrough:
    game = await Playthrough.start(world)
    game.pipeline.state.features["memories"] = MemoryBook(settings)  # the memories feature's state
    for command in commands:
        await game.play(command)
    return game


# ------------------------------------------------------------------------------------------ decay


def test_strength_fades_each_turn_and_fades_slower_for_a_memory_that_was_used() -> None:
    settings = MemorySettings(decay_rate=0.05)
    fresh = episode(1, "Wren helped me.", 10)
    assert fresh.strength_at(10, settings) == 1.0
    assert fresh.strength_at(20, settings) < fresh.strength_at(15, settings) < 1.0
    book = MemoryBook(settings)
    used = book.recalled(fresh, 10)
    assert used.uses == 1 and used.last_used == 10
    # Recalled at turn 10: ten turns on it has lost less than the one never recalled.
    assert used.strength_at(20, settings) > fresh.strength_at(20, settings)
    # Nothing is stored as time passes: the row is the same at any turn, only the reading changes.
    assert fresh.row() == episode(1, "Wren helped me.", 10).row()


# ------------------------------------------------------------------------------------------ forming


async def test_the_one_acted_on_and_the_bystanders_remember_the_act_from_the_turns_facts(brinefall: World) -> None:
    game = await game_with(brinefall, MemorySettings(), ["talk to hob", "w", "talk to tibby", "e", "threaten hob"])
    book = game.pipeline.state.memories
    hob = [m.text for m in book.of("npc-hob-tarrant")]
    assert "Met Wren Tallis for the first time." in hob and "Wren Tallis threatened me." in hob
    threat = next(m for m in book.of("npc-hob-tarrant") if m.text == "Wren Tallis threatened me.")
    assert threat.valence < 0 and threat.importance > 0.5 and "threaten" in threat.tags and not threat.heard
    assert book.has_said("npc-hob-tarrant", "met") and book.has_said("npc-tibby-tarrant", "met")
    # Tibby was not there: she has no memory of the threat (until word reaches her, as heard).
    assert not any("threatened" in m.text and not m.heard for m in book.of("npc-tibby-tarrant"))


async def test_a_models_turn_is_remembered_from_its_relations_by_those_present() -> None:
    wren = Node(id="npc-wren", name="Wren", type="individual", summary="The player.", first_seen_turn=0,
                last_seen_turn=0, attributes={"player": True})
    hob = Node(id="npc-hob", name="Hob", type="individual", summary="The ferryman.", first_seen_turn=0,
               last_seen_turn=0)
    lise = Node(id="npc-lise", name="Lise", type="individual", summary="The sergeant.", first_seen_turn=0,
                last_seen_turn=0)
    graph = GraphIndex([wren, hob, lise])
    ir = WorldIR(characters_present=["Hob", "Lise"], relations=[IRRelation(
        source="Hob", target="Wren", relation="TRUSTS", strength=0.6, fact="Hob trusts Wren since Wren bailed his ferry.")])
    rows = await memory_rows(MemoryBook(), graph, GraphWrites(), ir, 3)
    book = MemoryBook()
    book.apply(rows)
    assert [(m.text, m.about) for m in book.of("npc-hob")] == [("Hob trusts Wren since Wren bailed his ferry.", "")]
    assert [(m.text, m.about) for m in book.of("npc-lise")] == [
        ("Hob trusts Wren since Wren bailed his ferry.", "npc-hob")]
    assert book.of("npc-lise")[0].importance < book.of("npc-hob")[0].importance


async def test_word_of_a_deed_is_remembered_as_heard_from_its_teller_once() -> None:
    wren = Node(id="npc-wren", name="Wren", type="individual", summary="The player.", first_seen_turn=0,
                last_seen_turn=0, attributes={"player": True})
    pell, ambry = (Node(id=f"npc-{n.lower()}", name=n, type="individual", summary=n, first_seen_turn=0,
                        last_seen_turn=0) for n in ("Pell", "Ambry"))
    graph = GraphIndex([wren, pell, ambry])
    heard = HeardDeed("npc-pell", "Wren threatened Ambry.", "npc-ambry", -0.8, "npc-ambry", ("threaten", "cruel"))
    rows = await memory_rows(MemoryBook(), graph, GraphWrites(), None, 5, deeds=[heard])
    book = MemoryBook()
    book.apply(rows)
    [memory] = book.of("npc-pell")
    assert (memory.text, memory.heard, memory.about) == ("Heard that Wren threatened Ambry (from Ambry).", True, "npc-ambry")
    assert memory.valence < 0 and "threaten" in memory.tags
    # Heard again later (a rumour from someone else): the first hearing is the memory.
    again = await memory_rows(book, graph, GraphWrites(), None, 6, deeds=[heard])
    assert again == []


def test_a_model_cannot_claim_the_story_engines_acts() -> None:
    forged = {"charactersPresent": [], "acts": [{"kind": "revealed", "character": "Pell", "detail": "Pell:x"}]}
    assert WorldIR.model_validate(tidy_ir(forged)).acts is None


# ------------------------------------------------------------------------------------------ bounds


async def test_past_the_capacity_the_least_relevant_memory_is_forgotten(brinefall: World) -> None:
    commands = ["talk to hob", "threaten hob", *(f"ask hob about {t}" for t in ("ness", "the bell", "kestrel", "orla"))]
    game = await game_with(brinefall, MemorySettings(capacity=3), commands)
    hob = game.pipeline.state.memories.of("npc-hob-tarrant")
    assert len([m for m in hob if m.kind == "episodic"]) == 3
    # The threat (important) outlives the idle questions asked before the last one.
    assert "Wren Tallis threatened me." in [m.text for m in hob]
    assert "Wren Tallis asked me about Ness." not in [m.text for m in hob]


def test_the_capacity_is_a_setting() -> None:
    settings = load_settings(flags={"memory": {"capacity": 12}}, env={})
    assert settings.memory.capacity == 12
    assert load_settings(env={}).memory.capacity == 200


# ------------------------------------------------------------------------------------------ consolidation


async def test_old_related_memories_become_one_semantic_memory_offline(brinefall: World) -> None:
    settings = MemorySettings(consolidate_age=2, consolidate_count=3)
    asked = ["ask hob about the flood", "ask hob about the guild", "ask hob about the sluice", "wait", "wait",
             "ask hob about kestrel"]
    game = await game_with(brinefall, settings, asked)
    hob = game.pipeline.state.memories.of("npc-hob-tarrant")
    semantic = [m for m in hob if m.kind == "semantic"]
    assert len(semantic) == 1
    assert semantic[0].text == ("Wren Tallis has asked questions 3 times between turns 1 and 3; the latest: "
                                "Wren Tallis asked me about the sluice.")
    assert semantic[0].tags[0] == "ask" and semantic[0].turn == 3
    # The newest question is not old enough yet; the first meeting is never folded into an impression.
    assert [m.text for m in hob if m.kind == "episodic"] == [
        "Met Wren Tallis for the first time.", "Wren Tallis asked me about Kestrel."]


class Junk:
    def __init__(self, answer: str | None) -> None:
        self.answer = answer

    async def summarize(self, npc_name: str, memories: Sequence[Memory], fallback: str, turn: int) -> str:
        if self.answer is None:
            raise RuntimeError("the model went away")
        return self.answer


@pytest.mark.parametrize("answer", [None, "", "\x1b[31mWren is kind\x1b[0m", "{\"summary\": 1}", "x" * 900])
async def test_a_models_summary_that_is_junk_falls_back_to_the_deterministic_one(answer: str | None) -> None:
    book = MemoryBook(MemorySettings(consolidate_age=1, consolidate_count=2))
    book.apply([episode(1, "Wren helped me.", 1).row(), episode(2, "Wren helped me again.", 2).row()])
    rows = await consolidate(book, "npc-hob", 10, "Wren", Junk(answer))
    book.apply(rows)
    [semantic] = book.of("npc-hob")
    assert semantic.kind == "semantic"
    assert semantic.text == deterministic_summary("Wren", "help", [episode(1, "a", 1), episode(2, "Wren helped me again.", 2)])


async def test_a_models_usable_summary_is_kept() -> None:
    book = MemoryBook(MemorySettings(consolidate_age=1, consolidate_count=2))
    book.apply([episode(1, "Wren helped me.", 1).row(), episode(2, "Wren helped me again.", 2).row()])
    book.apply(await consolidate(book, "npc-hob", 10, "Wren", Junk("Wren keeps turning up\nto help me.")))
    assert [m.text for m in book.of("npc-hob")] == ["Wren keeps turning up to help me."]
    assert valid_summary("ok") is None and valid_summary(3) is None


# ------------------------------------------------------------------------------------------ saves and undo


async def open_game(tmp_path: Path, new: bool = True) -> GameSession:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT}, env={})
    return await GameSession.open(settings, save="game", new=new, world="brinefall")


def memory_rows_on_disk(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return [*conn.execute("SELECT * FROM npc_memories ORDER BY npc, seq"),
                *conn.execute("SELECT * FROM npc_said ORDER BY npc, key")]


async def test_undo_restores_memories_exactly_on_disk_and_in_play(tmp_path: Path) -> None:
    session = await open_game(tmp_path)
    try:
        await play_session(session, ["talk to hob", "help hob"])
        path = session.save_path
        before = memory_rows_on_disk(path)
        shown = text_of(await collect(session, "/npc hob"))
        await play_session(session, ["threaten hob", "w", "talk to tibby"])
        assert memory_rows_on_disk(path) != before
        await collect(session, "undo 3")
        assert memory_rows_on_disk(path) == before
        assert text_of(await collect(session, "/npc hob")) == shown
        assert "threatened" not in shown
    finally:
        await session.close()
    reopened = await open_game(tmp_path, new=False)
    try:
        assert text_of(await collect(reopened, "/npc hob")) == shown
    finally:
        await reopened.close()


async def test_npc_lists_memories_newest_and_strongest_first(tmp_path: Path) -> None:
    session = await open_game(tmp_path)
    try:
        await play_session(session, ["talk to hob", "help hob", "ask hob about ness"])
        shown = text_of(await collect(session, "/npc Old Hob"))
        assert shown.startswith("**What Hob Tarrant remembers of you** (4 memories; newest and strongest first):")
        lines = [line for line in shown.splitlines() if line.startswith("- turn")]
        assert [line.split(" · ")[0] for line in lines] == ["- turn 3", "- turn 3", "- turn 2", "- turn 1"]
        assert "Told Wren Tallis about Ness Tallis: She ran brandy" in lines[1]
        assert "Wren Tallis helped me. [help, kind]" in lines[2]
        # Ness is known from the start (heard of, never met here); Orla Vance, not yet heard of, is nobody.
        assert "Ness Tallis remembers nothing of you yet" in text_of(await collect(session, "/npc ness"))
        assert "Nobody called 'orla'" in text_of(await collect(session, "/npc orla"))
        assert "Type `/npc NAME`" in text_of(await collect(session, "/npc"))
        assert "Nobody called 'zed'" in text_of(await collect(session, "/npc zed"))
        assert session.turn == 3  # looking is not a turn
    finally:
        await session.close()


async def test_a_save_from_before_memories_opens_and_plays_on(tmp_path: Path) -> None:
    session = await open_game(tmp_path)
    try:
        await play_session(session, ["talk to hob"])
        path = session.save_path
    finally:
        await session.close()
    current = path.with_name("current.sqlite")
    path.rename(current)
    older_save(current, path, migration_of("npc_memories"))  # as it was before the migration: no tables
    reopened = await open_game(tmp_path, new=False)
    try:
        told = text_of(await collect(reopened, "help hob"))
        assert "bow line" in told
        assert [m.text for m in reopened.memories.of("npc-hob-tarrant")] == [
            "Met Wren Tallis for the first time.", "Wren Tallis helped me."]
    finally:
        await reopened.close()


def test_kith_graph_memories_prints_the_exact_json_list(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    kith = Kith(tmp_path, capsys, monkeypatch)

    async def played() -> None:
        settings = load_settings(flags={"saves_dir": kith.saves, "content_dir": CONTENT}, env={})
        session = await GameSession.open(settings, save="game", new=True, world="brinefall")
        try:
            await play_session(session, ["talk to hob", "threaten hob"])
        finally:
            await session.close()

    asyncio.run(played())
    listed = kith.json("memories", "--save", "game", "--json", "Hob")
    assert [set(item) for item in listed] == [{"kind", "text", "turn", "importance", "valence", "tags", "strength"}] * 2
    assert listed[0] == {"kind": "episodic", "text": "Wren Tallis threatened me.", "turn": 2, "importance": 0.85,
                         "valence": -0.8, "tags": ["threaten", "cruel"], "strength": 1.0}
    code, out, _ = kith("memories", "--save", "game", "Hob")
    assert code == 0 and out.startswith("**What Hob Tarrant remembers of you**")
    code, _, err = kith("memories", "--save", "game", "Eel Run")
    assert code != 0 and "only individuals remember" in err
    assert json.loads(kith("memories", "--save", "game", "--json", "Orla")[1]) == []


# ------------------------------------------------------------------------------------------ a model's summary


async def test_with_a_model_the_model_writes_the_consolidated_memory_and_junk_falls_back() -> None:
    def fresh() -> MemoryBook:
        book = MemoryBook(MemorySettings(consolidate_age=1, consolidate_count=2))
        book.apply([episode(1, "Wren helped me.", 1).row(), episode(2, "Wren helped me again.", 2).row()])
        return book

    fallback = deterministic_summary("Wren", "help", [episode(1, "x", 1), episode(2, "Wren helped me again.", 2)])
    with ChatServer() as server:
        teller = narrator(tiny_world(), server.base_url)
        try:
            server.push(Text("Wren keeps turning up to help me when nobody else will."), Text("\x1b[2J{}"),
                        Failure(500))
            made = []
            for _ in range(3):
                book = fresh()
                book.apply(await consolidate(book, "npc-hob", 10, "Wren", teller.memory_summarizer))
                made.append([m.text for m in book.of("npc-hob")])
        finally:
            await teller.aclose()
        asked = server.chat_requests[0]
    assert made == [["Wren keeps turning up to help me when nobody else will."], [fallback], [fallback]]
    assert "Wren helped me again." in asked.text() and asked.body["max_tokens"] == 120


@pytest.mark.parametrize("damage", ["UPDATE npc_memories SET tags = '['", "ALTER TABLE npc_memories DROP COLUMN about",
                                    "UPDATE npc_said SET turn = 'soon'"])
async def test_a_damaged_memory_table_is_one_message_naming_the_save(tmp_path: Path, damage: str) -> None:
    session = await open_game(tmp_path)
    try:
        await play_session(session, ["talk to hob", "help hob"])
        path = session.save_path
    finally:
        await session.close()
    with sqlite3.connect(path) as conn:
        conn.execute(damage)
    with pytest.raises(SaveError, match="game is damaged"):
        await open_game(tmp_path, new=False)
