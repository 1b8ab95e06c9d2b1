"""What a merge leaves to follow: a tier change it causes is said, no name or ID of the merged person is
left behind, and a save from before the mind's tables does not greet everyone as a stranger again.

Real saves in tmp folders, played through the real session (the tiny fixture world, the offline narrator
whose graph update names a newcomer, "Keeper Marsh", as a model's extractor would: ``test_mind_merge``).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.play import collect, text_of
from helpers.questions import questions_of
from helpers.recordings import assert_generator_remakes
from helpers.saves import migration_of, older_save
from test_mind_merge import FIXTURES, Witnessed, kith, played

from game.config import load_settings
from game.engine.events import AttitudeChanged
from game.engine.session import GameSession
from game.features.identity.traces import fold_known
from game.graph.models import Node
from game.world import load_world
from game.world.scene import Awareness

EDDA_COLD = "Edda keeps her back to you and her hands on the wick."
FALLS = "{name} will not look at you now."


def lined_world(tmp_path: Path) -> Path:
    """The tiny world with what a tier change says (the world's line) and Edda's own cold line."""
    content = tmp_path / "content"
    shutil.copytree(FIXTURES / "tiny", content / "tiny")
    world = content / "tiny" / "world.toml"
    world.write_text(world.read_text(encoding="utf-8") + f'\n[world.tier_changes]\nUNFRIENDLY = "{FALLS}"\n',
                     encoding="utf-8")
    characters = content / "tiny" / "characters.toml"
    text = characters.read_text(encoding="utf-8")
    marker = 'unknown = "Edda shrugs.'
    assert marker in text
    text = text.replace(marker, f'tiers = {{ UNFRIENDLY = "{EDDA_COLD}" }}\n{marker}', 1)
    characters.write_text(text, encoding="utf-8")
    return content


async def start_lined(tmp_path: Path) -> GameSession:
    content = lined_world(tmp_path)
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": content}, env={})
    return await GameSession.open(settings, save="game", new=True, world="tiny",
                                  narrator=Witnessed(load_world(content, "tiny")))


async def test_a_yes_that_changes_the_kept_persons_tier_says_so(tmp_path: Path) -> None:
    session = await start_lined(tmp_path)
    try:
        await collect(session, "look")  # turn 1: the keeper (who distrusts the player) is met
        edda = session.graph.nodes["npc-edda-marsh"]
        assert session.attitudes.of(edda).tier == "NEUTRAL"
        await collect(session, "wait")  # turn 2: "is Keeper Marsh Edda Marsh?"
        events = await collect(session, "yes")
        changed = [e for e in events if isinstance(e, AttitudeChanged)]
        assert [(e.turn, e.name, e.before, e.after) for e in changed] == [(3, "Edda Marsh", "NEUTRAL", "UNFRIENDLY")]
        assert changed[0].line == "Edda will not look at you now."  # she is on the stair with the player
        # The world holds it too: her ordinary replies show the cold tier from the next turn on.
        talk = text_of(await collect(session, "talk to Edda"))
        assert EDDA_COLD in talk and "Mind the rail" not in talk
        # Undo takes the merge back, and her tier with it.
        await collect(session, "undo")
        await collect(session, "undo")
        assert session.attitudes.of(session.graph.nodes["npc-edda-marsh"]).tier == "NEUTRAL"
    finally:
        await session.close()


# ------------------------------------------------------------------ names and IDs left behind by a merge

KEEPER_ID, EDDA_ID, TOBIN_ID = "npc-keeper-marsh", "npc-edda-marsh", "npc-tobin-hale"
LEFT_BEHIND = ("npc_said", "gossip_log", "pending_identities", "scenes")


def leave_traces(path: Path) -> str:
    """What a longer game would hold of the keeper besides his own mind: Tobin told the player the
    keeper's secret, the keeper told Tobin (and Edda) how he stands with the player, Tobin told him back,
    and another question asks whether the keeper is Tobin. Returns the told relation's ID."""
    conn = sqlite3.connect(path)
    try:
        [(edge,)] = conn.execute("SELECT id FROM edges WHERE source = ? AND relation = 'DISTRUSTS'", (KEEPER_ID,))
        conn.executemany("INSERT INTO npc_said (npc, key, turn) VALUES (?, ?, ?)", [
            (TOBIN_ID, "revealed:Keeper Marsh:oilskin", 1), (KEEPER_ID, "revealed:Keeper Marsh:oilskin", 2),
            (TOBIN_ID, "revealed:Edda Marsh:age", 1)])
        conn.executemany("INSERT INTO gossip_log (turn, teller, listener, edge_id, confidence) VALUES (?, ?, ?, ?, ?)",
                         [(1, KEEPER_ID, TOBIN_ID, edge, 0.8), (2, TOBIN_ID, KEEPER_ID, edge, 0.6),
                          (1, KEEPER_ID, EDDA_ID, edge, 0.9)])
        conn.execute("INSERT INTO pending_identities (id, turn, new_id, new_name, candidate_id, candidate_name, "
                     "confidence, evidence) VALUES ('2-9', 2, ?, 'Keeper Marsh', ?, 'Tobin Hale', 0.4, 'a lamp')",
                     (KEEPER_ID, TOBIN_ID))
        conn.commit()
    finally:
        conn.close()
    return str(edge)


def table(path: Path, name: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
    finally:
        conn.close()


async def test_a_merge_leaves_no_name_or_id_of_the_merged_person_behind(tmp_path: Path) -> None:
    session = await start_lined(tmp_path)
    try:
        await collect(session, "look")
        await collect(session, "wait")  # "is Keeper Marsh Edda Marsh?"
    finally:
        await session.close()
    path = tmp_path / "saves" / "game.sqlite"
    edge = leave_traces(path)
    before = {name: table(path, name) for name in LEFT_BEHIND}
    content = tmp_path / "content"
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": content}, env={})
    session = await GameSession.open(settings, save="game", narrator=Witnessed(load_world(content, "tiny")))
    try:
        assert "Edda Marsh it is" in text_of(await collect(session, "yes"))
        said = table(path, "npc_said")
        assert (TOBIN_ID, "revealed:Edda Marsh:oilskin", 1) in said  # what Tobin told is of Edda now
        assert (EDDA_ID, "revealed:Edda Marsh:oilskin", 2) in said  # and the keeper's confession is hers
        assert (TOBIN_ID, "revealed:Edda Marsh:age", 1) in said
        assert not [row for row in said if KEEPER_ID in row or "Keeper Marsh" in str(row[1])]
        gossip = table(path, "gossip_log")
        assert (1, EDDA_ID, TOBIN_ID, edge, 0.8) in gossip and (2, TOBIN_ID, EDDA_ID, edge, 0.6) in gossip
        # What the keeper told Edda herself, before anyone knew they were one, stays as it happened.
        assert [row for row in gossip if KEEPER_ID in row] == [(1, KEEPER_ID, EDDA_ID, edge, 0.9)]
        # Gossip's cooldown sees the pair that talked: Edda and Tobin.
        assert any(set(pair) == {EDDA_ID, TOBIN_ID} for pair in session._pipeline.state.features["gossip"].talked)
        # The player heard of the keeper at turn 1 and has known Edda since the start: one person, known so.
        assert KEEPER_ID not in (session.scene.known or {})
        assert (session.scene.known or {})[EDDA_ID].how == "met"
        # "Is Keeper Marsh Tobin?" is no question once the keeper is Edda: a yes would fold Tobin into Edda.
        [other] = [p for p in await questions_of(session, open_only=False) if p.id == "2-9"]
        assert other.status == "different" and other.resolution == "closed: Keeper Marsh was merged into Edda Marsh at turn 3"
        assert await questions_of(session) == []
        await collect(session, "undo")
        assert {name: table(path, name) for name in LEFT_BEHIND} == before
    finally:
        await session.close()


# ------------------------------------------------ a save from before the mind's tables: first meetings

GREETING = "\"Mind the rail,\" Edda says."


async def test_a_save_from_before_memories_remembers_who_the_player_has_met(tmp_path: Path) -> None:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})
    session = await GameSession.open(settings, save="current", new=True, world="tiny")
    try:
        first = text_of(await collect(session, "talk to Edda"))  # turn 1: the first meeting
        assert GREETING in first
        await collect(session, "wait")
        assert GREETING not in text_of(await collect(session, "talk to Edda"))  # met: not greeted again
        await collect(session, "wait")
    finally:
        await session.close()
    # The same game as a Kith from before NPCs' memories saved it: turns and scenes, no said rows.
    saves = tmp_path / "saves"
    older_save(saves / "current.sqlite", saves / "old.sqlite", migration_of("CREATE TABLE npc_said"))
    session = await GameSession.open(settings, save="old")
    try:
        assert session.memories.has_said("npc-edda-marsh", "met")
        assert session.memories.said_turn("npc-edda-marsh", "met") == 1
        assert not session.memories.has_said("npc-tobin-hale", "met")  # never spoken to
        again = text_of(await collect(session, "talk to Edda"))
        assert GREETING not in again and "Edda" in again
        # She remembers the meeting, as one made then.
        assert [m.text for m in session.memories.of("npc-edda-marsh") if m.turn == 1] == [
            "Met Sam Reed for the first time."]
    finally:
        await session.close()


