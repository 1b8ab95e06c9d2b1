"""Two people found to be one: the merged NPC's memories, attitude and said words become the kept one's.

Real saves in tmp folders, played through the real session (the tiny fixture world, the offline narrator
whose graph update names a newcomer, "Keeper Marsh", as a model's extractor would) and merged by the
real CLI (``graph merge``, ``graph resolve``) or by the player's "yes" in play.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.narrators import Introducing
from helpers.play import collect, text_of
from helpers.questions import questions_of
from helpers.recordings import assert_generator_remakes
from helpers.saves import SCHEMA
from store_helpers import state

from game.__main__ import main
from game.config import Settings, load_settings
from game.engine.session import GameSession
from game.features.attitudes.model import Attitude, Change
from game.features.identity.minds import fold_attitude, fold_memories, fold_said
from game.features.memories.book import Memory, MemoryBook, MemorySettings
from game.graph.models import Node
from game.graph.upsert import UpsertExecution
from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult
from game.store.database import SaveDatabase
from game.store.rows import read_rows
from game.world import World, load_world
from game.world.ir import IRAct

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
PLAYER = "Sam Reed"
KEEPER = {"name": "Keeper Marsh", "summary": "A keeper in an oilskin who knows the stair too well."}
WARY = {"sourceName": "Keeper Marsh", "targetName": PLAYER, "relation": "DISTRUSTS", "strength": -0.4,
        "fact": "Keeper Marsh does not trust Sam Reed, who came out on the supply boat."}
MIND_TABLES = ("npc_memories", "npc_said", "attitudes")


class Witnessed(Introducing):
    """The offline narrator whose graph update at turn ``at`` names Keeper Marsh, who stands on the stair
    and sees the player help him: a model's turn would state the same."""

    def __init__(self, world: World, at: int = 1) -> None:
        super().__init__(world, at, {"nodes": [KEEPER], "edges": [WARY]})

    async def extract(self, request: NarrationRequest, result: NarrationResult,
                      execution: UpsertExecution) -> ExtractionReport:
        report = await super().extract(request, result, execution)
        if request.turn == self.at:
            ir = result.world_ir
            result.world_ir = ir.model_copy(update={
                "characters_present": [*ir.characters_present, "Keeper Marsh"],
                "acts": [*(ir.acts or []), IRAct(kind="met", character="Keeper Marsh"),
                         IRAct(kind="act", verb="help", character="Keeper Marsh")]})
        return report


def settings_for(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})


async def start(tmp_path: Path) -> GameSession:
    return await GameSession.open(settings_for(tmp_path), save="game", new=True, world="tiny",
                                  narrator=Witnessed(load_world(FIXTURES, "tiny")))


async def minds(db: SaveDatabase) -> dict[str, list[dict[str, Any]]]:
    """The mind's tables as the save holds them, sorted: what undo must put back exactly."""
    return {table: sorted((dict(r) for r in await read_rows(db.conn, table)), key=lambda r: json.dumps(r))
            for table in MIND_TABLES}


def rows_of(tables: dict[str, list[dict[str, Any]]], table: str, npc: str) -> list[dict[str, Any]]:
    column = "npc_id" if table == "attitudes" else "npc"
    return [r for r in tables[table] if r[column] == npc]


