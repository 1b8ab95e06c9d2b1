"""Two people found to be one: the merged NPC's memories, attitude and said words become the kept one's.

Real saves in tmp folders, played through the real session (the tiny fixture world, the offline narrator
whose memory update names a newcomer, "Keeper Marsh", as a model's extractor would) and merged by the
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
from store_helpers import state

from game.__main__ import main
from game.config import Settings, load_settings
from game.engine.session import GameSession
from game.graph.models import Node
from game.mind.attitude import Attitude, Change
from game.mind.memory import Memory, MemoryBook, MemorySettings
from game.mind.mind_merge import fold_attitude, fold_memories, fold_said
from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult
from game.store.database import SaveDatabase, TurnRecord
from game.graph.ports import GraphWrites
from game.graph.upsert import UpsertExecution
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
    """The offline narrator whose memory update at turn ``at`` names Keeper Marsh, who stands on the stair
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
        [asked] = await session.pending_identities()
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
        # Undo takes back the merge and both minds, exactly.
        await collect(session, "undo")
        assert (await minds(session._db), await state(session._db)) == before
        assert [m.text for m in session.memories.of(keeper) if m.turn == 1] == [
            "Met Sam Reed for the first time.", "Sam Reed helped me."]
        assert "Sam Reed helped me." not in [m.text for m in session.memories.of(edda)]
    finally:
        await session.close()
