"""``GameSession``: one open game. It runs turns and meta commands and emits events; it draws nothing.

A turn is retrieve -> narrate -> World IR -> extract -> commit. The commit writes the turn row, the
graph writes and the scene in ONE transaction; until then nothing of the turn exists anywhere but in
local variables, so a failure or a cancellation at any step leaves the save exactly as it was.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import deque
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.config import Settings
from game.engine import meta_commands
from game.engine.changes import summarize_writes
from game.engine.events import (
    Event,
    GameEnded,
    GraphChanged,
    MemoryUpdating,
    MetaOutput,
    NarrationDelta,
    NarrationDone,
    Notice,
    TurnCommitted,
    TurnFailed,
)
from game.engine.meta import parse_meta
from game.errors import KithError, NarratorError, SaveError
from game.graph.memory import GraphIndex
from game.graph.ports import GraphWrites
from game.graph.retrieve import Retrieval, RetrievalSettings, retrieve
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.narrator.base import NarrationRequest, Narrator, PastTurn, SceneState
from game.store.damage import DECODE_ERRORS, damaged
from game.store.database import SaveDatabase, TurnRecord
from game.store.saves import list_saves, resolve_save, validate_save_name

if TYPE_CHECKING:
    from game.world import World

HISTORY_TURNS = 24


def retrieval_settings(settings: Settings) -> RetrievalSettings:
    r = settings.retrieval
    return RetrievalSettings(max_hops=r.max_hops, hub_threshold=r.hub_threshold, max_fanout=r.max_fanout,
                             limit=r.limit)


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


def _not_saved(message: str) -> str:
    sentence = message.strip()
    if sentence and sentence[-1] not in ".!?":
        sentence += "."
    return f"{sentence[:1].upper()}{sentence[1:]} Nothing of this turn was saved; you can try again."


class GameSession:
    """An open save with its world, narrator, in-memory graph and scene."""

    def __init__(self, settings: Settings, db: SaveDatabase, world: World, narrator: Narrator,
                 graph: GraphIndex, vocabulary: Vocabulary, scene: SceneState, turn: int,
                 history: list[PastTurn], new_game: bool) -> None:
        self.settings = settings
        self.db = db
        self.world = world
        self.narrator = narrator
        self.graph = graph
        self.vocabulary = vocabulary
        self.scene = scene
        self.turn = turn
        self.history: deque[PastTurn] = deque(history, maxlen=HISTORY_TURNS)
        self.new_game = new_game
        self.transcript_path: Path | None = None
        self.verbose = scene.verbose
        self.last_retrieval: Retrieval | None = None
        self._last_input: str | None = history[-1].player_input if history else None
        self.retrieval_settings = retrieval_settings(settings)

    # ------------------------------------------------------------------------------------- opening

    @classmethod
    async def open(cls, settings: Settings, save: str | Path | None = None, *, new: bool = False,
                   world: str | None = None, narrator: Narrator | None = None) -> GameSession:
        """Open ``save`` (a name or a path), creating it when missing or when ``new``.

        With no save: resume the most recently played one, or start a new game with a generated name.
        """
        path = cls._choose_path(settings, save, new, world)
        creating = not path.exists()
        if new and not creating:
            raise SaveError(f"a save named {path.stem!r} already exists; load it, or choose another name")
        loaded: World | None = None
        if creating:
            from game.world import load_world

            loaded = load_world(settings.content_dir, choose_world_id(settings, world))
            seed_world = loaded  # the whole of turn 0 is written before the save gets its name

            async def seed(db: SaveDatabase) -> None:
                await cls._seed_world(db, seed_world)

            db = await SaveDatabase.open(path, create=True, world_id=loaded.id, seed=seed, exclusive=True)
        else:
            db = await SaveDatabase.open(path, exclusive=True)
        try:
            try:
                return await cls._start(settings, db, creating, narrator, loaded)
            except DECODE_ERRORS as error:  # a stored scene or row that no longer validates
                raise damaged(db.name, error) from error
        except BaseException:
            await db.close()
            if creating:
                for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                    part.unlink(missing_ok=True)
            raise

    @staticmethod
    def _choose_path(settings: Settings, save: str | Path | None, new: bool, world: str | None) -> Path:
        if isinstance(save, Path):
            return save
        if save:
            # A player names a save with a plain word; only code (scripts, tests) passes a Path.
            return resolve_save(validate_save_name(save), settings.saves_dir)
        if not new:
            for info in list_saves(settings.saves_dir):
                # Saves made by `kith graph` hold a graph but no game (no world): they are not resumed.
                if info.error is None and info.world and (world is None or info.world == world):
                    return info.path
        name = generated_save_name(choose_world_id(settings, world))
        return resolve_save(name, settings.saves_dir)

    @classmethod
    async def _start(cls, settings: Settings, db: SaveDatabase, creating: bool,
                     narrator: Narrator | None, world: World | None = None) -> GameSession:
        from game.world import load_world

        world_id = await db.world_id()
        if not world_id:
            raise SaveError(f"{db.name} holds a graph but no game (it has no world); play it with a new save")
        if world is None:
            world = load_world(settings.content_dir, world_id)
        if not creating:
            await cls._store_vocabulary(db, world)
        graph = await db.load_graph_index()
        turn = await db.current_turn()
        raw_scene = await db.scene_at(turn)
        scene = SceneState.model_validate(raw_scene) if raw_scene is not None else world.initial_scene()
        verbose = (await db.meta()).get("verbose") == "1"
        scene = scene.model_copy(update={"verbose": verbose})
        history = [PastTurn(t.number, t.input, t.narration) for t in await db.turns(last=HISTORY_TURNS)]
        if narrator is None:
            from game.narrator.factory import make_narrator

            narrator = make_narrator(settings, world)
        return cls(settings, db, world, narrator, graph, world.vocabulary, scene, turn, history, creating)

    @staticmethod
    async def _seed_world(db: SaveDatabase, world: World) -> None:
        """Turn 0: the world's characters, factions and initial relationships, and its first scene."""
        index = GraphIndex()
        execution = UpsertExecution(index, world.vocabulary, 0, rng=random.Random(0))
        for call in world.initial_graph_calls():
            outcome = await execution.run(call)
            if outcome.error:
                raise KithError(f"world {world.id}: its initial graph was refused: {outcome.error}", title="World")
        scene = world.initial_scene()
        await db.start_game(scene.model_dump(mode="json"), execution.writes, {
            "world": world.id, "title": world.title, "vocabulary": _vocabulary_json(world),
        })

    @staticmethod
    async def _store_vocabulary(db: SaveDatabase, world: World) -> None:
        """Keep the save's copy of the vocabulary (which `kith graph` reads) in step with the world's,
        so the game and the command line normalize relations alike after a content edit."""
        current = _vocabulary_json(world)
        if (await db.meta()).get("vocabulary") != current:
            await db.set_meta({"vocabulary": current})

    async def close(self) -> None:
        try:
            await self.narrator.aclose()
        finally:
            await self.db.close()

    async def __aenter__(self) -> GameSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def save_name(self) -> str:
        return self.db.name

    @property
    def save_path(self) -> Path:
        return self.db.path

    @property
    def narrator_label(self) -> str:
        return self.narrator.label

    def opening_text(self) -> str:
        """A new game's opening, or a resumed game's last moment."""
        if self.turn == 0:
            return self.narrator.opening(self.scene)
        last = self.history[-1].narration if self.history else ""
        return f"*{self.world.title} — resumed at turn {self.turn}.*\n\n{last}".strip()

    # ------------------------------------------------------------------------------------- turns

    async def play_turn(self, text: str) -> AsyncIterator[Event]:
        """Handle one line of player input, yielding events; a story turn commits at most once."""
        text = text.strip()
        if not text:
            yield MetaOutput("You wait for yourself to decide. (Type `help` for what you can do.)", "empty")
            return
        command = parse_meta(text)
        self._write_transcript(f"> {text}\n")
        if command is not None:
            async for event in meta_commands.run(self, command):
                self._log_transcript(event)
                yield event
            return
        if text.lower() in {"again", "g"}:
            if self._last_input is None:
                yield MetaOutput("There is nothing to do again yet.", "again")  # before any turn
                return
            text = self._last_input
        if self.scene.ending:
            yield MetaOutput(
                "The story has reached its end. Type `undo` to step back, `restart` to begin again, "
                "or `restore` to return to a snapshot.", "ended")
            return
        async for event in self._story_turn(text):
            self._log_transcript(event)
            yield event

    async def _story_turn(self, text: str) -> AsyncIterator[Event]:
        turn = self.turn + 1
        timings: dict[str, float] = {}
        clock = time.perf_counter()
        started = clock

        def lap(name: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            timings[name] = round((now - clock) * 1000, 3)
            clock = now

        try:
            retrieval = await retrieve(self.graph, text, self.scene.cast, self.retrieval_settings)
            self.last_retrieval = retrieval
            lap("retrieve_ms")
            scene = self.scene.model_copy(update={"verbose": self.verbose})
            request = NarrationRequest(
                turn=turn, player_input=text, npc_context=retrieval.npc_context, scene=scene,
                graph=self.graph, history=tuple(self.history), seed=self.settings.seed + turn,
            )
            parts: list[str] = []
            async for delta in self.narrator.narrate(request):
                if delta:
                    parts.append(delta)
                    yield NarrationDelta(delta)
            narration = "".join(parts)
            lap("narrate_ms")
            yield NarrationDone(narration)
            result = await self.narrator.finish(request, narration)
            lap("world_ir_ms")
            yield MemoryUpdating(turn)
            execution = UpsertExecution(self.graph, self.vocabulary, turn,
                                        rng=random.Random(f"{self.settings.seed}:{turn}"))
            report = await self.narrator.extract(request, result, execution)
            writes = execution.writes if report.extracted else GraphWrites()
            lap("extract_ms")
            timings["engine_ms"] = round((time.perf_counter() - started) * 1000, 3)
            record = TurnRecord(
                number=turn, input=text, narration=narration, npc_context=retrieval.npc_context,
                world_ir=None if result.ir_error else result.world_ir.to_json_dict(), timings=timings,
                extracted=report.extracted,
            )
            await self._commit(record, writes, result.scene)
            lap("commit_ms")
        except KithError as error:
            yield TurnFailed(_not_saved(error.message), error.title)
            return
        except (OSError, ValueError) as error:
            failure = NarratorError(f"the turn could not be completed ({type(error).__name__}: {error})")
            yield TurnFailed(_not_saved(failure.message), failure.title)
            return
        changes = summarize_writes(writes, self.graph.nodes, turn)
        if changes:
            yield GraphChanged(turn, changes)
        yield TurnCommitted(turn, report.extracted, timings)
        for notice in result.notices:
            yield Notice(notice)
        if not report.extracted:
            yield Notice(f"The story went on, but memory was not updated this turn: {report.message}", "warning")
        if result.scene.ending:
            yield GameEnded(result.scene.ending, self._ending_title(result.scene.ending))

    async def _commit(self, record: TurnRecord, writes: GraphWrites, scene: SceneState) -> None:
        """Commit, shielded: once the transaction starts it finishes, and memory follows the disk."""
        task = asyncio.ensure_future(self.db.commit_turn(record, writes, scene.model_dump(mode="json")))
        cancelled = False
        while not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                cancelled = True  # however often Esc is pressed, the commit finishes first
        task.result()  # a failed commit raises here, and nothing was written
        self._after_commit(record, writes, scene)
        if cancelled:
            raise asyncio.CancelledError

    def _after_commit(self, record: TurnRecord, writes: GraphWrites, scene: SceneState) -> None:
        self.graph.apply(writes)
        self.scene = scene
        self.turn = record.number
        self.history.append(PastTurn(record.number, record.input, record.narration))
        self._last_input = record.input

    def _ending_title(self, ending: str) -> str:
        titles: Any = getattr(self.world, "ending_titles", None)
        if isinstance(titles, dict) and ending in titles:
            return str(titles[ending])
        return ending.replace("-", " ").replace("_", " ").title()

    async def reextract_pending(self) -> list[str]:
        """Run the memory update again for turns committed without one; returns a line per turn.

        Each is extracted from its stored World IR at the current turn (relations it opens are new versions
        now), and all that succeed commit together with their turns marked extracted.
        """
        from game.narrator.base import NarrationResult
        from game.narrator.world_ir import WorldIR

        pending = await self.db.pending_extraction()
        if not pending:
            return []
        execution = UpsertExecution(self.graph, self.vocabulary, self.turn,
                                    rng=random.Random(f"{self.settings.seed}:rebuild:{self.turn}"))
        lines: list[str] = []
        done: list[int] = []
        for record in pending:
            request = NarrationRequest(turn=self.turn, player_input=record.input, npc_context=record.npc_context,
                                       scene=self.scene, graph=self.graph, history=tuple(self.history),
                                       seed=self.settings.seed + record.number)
            if record.world_ir is None:
                # The World IR step failed that turn: ask for it again from the stored narration.
                result = await self.narrator.finish(request, record.narration)
                if result.ir_error:
                    lines.append(f"turn {record.number}: still no World IR: {result.ir_error}")
                    continue
            else:
                result = NarrationResult(WorldIR.model_validate(record.world_ir), self.scene)
            saved = execution.writes.copy()
            report = await self.narrator.extract(request, result, execution)
            if report.extracted:
                done.append(record.number)
                lines.append(f"turn {record.number}: extracted ({report.calls} calls)")
            else:
                execution.writes = saved
                lines.append(f"turn {record.number}: still not extracted: {report.message}")
        if done:
            await self.db.commit_reextraction(execution.writes, self.turn, done)
            self.graph.apply(execution.writes)
        return lines

    # ------------------------------------------------------------------------------------- state changes

    async def reload(self) -> None:
        """Re-read graph, scene and history from disk (after undo, restore or restart)."""
        self.graph = await self.db.load_graph_index()
        self.turn = await self.db.current_turn()
        raw = await self.db.scene_at(self.turn)
        self.scene = SceneState.model_validate(raw) if raw else self.world.initial_scene()
        self.scene = self.scene.model_copy(update={"verbose": self.verbose})
        self.history = deque(
            (PastTurn(t.number, t.input, t.narration) for t in await self.db.turns(last=HISTORY_TURNS)),
            maxlen=HISTORY_TURNS,
        )
        self._last_input = self.history[-1].player_input if self.history else None

    def snapshot_path(self, name: str) -> Path:
        return resolve_save(validate_save_name(name), self.settings.saves_dir)

    # ------------------------------------------------------------------------------------- transcript

    def _log_transcript(self, event: Event) -> None:
        if isinstance(event, NarrationDone | MetaOutput | Notice):
            self._write_transcript(f"{event.text}\n\n")
        elif isinstance(event, TurnFailed):
            self._write_transcript(f"{event.message}\n\n")

    def _write_transcript(self, text: str) -> None:
        if self.transcript_path is None:
            return
        with self.transcript_path.open("a", encoding="utf-8") as handle:
            handle.write(text)
