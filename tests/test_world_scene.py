"""The scene saved with every turn: typed story state, older saves' ``extra`` dict read into it, and
``game.world`` standing below the narrators and the story engine."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers.play import play_session
from playthrough import Playthrough

from game.config import load_settings
from game.engine.events import NarrationDone
from game.engine.session import GameSession
from game.world import load_world
from game.world.scene import SceneState

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"

# Written by the code before the story state was typed (tiny world, after "take matches", "talk to
# edda", "give coin to edda", "up"), exactly as it was stored in a save's scenes table.
LEGACY_SCENE: dict[str, Any] = json.loads(
    '{"location": "lamp", "cast": ["Edda Marsh", "Tobin Hale"], "inventory": ["matches"], "flags": {}, '
    '"met": ["Edda Marsh"], "visited": ["stair", "lamp"], "ending": null, "verbose": false, '
    '"rng_state": 1668967701, "extra": {"positions": {"Edda Marsh": "lamp", "Tobin Hale": "lamp"}, '
    '"item_places": {}, "held": {"coin": "Edda Marsh"}, "fired": {"keeper-climbs": 4}, "used": [], '
    '"goal": "Someone has to light the lamp before the ships come in.", "partner": "Edda Marsh", '
    '"previous": "stair", "departures": {}, "last_input": "up"}}'
)


def test_a_scene_saved_by_the_untyped_code_loads_typed_and_round_trips() -> None:
    scene = SceneState.model_validate(LEGACY_SCENE)
    story = scene.story
    assert story is not None
    assert story.positions == {"Edda Marsh": "lamp", "Tobin Hale": "lamp"}
    assert story.held == {"coin": "Edda Marsh"} and story.item_places == {}
    assert story.fired == {"keeper-climbs": 4} and story.partner == "Edda Marsh"
    assert story.previous == "stair"
    saved = json.loads(json.dumps(scene.model_dump(mode="json")))
    # ``last_input`` ('again' once read it from here) is no longer state: read, and dropped.
    legacy = {k: v for k, v in LEGACY_SCENE["extra"].items() if k != "last_input"}
    assert "last_input" not in saved["story"]
    assert "extra" not in saved and {k: saved["story"][k] for k in legacy} == legacy, "same keys, same values"
    # Fields added since (the story clock, pronoun referents, news reacted to) start empty: the engine
    # fills them in play.
    added = {k: v for k, v in saved["story"].items() if k not in legacy}
    assert added == {"clock": None, "it": None, "people": [], "news_told": []}
    assert SceneState.model_validate(saved) == scene
    # A save from before the player's knowledge was kept: None, the player knows everyone as they did then.
    assert saved["known"] is None
    assert {k: v for k, v in saved.items() if k not in ("story", "known")} == {
        k: v for k, v in LEGACY_SCENE.items() if k != "extra"}


def test_a_typed_save_that_still_holds_last_input_loads_and_drops_it() -> None:
    """Saves written after the story state was typed and before 'again' moved to the turn pipeline
    carry ``story.last_input``; they load, and save again without it."""
    typed = SceneState.model_validate(LEGACY_SCENE).model_dump(mode="json")
    typed["story"]["last_input"] = "up"
    scene = SceneState.model_validate(typed)
    assert scene.story is not None and scene.story.previous == "stair"
    assert "last_input" not in scene.model_dump(mode="json")["story"]


def test_an_extra_dict_that_never_held_story_state_reads_as_none_and_unknown_keys_are_dropped() -> None:
    assert SceneState.model_validate({"location": "stair", "extra": {}}).story is None
    odd = {**LEGACY_SCENE, "extra": {**LEGACY_SCENE["extra"], "from_a_newer_version": 1}}
    story = SceneState.model_validate(odd).story
    assert story is not None and story.positions["Tobin Hale"] == "lamp"


async def test_play_continues_from_a_legacy_scene_as_the_old_code_told_it() -> None:
    world = load_world(FIXTURES, "tiny")
    game = await Playthrough.start(world)
    game.scene = SceneState.model_validate(LEGACY_SCENE)
    # The old code told exactly this for "down" from this scene (brief description: visited before).
    assert await game.play("down") == (
        "**The Iron Stair**\n\nThe iron stair.\n\nFrom here you can go up to the Lamp Room.")
    assert await game.play("i") == "You are carrying a tin of matches."
    assert await game.play("go back") != "You can't go that way."


async def test_a_save_written_with_the_untyped_scene_resumes_where_it_stopped(tmp_path: Path) -> None:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    await play_session(session, ["take matches", "talk to edda", "up"])
    await session.close()
    with sqlite3.connect(tmp_path / "saves" / "game.sqlite") as conn:
        for turn, state in conn.execute("SELECT turn, state FROM scenes").fetchall():
            scene = json.loads(state)
            scene["extra"] = scene.pop("story")
            conn.execute("UPDATE scenes SET state = ? WHERE turn = ?", (json.dumps(scene), turn))
    conn.close()
    resumed = await GameSession.open(settings, save="game")
    try:
        story = resumed.scene.story
        assert story is not None and story.previous == "stair" and story.clock == 3
        assert "matches" not in story.item_places
        told = [e.text async for e in resumed.play_turn("down") if isinstance(e, NarrationDone)]
        assert told and "matches" not in told[0], "the matches stay taken"
        told = [e.text async for e in resumed.play_turn("inventory") if isinstance(e, NarrationDone)]
        assert told == ["You are carrying a silver coin and a tin of matches."]
    finally:
        await resumed.close()


def test_the_world_package_imports_no_narrator_story_or_engine() -> None:
    """The content format sits below the narrators: importing it must not pull any of them in."""
    code = ("import sys, game.world, game.world.checks, game.world.scene, game.world.ir; "
            "print(sorted(m for m in sys.modules if m.startswith(('game.narrator', 'game.story', 'game.engine'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_world_ir_kinds_and_graph_node_types_map_both_ways() -> None:
    from game.world.ir import GRAPH_KINDS, NODE_KINDS

    assert {kind: node_type for node_type, kind in NODE_KINDS.items()} == GRAPH_KINDS