def test_what_the_player_knew_of_either_is_known_of_the_kept_person() -> None:
    kept = Node(id="npc-maud", name="Maud Pike", type="individual", summary="", first_seen_turn=0, last_seen_turn=0)
    known = {"npc-hood": Awareness(name="the stranger in the hood", how="met", since_turn=2, revealed=["hood:scar"]),
             "npc-maud": Awareness(name="Maud Pike", how="heard", since_turn=5, revealed=["maud:debt"])}
    after = fold_known(known, kept, "npc-hood")
    assert after == {"npc-maud": Awareness(name="Maud Pike", how="met", since_turn=2,
                                           revealed=["maud:debt", "hood:scar"])}
    # Met only as the stranger: known as Maud now, by her name (the story engine knows people by name).
    assert fold_known({"npc-hood": known["npc-hood"]}, kept, "npc-hood") == {
        "npc-maud": Awareness(name="Maud Pike", how="met", since_turn=2, revealed=["hood:scar"])}
    assert fold_known({"npc-maud": known["npc-maud"]}, kept, "npc-hood") is None  # nothing to fold
    assert fold_known(None, kept, "npc-hood") is None


def test_graph_merge_folds_what_the_player_knows_in_the_current_scene(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(played(tmp_path))
    path = tmp_path / "saves" / "game.sqlite"

    def known() -> dict[str, Any]:
        [(state,)] = [row[1:] for row in table(path, "scenes") if row[0] == 2]
        return dict(json.loads(str(state))["known"])

    assert KEEPER_ID in known()
    assert kith(tmp_path, capsys, "merge", "--save", "game", "Edda Marsh", "Keeper Marsh")[0] == 0
    assert KEEPER_ID not in known() and known()[EDDA_ID]["how"] == "met"


# ------------------------------------------------------------------ the tier line is part of the stored turn


def narrations(path: Path) -> dict[int, str]:
    """Each stored turn's narration, by number: what a reloaded game shows of it."""
    conn = sqlite3.connect(path)
    try:
        return {int(number): str(text) for number, text in conn.execute("SELECT number, narration FROM turns")}
    finally:
        conn.close()


async def test_the_tier_line_a_yes_says_is_stored_with_its_turn_and_undone_with_it(tmp_path: Path) -> None:
    session = await start_lined(tmp_path)
    try:
        await collect(session, "look")
        await collect(session, "wait")  # "is Keeper Marsh Edda Marsh?"
        events = await collect(session, "yes")
        [changed] = [e for e in events if isinstance(e, AttitudeChanged)]
        reply = text_of(events)
        assert reply.startswith("Edda Marsh it is") and changed.line == "Edda will not look at you now."
        shown = f"{reply}\n\n{changed.line}"  # what the story pane shows of the turn, in order
        assert session.history[-1].narration == shown  # the game in memory holds what it showed
    finally:
        await session.close()
    path = tmp_path / "saves" / "game.sqlite"
    assert narrations(path)[3] == shown  # the save holds it too
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": tmp_path / "content"}, env={})
    session = await GameSession.open(settings, save="game", narrator=Witnessed(load_world(tmp_path / "content",
                                                                                           "tiny")))
    try:
        assert [(past.number, past.narration) for past in session.history][-1] == (3, shown)  # reloaded
        await collect(session, "undo")  # the line goes back with its turn
        assert session.turn == 2 and all(changed.line not in past.narration for past in session.history)
    finally:
        await session.close()
    assert 3 not in narrations(path) and not any(changed.line in text for text in narrations(path).values())


def test_the_kettle_tier_recording_is_what_its_generator_makes(tmp_path: Path) -> None:
    """identity-kettle-tier.regtest replays a committed recording; its generator still makes the same."""
    assert_generator_remakes("make_kettle_tier_recording.py", "identity-kettle-tier.jsonl", tmp_path)