async def test_a_yes_in_play_gives_the_kept_person_the_strangers_mind(tmp_path: Path) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        [asked] = await questions_of(session)
        assert (asked.new_name, asked.candidate_name) == ("Keeper Marsh", "Edda Marsh")
        keeper, edda = asked.new_id, asked.candidate_id
        assert [m.text for m in session.memories.of(keeper) if m.turn == 1] == [
            "Met Sam Reed for the first time.", "Sam Reed helped me."]
        assert session.attitudes.of(session.graph.nodes[keeper]).trust < 0
        await collect(session, "wait")  # the question is asked
        before = await minds(session._db), await state(session._db)
        said = text_of(await collect(session, "yes"))
        assert "Edda Marsh it is" in said
        # In memory, right after the turn: Edda remembers what the keeper saw, and feels what he felt.
        texts = [m.text for m in session.memories.of(edda)]
        assert "Sam Reed helped me." in texts and "Met Sam Reed for the first time." in texts
        assert session.memories.of(keeper) == []
        attitude = session.attitudes.of(session.graph.nodes[edda])
        assert attitude.trust < 0 and attitude.history[-1].reason == "merged with Keeper Marsh (turn 3)"
        assert session.memories.has_said(edda, "met")
        # The save holds the same, and the keeper's rows are gone.
        after = await minds(session._db)
        for table in MIND_TABLES:
            assert rows_of(after, table, keeper) == []
        assert {r["text"] for r in rows_of(after, "npc_memories", edda)} >= {"Sam Reed helped me."}
        npc = text_of(await collect(session, "/npc Edda"))
        assert "Sam Reed helped me." in npc
        # The narrator is told so at the next turn: Edda's MEMORY section holds what the keeper saw.
        await collect(session, "look")
        mind = text_of(await collect(session, "/mind Edda"))
        assert "[MEMORY]" in mind and "Sam Reed helped me." in mind
        await collect(session, "undo")
        # Undo takes back the merge and both minds, exactly.
        await collect(session, "undo")
        assert (await minds(session._db), await state(session._db)) == before
        assert [m.text for m in session.memories.of(keeper) if m.turn == 1] == [
            "Met Sam Reed for the first time.", "Sam Reed helped me."]
        assert "Sam Reed helped me." not in [m.text for m in session.memories.of(edda)]
    finally:
        await session.close()


# ------------------------------------------------------------------------------------------ the CLI


def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str, config: Path | None = None) -> tuple[int, str, str]:
    options = ["--config", str(config)] if config is not None else []
    code = main([*options, "--saves-dir", str(tmp_path / "saves"), "--content-dir", str(FIXTURES), "graph", *args])
    out, err = capsys.readouterr()
    return code, out, err


async def played(tmp_path: Path) -> tuple[Any, ...]:
    """A save ``game`` at turn 2: the keeper met and helped at turn 1 (question 1-1 about him asked at turn
    2). Returns the mind's tables and the graph as they were after turn 1."""
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        after_first = await minds(session._db), await state(session._db)
        await collect(session, "wait")
    finally:
        await session.close()
    return after_first


async def open_game(tmp_path: Path) -> SaveDatabase:
    return await SaveDatabase.open(tmp_path / "saves" / "game.sqlite", schema=SCHEMA)


def test_graph_merge_folds_the_mind_keeps_the_graph_in_agreement_and_undo_restores_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    after_first = asyncio.run(played(tmp_path))
    # An author writes that Edda trusts the player (no attitude recorded for her: her relations imply one).
    trusting = tmp_path / "trusting.json"
    trusting.write_text(json.dumps({"edges": [{"sourceName": "Edda Marsh", "targetName": PLAYER, "relation": "TRUSTS",
                                               "strength": 0.5, "fact": "Edda Marsh trusts Sam Reed."}]}))
    assert kith(tmp_path, capsys, "upsert", "--save", "game", str(trusting))[0] == 0
    code, out, err = kith(tmp_path, capsys, "merge", "--save", "game", "Edda Marsh", "Keeper Marsh", "--json",
                          "--evidence", "the same oilskin")
    assert code == 0, err
    report = json.loads(out)
    assert report["mind"] == {"memories": 2, "attitude": "merged", "said": 1}
    attitude = json.loads(kith(tmp_path, capsys, "attitude", "--save", "game", "Edda Marsh", "--json")[1])
    assert attitude["tier"] == "UNFRIENDLY" and attitude["trust"] == -20.0
    assert attitude["history"][-1]["reason"] == "merged with Keeper Marsh (turn 2)"
    memories = json.loads(kith(tmp_path, capsys, "memories", "--save", "game", "Edda Marsh", "--json")[1])
    assert "Sam Reed helped me." in [m["text"] for m in memories]
    # The keeper's distrust is Edda's now, and her tier closes the trust an author gave her.
    edges = json.loads(kith(tmp_path, capsys, "dump", "--save", "game")[1])["edges"]
    toward = {(e["relation"], e.get("invalidAt") is None) for e in edges
              if e["source"] == "npc-edda-marsh" and e["target"] == "npc-sam-reed"}
    assert toward == {("TRUSTS", False), ("DISTRUSTS", True)}

    async def undo() -> None:
        async with await open_game(tmp_path) as db:
            tables = await minds(db)
            for table in MIND_TABLES:
                assert rows_of(tables, table, "npc-keeper-marsh") == []
            await db.undo_last_turn()  # turn 2: the question, the upsert, the merge and its closed trust
            assert (await minds(db), await state(db)) == after_first

    asyncio.run(undo())


