"""Opening a game: which save and world, turn 0 of a new one, and the state a turn starts from.

``GameSession.open`` is these steps in order; they are functions of their own so the command line (which
opens saves without a session) and the importer (which seeds a world into a save it builds) share them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from game.config import Settings, world_dir_of
from game.engine.feature_steps import load_states, owned_tables
from game.engine.play_state import HISTORY_TURNS, PlayState
from game.errors import KithError, SaveError
from game.graph.index import GraphIndex, GraphSource
from game.graph.metapaths import MetaPath, patterns_to_json
from game.graph.upsert import UpsertExecution
from game.narrator.base import Narrator, PastTurn
from game.registry import Registry, default_registry
from game.store import metapath_patterns, turn_log
from game.store.damage import READ_ERRORS, damaged
from game.store.database import SaveDatabase
from game.store.saves import list_saves, resolve_save, validate_save_name
from game.store.schema import Schema
from game.world import World
from game.world.scene import SceneState


def choose_world_id(settings: Settings, requested: str | None) -> str:
    """The world a new game starts in: asked for, configured, ``brinefall``, or the only one there is."""
    from game.world import list_worlds

    if requested or settings.world:
        return str(requested or settings.world)
    worlds = [w.id for w in list_worlds(settings.content_dir)]
    if not worlds:
        raise KithError(f"no worlds found in {settings.content_dir}", title="World")
    return "brinefall" if "brinefall" in worlds else sorted(worlds)[0]


def generated_save_name(world_id: str) -> str:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"{world_id}-{stamp}"[:64]


def _vocabulary_json(world: World) -> str:
    return json.dumps([spec.model_dump(mode="json") for spec in world.vocabulary.relations.values()])


async def read_play_state(db: SaveDatabase, world: World, settings: Settings, verbose: bool, *,
                          lazy: bool = True, source: GraphSource | None = None,
                          registry: Registry | None = None) -> PlayState:
    """Everything the next turn starts from, as ``db`` holds it: the graph, the scene, recent history,
    each feature's state (attitudes, memories, open questions and the player's notes among them).
    The one reading for opening a game, undo, restore and retry alike."""
    graph = await db.load_graph_index(lazy=lazy, source=source)
    turn = await db.current_turn()
    raw = await turn_log.scene_at(db, turn)
    scene = SceneState.model_validate(raw) if raw is not None else world.initial_scene()
    history = [PastTurn(t.number, t.input, t.narration) for t in await turn_log.turns(db, last=HISTORY_TURNS)]
    state = PlayState.at(graph, scene, turn, history, verbose)
    state.features = load_states({table: await db.read_rows(table) for table in owned_tables(registry)}, registry)
    return state


def choose_path(settings: Settings, save: str | Path | None, new: bool, world: str | None, schema: Schema) -> Path:
    """The save file to open: a path as given, a player's save name, the last game played (one ``schema``
    reads), or a new name."""
    if isinstance(save, Path):
        return save
    if save:
        # A player names a save with a plain word; only code (scripts, tests) passes a Path.
        return resolve_save(validate_save_name(save), settings.saves_dir)
    if not new:
        for info in list_saves(settings.saves_dir, schema):
            # Saves made by `kith graph` hold a graph but no game (no world): they are not resumed.
            if info.error is None and info.world and (world is None or info.world == world):
                return info.path
    name = generated_save_name(choose_world_id(settings, world))
    return resolve_save(name, settings.saves_dir)


async def seed_world(db: SaveDatabase, world: World) -> None:
    """Turn 0: the world's characters, factions and initial relationships, and its first scene."""
    index = GraphIndex()
    execution = UpsertExecution(index, world.vocabulary, 0, rng=random.Random(0))
    for call in world.initial_graph_calls():
        outcome = await execution.run(call)
        if outcome.error:
            raise KithError(f"world {world.id}: its initial graph was refused: {outcome.error}", title="World")
    from game.world import awareness

    seeded = GraphIndex()
    seeded.apply(execution.writes)
    scene = world.initial_scene()
    scene = scene.model_copy(update={"known": await awareness.at_start(world, seeded, scene.cast)})
    await db.start_game(scene.model_dump(mode="json"), execution.writes, {
        "world": world.id, "title": world.title, "vocabulary": _vocabulary_json(world),
        "metapaths": patterns_to_json(world.metapaths),
    })


async def store_vocabulary(db: SaveDatabase, world: World) -> None:
    """Keep the save's copy of the vocabulary and meta-paths (which `kith graph` reads) in step with the
    world's, so the game and the command line normalize relations and rank facts alike after a content edit."""
    current = {"vocabulary": _vocabulary_json(world), "metapaths": patterns_to_json(world.metapaths)}
    meta = await db.meta()
    if any(meta.get(key) != value for key, value in current.items()):
        await db.set_meta(current)


@dataclass
class OpenedGame:
    """What a session is made of, once its save is open and read."""

    db: SaveDatabase
    world: World
    narrator: Narrator
    state: PlayState
    new_game: bool
    discovered: tuple[MetaPath, ...]


async def open_game(settings: Settings, save: str | Path | None, *, new: bool, world: str | None,
                    narrator: Narrator | None, env: Mapping[str, str] | None,
                    world_loaded: World | None = None, registry: Registry | None = None) -> OpenedGame:
    """Open (or create) the save and read the game in it; on any failure the save is closed, and a save
    being created is removed, so nothing half-made is left under a player's name.

    ``world_loaded``: the world of a new game, already loaded (it never changes once loaded): ``kith
    explore`` opens hundreds of games of one world, and need not parse its files for each."""
    schema = (registry or default_registry()).schema()
    path = choose_path(settings, save, new, world, schema)
    creating = not path.exists()
    if new and not creating:
        raise SaveError(f"a save named {path.stem!r} already exists; load it, or choose another name")
    loaded: World | None = None
    if creating:
        from game.world import load_world

        world_id = choose_world_id(settings, world)
        loaded = world_loaded if world_loaded is not None and world_loaded.id == world_id else \
            load_world(world_dir_of(settings, world_id), world_id)
        first = loaded  # the whole of turn 0 is written before the save gets its name

        async def seed(db: SaveDatabase) -> None:
            await seed_world(db, first)

        db = await SaveDatabase.open(path, schema=schema, create=True, world_id=loaded.id, seed=seed, exclusive=True)
    else:
        db = await SaveDatabase.open(path, schema=schema, exclusive=True)
    try:
        try:
            return await _read_game(settings, db, creating, narrator, loaded, env, registry)
        except READ_ERRORS as error:  # a stored scene or row that no longer validates, a table gone
            raise damaged(db.name, error) from error
    except BaseException:
        await db.close()
        if creating:
            for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                part.unlink(missing_ok=True)
        raise


async def _read_game(settings: Settings, db: SaveDatabase, creating: bool, narrator: Narrator | None,
                     world: World | None, env: Mapping[str, str] | None, registry: Registry | None) -> OpenedGame:
    from game.world import load_world

    world_id = await db.world_id()
    if not world_id:
        raise SaveError(f"{db.name} holds a graph but no game (it has no world); play it with a new save")
    if world is None:
        world = load_world(world_dir_of(settings, world_id), world_id)
    if not creating:
        await store_vocabulary(db, world)
    state = await read_play_state(db, world, settings, (await db.meta()).get("verbose") == "1", registry=registry)
    if narrator is None:
        from game.narrator.factory import make_narrator

        narrator = make_narrator(settings, world, env=env)
    discovered = await metapath_patterns.discovered(db) if settings.retrieval.discovered_patterns else ()
    return OpenedGame(db, world, narrator, state, creating, tuple(discovered))
