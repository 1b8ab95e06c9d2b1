"""A story played elsewhere, brought in as a save (``kith import-story``), read by the fast path.

The text is a plain-text or Markdown story: one turn per paragraph, or, when it has ``>`` command lines
(an interactive-fiction transcript), one turn per command with the paragraphs after it as its
narration. Each turn goes through the ONE turn pipeline (``game.engine.turn``) with a narrator that
only hands back the story's own words and has no World IR, so every turn is read by the fast path
(marked ``fast``), the player's awareness follows what the story names, and each turn is stored like a
played one: undoable, and queued for a model (``kith graph enrich``). Nobody passes word on: an imported story
was read, not lived.

Names: with a world (``--world``), its characters and aliases (the save's gazetteer) are the cast.
Without one the story starts from an empty cast: the default world gives the save its places, the player
is the story's reader (``READER``), nobody else is there, and the story's people are read from the whole text first
(``StoryCast``, which the command line gives: people by how the text treats a name, their shorter names
as aliases, questions of who is who where a name may be someone found before it or the dialogue says two
names are one person). Each turn's relations are read by the fast path with the paragraphs before it as context,
so "I" and "you" in a line of dialogue are its speaker and the one spoken to. The save is built under a
temporary name and appears only once whole, so a bad file or a failure part-way leaves no half-written
save.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from game.config import Settings
from game.engine.events import TurnCommitted, TurnFailed
from game.engine.play_state import PlayState
from game.engine.rebuild import IMPORTED_TURNS_KEY
from game.engine.turn import TurnPipeline
from game.engine.turn_commit import FinishedTurn
from game.errors import InputError, SaveError
from game.graph.fast_extract.marks import fast_from
from game.graph.upsert import UpsertExecution
from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult
from game.registry import default_registry
from game.store import turn_log
from game.store.database import SaveDatabase
from game.world.ir import WorldIR
from game.world.scene import SceneState

if TYPE_CHECKING:
    from game.world import World

StoryCast = Callable[[SaveDatabase, "World", str], Awaitable[tuple[list[str], list[str]]]]
"""Adds a story's people to its new save from the whole text (a feature's, given by ``kith import-story``):
the names added, and the questions of who is who that their names raise."""

MAX_STORY_BYTES = 2_000_000
"""About a long novel's worth of text; more is refused rather than read for minutes into one save."""
MAX_TURNS = 5000
IMPORTED = "imported from a story: no model has read it yet"
"""The reason an imported turn has no World IR (so enrichment asks a model for one)."""
_COMMAND = re.compile(r"^\s*>\s?(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_RULE = re.compile(r"^\s{0,3}(?:[-*_]\s*){3,}$")
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
# Strong, emphasis and code marks. Each kind's text may not hold its own mark: a mark with no partner
# ends the search at the next mark of its kind, not at the end of the paragraph (``"*x " * 30000`` was
# quadratic: 48 s for 90 KB), so a paragraph of any length is read in one pass.
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)((?:(?!\1).)+?)(?<=\S)\1"
                       r"|([*_])(?=\S)((?:(?!\3).)+?)(?<=\S)\3"
                       r"|`(?=\S)([^`]+?)(?<=\S)`")


def _unmarked(text: str) -> str:
    return _EMPHASIS.sub(lambda mark: mark.group(2) or mark.group(4) or mark.group(5) or "", text)


@dataclass(frozen=True)
class StoryTurn:
    """One turn of an imported story: what the player did (a command, or a paragraph's label) and what
    the story says happened."""

    input: str
    narration: str


@dataclass
class Imported:
    """What an import built: the save, its turns, the people the text added, what the fast path kept."""

    save: str
    path: Path
    world: str
    turns: int = 0
    relations: int = 0
    people: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    """The questions of who is who raised (``kith graph pending`` lists them), as the story would ask them."""


def decode_story(data: bytes, label: str) -> str:
    """The story's text, or one clear refusal: binary, not UTF-8, empty, or too big to be a story."""
    if len(data) > MAX_STORY_BYTES:
        raise InputError(f"{label} is {len(data):,} bytes; a story to import may be at most {MAX_STORY_BYTES:,} "
                         "(split it, and import the parts into separate saves)")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{label} is not UTF-8 text (it is UTF-16); save it as UTF-8 and try again")
    if b"\x00" in data:
        raise InputError(f"{label} is a binary file, not a story: give a plain-text or Markdown file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{label} is not UTF-8 text (byte {error.start} cannot be read); save it as UTF-8 "
                         "and try again") from error
    if not text.strip():
        raise InputError(f"{label} is empty: there is no story to import")
    return text