def test_graph_merge_text_says_what_was_folded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(played(tmp_path))
    code, out, _ = kith(tmp_path, capsys, "merge", "--save", "game", "Edda Marsh", "Keeper Marsh")
    assert code == 0
    assert "Mind: 2 memory(ies) taken over; attitude merged; 1 thing(s) said taken over." in out


def test_graph_merge_keeps_the_memory_capacity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(played(tmp_path))
    config = tmp_path / "kith.toml"
    config.write_text("[memory]\ncapacity = 2\n")

    async def held() -> list[Memory]:
        async with await open_game(tmp_path) as db:
            from game.features.memories.store import load_memory_book
            return (await load_memory_book(db)).of("npc-edda-marsh")

    before = asyncio.run(held())
    assert [m.text for m in before] == ["Sam Reed helped Keeper Marsh."]  # she saw it from the stair
    code, out, err = kith(tmp_path, capsys, "merge", "--save", "game", "Edda Marsh", "Keeper Marsh",
                          config=config)
    assert code == 0, err
    assert "1 forgotten past capacity" in out
    after = asyncio.run(held())
    assert len(after) == 2 and {m.npc for m in after} == {"npc-edda-marsh"}


def test_graph_resolve_yes_folds_the_mind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(played(tmp_path))
    code, _, err = kith(tmp_path, capsys, "resolve", "--save", "game", "1-1", "yes")
    assert code == 0, err

    async def check() -> None:
        async with await open_game(tmp_path) as db:
            tables = await minds(db)
        assert {r["text"] for r in rows_of(tables, "npc_memories", "npc-edda-marsh")} >= {
            "Sam Reed helped me.", "Met Sam Reed for the first time."}
        [attitude] = rows_of(tables, "attitudes", "npc-edda-marsh")
        assert attitude["trust"] < 0
        assert [r["key"] for r in rows_of(tables, "npc_said", "npc-edda-marsh")] == ["met"]
        for table in MIND_TABLES:
            assert rows_of(tables, table, "npc-keeper-marsh") == []

    asyncio.run(check())


# ------------------------------------------------------------------------------------------ the rules

KEPT = Node(id="npc-maud", name="Maud Pike", type="individual", summary="The harbourmaster.",
            first_seen_turn=0, last_seen_turn=0)
HOOD = Node(id="npc-hood", name="the stranger in the hood", type="individual", summary="Hooded.", first_seen_turn=3, last_seen_turn=3)


def memory(npc: str, seq: int, text: str, turn: int, strength: float = 1.0, about: str = "") -> Memory:
    return Memory(npc=npc, seq=seq, kind="episodic", text=text, turn=turn, importance=0.5, valence=0.0,
                  tags=("help",), strength=strength, last_used=turn, uses=1, heard=seq == 2, about=about)


