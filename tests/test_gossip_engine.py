"""Gossip inside the game: it rides in the turn's transaction, reaches kin, is logged, and undo rewinds it."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from helpers.graph import index_of, make_node, rows
from helpers.saves import CURRENT_VERSION, SCHEMA, SCRIPTS

from game.config import load_settings
from game.engine.events import Event, MetaOutput
from game.engine.presence import stage_places
from game.engine.session import GameSession
from game.features.gossip.store import last_talked, told_to
from game.store.database import SaveDatabase
from game.world.scene import SceneState, StoryState

CONTENT = Path(__file__).resolve().parent.parent / "content"


async def collect(session: GameSession, text: str) -> list[Event]:
    return [event async for event in session.play_turn(text)]


async def full_dump(session: GameSession) -> list[tuple[Any, ...]]:
    """Every row of every table of the save, in a fixed order (the journal included)."""
    conn = session._db.conn
    tables = [r[0] for r in await conn.execute_fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    dump: list[tuple[Any, ...]] = []
    for table in tables:
        if table == "meta":
            rows = await conn.execute_fetchall("SELECT key, value FROM meta WHERE key != 'last_played' ORDER BY 1")
        else:
            rows = await conn.execute_fetchall(f"SELECT * FROM {table} ORDER BY 1, 2")
        dump += [(table, *tuple(row)) for row in rows]
    return dump


@pytest.fixture
async def brinefall(tmp_path: Path) -> AsyncIterator[GameSession]:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT}, env={})
    opened = await GameSession.open(settings, save="game", new=True, world="brinefall")
    yield opened
    await opened.close()


def fears_of_tibby(session: GameSession) -> str:
    return next(e.id for e in session.graph.open_edges.values()
                if e.relation == "FEARS" and e.source == "npc-tibby-tarrant")


async def test_a_threat_reaches_kin_by_gossip_and_undo_rewinds_it_exactly(brinefall: GameSession) -> None:
    before = await full_dump(brinefall)
    for command in ("w", "threaten tibby", "e", "look", "look"):
        await collect(brinefall, command)
    fears = fears_of_tibby(brinefall)
    hob = brinefall.graph.knowers_of(fears).get("npc-hob-tarrant")
    assert hob is not None and (hob.how, hob.source) == ("told", "npc-tibby-tarrant")
    assert hob.confidence == pytest.approx(0.7)
    told = await told_to(brinefall._db, ["npc-hob-tarrant"])
    assert [(t.teller, t.edge_id) for t in told] == [("npc-tibby-tarrant", fears)]
    why = "\n".join(e.text for e in await collect(brinefall, "/why Hob") if isinstance(e, MetaOutput))
    assert "**What Hob Tarrant heard from others, and who told them:**" in why
    assert ("- Tibby Tarrant told them at turn 5: Tibby Tarrant hides under the stilts from Wren since Wren "
            "threatened her. (told, 70% sure)") in why
    for _ in range(5):
        await collect(brinefall, "undo")
    assert await full_dump(brinefall) == before
    assert brinefall.graph.all_knowings() == (await brinefall._db.load_graph_index()).all_knowings()


async def test_gossip_settings_come_from_kith_toml(tmp_path: Path) -> None:
    config = tmp_path / "kith.toml"
    config.write_text("[gossip]\nexchanges_per_turn = 0\npair_cooldown = 5\ndecay = 0.5\nfloor = 0.2\n",
                      encoding="utf-8")
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT}, env={},
                             config_file=config)
    assert (settings.gossip.exchanges_per_turn, settings.gossip.pair_cooldown) == (0, 5)
    session = await GameSession.open(settings, save="quiet", new=True, world="brinefall")
    try:
        for command in ("w", "threaten tibby", "e", "look", "look"):
            await collect(session, command)
        assert "npc-hob-tarrant" not in session.graph.knowers_of(fears_of_tibby(session))
    finally:
        await session.close()


async def test_who_stands_where_is_the_storys_positions_else_the_cast_as_one_place() -> None:
    graph = index_of(rows([make_node("Hob Tarrant", aliases=["Hob"]), make_node("Tibby Tarrant"),
                           make_node("Lise Brack")]))
    model_scene = SceneState(location="quay", cast=["Hob", "Tibby Tarrant", "Nobody Known"])
    assert await stage_places(graph, model_scene) == {"npc-hob-tarrant": "quay", "npc-tibby-tarrant": "quay"}
    story = StoryState(positions={"Hob Tarrant": "landing", "Tibby Tarrant": "lowtown", "Lise Brack": None})
    offline_scene = SceneState(location="landing", cast=["Hob"], story=story)
    assert await stage_places(graph, offline_scene) == {"npc-hob-tarrant": "landing", "npc-tibby-tarrant": "lowtown"}


async def test_a_save_from_before_gossip_gets_an_empty_log_and_plays_on(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for script in SCRIPTS[:3]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 3")
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [("application", "kith"), ("world", "w")])
    conn.commit()
    conn.close()
    db = await SaveDatabase.open(path, schema=SCHEMA)
    try:
        assert (await db.conn.execute_fetchall("PRAGMA user_version"))[0][0] == CURRENT_VERSION
        assert await last_talked(db) == {}
        assert await told_to(db, ["npc-mira"]) == []
    finally:
        await db.close()