def split_story(text: str) -> list[StoryTurn]:
    """The story's turns: one per ``>`` command (with the paragraphs after it), else one per paragraph.

    Markdown's headings, rules and code fences are structure, not story, and are dropped; emphasis marks
    are taken off. Text before the first command is the opening, told as a turn of its own.
    """
    paragraphs: list[tuple[str | None, str]] = []  # (command, text); a command line has no text
    current: list[str] = []
    fenced = False

    def flush() -> None:
        if current:
            paragraphs.append((None, _unmarked(" ".join(current))))
            current.clear()

    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if _FENCE.match(line):
            flush()
            fenced = not fenced
            continue
        typed = _COMMAND.match(line)
        if fenced or _HEADING.match(line) or _RULE.match(line) or not line.strip():
            flush()
        elif typed:
            flush()
            paragraphs.append((typed.group(1).strip(), ""))
        else:
            current.append(line.strip())
    flush()
    commands = [p for p in paragraphs if p[0] is not None and p[0]]
    if not commands:
        return [StoryTurn(f"(story, paragraph {n})", body) for n, (_, body) in enumerate(paragraphs, 1)]
    turns: list[StoryTurn] = []
    command: str | None = None
    told: list[str] = []
    for said, body in paragraphs:
        if said is None:
            told.append(body)
            continue
        if command is not None or told:
            turns.append(StoryTurn(command or "(story, opening)", "\n\n".join(told)))
        command, told = said or "(story)", []
    turns.append(StoryTurn(command or "(story)", "\n\n".join(told)))
    return [t for t in turns if t.narration.strip() or t.input]


class StoryNarrator:
    """Tells each turn with the story's own words and no World IR: the fast path reads every turn."""

    def __init__(self) -> None:
        self.narration = ""

    @property
    def label(self) -> str:
        return "imported story"

    def opening(self, scene: SceneState) -> str:
        return ""

    async def narrate(self, request: NarrationRequest) -> AsyncIterator[str]:
        yield self.narration

    async def finish(self, request: NarrationRequest, narration: str) -> NarrationResult:
        # Nobody is on stage: the story was read, so only the player (the reader) sees what it states.
        return NarrationResult(WorldIR(), request.scene.model_copy(update={"cast": []}), ir_error=IMPORTED)

    async def extract(self, request: NarrationRequest, result: NarrationResult,
                      execution: UpsertExecution) -> ExtractionReport:
        return ExtractionReport(False, message=IMPORTED)  # never reached: there is no World IR

    async def aclose(self) -> None:
        return None


class _Store:
    """Each imported turn committed as a played one (its own transaction, journaled for undo)."""

    folds_people = False

    def __init__(self, db: SaveDatabase) -> None:
        self.db = db

    async def commit(self, turn: FinishedTurn) -> None:
        await self.db.commit_turn(turn.record, turn.writes, turn.result.scene.model_dump(mode="json"), turn.told,
                                  turn.rows)


READER = "Reader"
"""Who the player is in a story imported without a world: the one reading it. The default world's hero
(Brinefall's Wren Tallis) has no place beside Sherlock Holmes, and a story's own "I" is one of its people."""


def story_world(world: World) -> World:
    """``world`` with nobody in it but a player who reads the story: its places stay (a save needs
    somewhere to be); its player, characters, their relations and their things do not."""
    from game.world.schema import PlayerDef

    reader = PlayerDef(name=READER, summary="You: the one reading this story, which came with no world of its own.")
    items = {key: item for key, item in world.items.items() if item.location is None or item.location in world.places}
    return dataclasses.replace(world, player=reader, characters=[], relationships=[], items=items, _by_name={})


async def import_story(settings: Settings, path: Path, world: World, turns: list[StoryTurn], *,
                       cast: StoryCast | None = None) -> Imported:
    """Build the save at ``path`` from ``turns`` in ``world``; it appears only once whole. ``cast``: the
    story has no world of its own, and its people are read from its text."""
    from game.engine.opening import seed_world

    if len(turns) > MAX_TURNS:
        raise InputError(f"the story has {len(turns)} turns; an import may hold at most {MAX_TURNS}")
    if path.exists() or path.is_symlink():
        raise SaveError(f"a save named {path.stem!r} already exists; import into a new name")
    imported = Imported(path.stem, path, world.id)

    if cast is not None:
        world = story_world(world)  # a story nobody here wrote: its reader, and nobody of the world

    async def fill(db: SaveDatabase) -> None:
        await seed_world(db, world)
        if cast is not None:
            imported.people, imported.questions = await cast(db, world, "\n\n".join(
                t.narration for t in turns))
        graph = await db.load_graph_index()
        raw = await turn_log.scene_at(db, 0)
        scene = SceneState.model_validate(raw) if raw is not None else world.initial_scene()
        narrator = StoryNarrator()
        pipeline = TurnPipeline(PlayState.at(graph, scene.model_copy(update={"cast": []}), 0, [], False), narrator,
                                world.vocabulary, _Store(db), seed=settings.seed,
                                tunings=default_registry().tunings(settings, imported=True))
        for turn in turns:
            narrator.narration = turn.narration
            async for event in pipeline.tell(turn.input):
                if isinstance(event, TurnFailed):
                    raise SaveError(f"turn {pipeline.state.turn + 1} of the story could not be stored: {event.message}")
                if isinstance(event, TurnCommitted):
                    imported.turns = event.turn
        imported.relations = sum(1 for e in pipeline.state.graph.open_edges.values() if fast_from(e) is not None)
        await db.set_meta({IMPORTED_TURNS_KEY: str(imported.turns)})

    db = await SaveDatabase.open(path, schema=default_registry().schema(), create=True, world_id=world.id, seed=fill)
    await db.close()
    return imported