def test_memories_move_renumbered_once_each_within_capacity() -> None:
    book = MemoryBook(MemorySettings(capacity=3))
    for m in (memory("npc-maud", 1, "Met Sam.", 1), memory("npc-maud", 2, "Sam saw the hood.", 2, about="npc-hood"),
              memory("npc-hood", 1, "Sam followed me.", 3), memory("npc-hood", 2, "Met Sam.", 1, strength=0.1),
              memory("npc-hood", 5, "Sam gave me a coin.", 4)):
        book.memories.setdefault(m.npc, {})[m.seq] = m
    other = memory("npc-hob", 1, "Sam threatened the hood.", 2, about="npc-hood")
    fold = fold_memories(book, "npc-maud", "npc-hood", 5, [other])
    assert (fold.moved, fold.repeated, fold.forgotten) == (3, 1, 1)
    after = book.copy()
    after.apply(fold.rows)
    assert after.of("npc-hood") == []
    kept = after.of("npc-maud")
    # "Met Sam." was one memory (Maud's, the stronger); past 3 memories the least relevant one, that
    # oldest meeting, is forgotten by the rule forming a memory uses (``MemoryBook.over_capacity``).
    assert [m.text for m in kept] == ["Sam saw the hood.", "Sam followed me.", "Sam gave me a coin."]
    moved = kept[-1]
    assert (moved.seq, moved.turn, moved.strength, moved.uses, moved.tags, moved.heard) == (4, 4, 1.0, 1, ("help",), False)
    assert all(m.about != "npc-hood" for m in kept)  # what was done to the hood was done to Maud
    assert after.of("npc-hob")[0].about == "npc-maud"


def test_said_is_united_and_the_earlier_turn_wins() -> None:
    rows = fold_said({"npc-maud": {"met": 5}, "npc-hood": {"met": 2, "recalled": 4}}, KEPT, HOOD)
    book = MemoryBook(said={"npc-maud": {"met": 5}, "npc-hood": {"met": 2, "recalled": 4}})
    book.apply(rows)
    assert book.said == {"npc-maud": {"met": 2, "recalled": 4}, "npc-hood": {}}


def test_attitudes_unite_weighted_by_history_in_turn_order() -> None:
    held = Attitude("npc-maud", "Maud Pike", 30.0, 10.0, 20.0, (
        Change(1, 10.0, 5.0, 10.0, "you helped them"), Change(4, 30.0, 10.0, 20.0, "you gave them a coin"),
        Change(6, 30.0, 10.0, 20.0, "you warned them")))
    taken = Attitude("npc-hood", "the stranger in the hood", -30.0, 0.0, -40.0,
                     (Change(3, -30.0, 0.0, -40.0, "you threatened them"),))
    united, how = fold_attitude(KEPT, HOOD, held, taken, 7)
    assert how == "united" and united is not None
    assert (united.npc_id, united.trust, united.respect, united.friendliness) == ("npc-maud", 15.0, 7.5, 5.0)
    assert [c.turn for c in united.history] == [1, 3, 4, 6, 7]
    assert united.history[-1].reason == "merged with the stranger in the hood (turn 7)"
    assert fold_attitude(KEPT, HOOD, held, None, 7) == (None, "kept")
    assert fold_attitude(KEPT, HOOD, None, None, 7) == (None, "none")
    moved, how = fold_attitude(KEPT, HOOD, None, taken, 7)
    assert how == "merged" and moved is not None and (moved.npc_id, moved.trust) == ("npc-maud", -30.0)


def test_the_kettle_mind_recording_is_what_its_generator_makes(tmp_path: Path) -> None:
    assert_generator_remakes("make_kettle_mind_recording.py", "identity-kettle-mind.jsonl", tmp_path)


def test_graph_merge_refuses_to_fold_the_player_away(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kith graph merge --save S Lise Wren` folded the player into Lise: Lise got the player's flag and
    relations and the game went on with Lise as the player. The player is never the merged one."""
    asyncio.run(played(tmp_path))
    save = tmp_path / "saves" / "game.sqlite"
    before = save.read_bytes()
    code, _, err = kith(tmp_path, capsys, "merge", "--save", "game", "Edda Marsh", PLAYER)
    assert code == 2
    assert f"{PLAYER} is the player character" in err and "Nothing was changed" in err
    assert f"kith graph merge --save game '{PLAYER}' 'Edda Marsh'" in err
    assert save.read_bytes() == before
    dump = json.loads(kith(tmp_path, capsys, "dump", "--save", "game")[1])
    assert [n["name"] for n in dump["nodes"] if n.get("attributes", {}).get("player")] == [PLAYER]
