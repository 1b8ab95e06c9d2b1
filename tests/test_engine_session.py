"""The turn loop: one transaction per turn, nothing written on failure or cancellation, exact undo."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from helpers.narrators import FAILING_STEPS, BrokenNarrator, Step
from helpers.play import collect, text_of
from helpers.saves import SCHEMA
from playthrough import Playthrough

from game.config import Settings, load_settings
from game.engine.events import (
    GraphChanged,
    GraphUpdating,
    MetaOutput,
    NarrationDelta,
    NarrationDone,
    Notice,
    QuitRequested,
    SessionReset,
    TurnCommitted,
    TurnFailed,
)
from game.engine.meta import parse_meta
from game.engine.session import GameSession
from game.errors import SaveError
from game.narrator.base import NarrationRequest
from game.narrator.offline import OfflineNarrator
from game.store import turn_log
from game.store.database import SaveDatabase
from game.world import load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


def make_settings(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})


async def disk_state(session: GameSession) -> tuple[Any, ...]:
    """What the save file holds, read through the session's own connection (so uncommitted work shows).
    The stored scene has no public reader: it alone is read from the private handle."""
    turns = await session.turns()
    turn = turns[-1].number if turns else 0
    return ([n.to_json_dict() for n in await session.all_nodes()],
            [e.to_json_dict() for e in await session.all_edges()],
            [(t.number, t.input, t.narration) for t in turns], turn, await turn_log.scene_at(session._db, turn))


def memory_state(session: GameSession) -> tuple[Any, ...]:
    return (sorted(n.id for n in session.graph.nodes.values()), sorted(session.graph.open_edges),
            session.turn, session.scene.model_dump())


def trust(session: GameSession) -> list[float]:
    """Edda's open trust of Sam, or distrust (a negative strength: the two cannot both be open)."""
    return [e.strength for e in session.graph.open_edges.values()
            if e.relation in {"TRUSTS", "DISTRUSTS"} and e.source == "npc-edda-marsh"]


@pytest.fixture
async def session(tmp_path: Path) -> AsyncIterator[GameSession]:
    opened = await GameSession.open(make_settings(tmp_path), save="game", new=True, world="tiny")
    yield opened
    await opened.close()


async def test_a_turn_streams_then_commits_turn_graph_and_scene_together(session: GameSession) -> None:
    events = await collect(session, "help Edda")
    kinds = [type(e) for e in events]
    assert kinds.index(NarrationDelta) < kinds.index(NarrationDone) < kinds.index(GraphUpdating)
    assert kinds.index(GraphUpdating) < kinds.index(GraphChanged) < kinds.index(TurnCommitted)
    committed = next(e for e in events if isinstance(e, TurnCommitted))
    assert committed.turn == 1 and committed.extracted
    assert {"retrieve_ms", "narrate_ms", "extract_ms", "commit_ms"} <= set(committed.timings)
    changed = next(e for e in events if isinstance(e, GraphChanged))
    assert any("Edda Marsh → Sam Reed TRUSTS" in c.text for c in changed.changes)
    turns = await session.turns()
    assert [(t.number, t.input) for t in turns] == [(1, "help Edda")]
    assert turns[0].narration == next(e for e in events if isinstance(e, NarrationDone)).text
    assert turns[0].world_ir is not None and "Edda Marsh" in turns[0].world_ir["charactersPresent"]
    assert trust(session) == [0.6]


async def test_a_contradicting_relation_closes_the_old_one_and_retrieval_sees_only_the_new(
        session: GameSession) -> None:
    await collect(session, "help Edda")
    events = await collect(session, "threaten Edda")
    changed = next(e for e in events if isinstance(e, GraphChanged))
    assert any("DISTRUSTS" in c.text for c in changed.changes)
    versions = [(e.relation, e.strength, e.valid_at, e.invalid_at) for e in await session.all_edges()
                if e.relation in {"TRUSTS", "DISTRUSTS"}]
    assert versions == [("TRUSTS", 0.6, 1, 2), ("DISTRUSTS", -0.5, 2, None)]
    events = await collect(session, "ask Edda about the lamp")
    turn = (await session.turns())[-1]
    assert "stopped trusting Sam Reed" in turn.npc_context
    assert "since Sam steadied her wick" not in turn.npc_context


@pytest.mark.parametrize("step", FAILING_STEPS)
async def test_a_failure_at_any_step_writes_nothing(tmp_path: Path, step: Step) -> None:
    settings = make_settings(tmp_path)
    narrator = BrokenNarrator(load_world(FIXTURES, "tiny"), step)
    session = await GameSession.open(settings, save="game", new=True, world="tiny", narrator=narrator)
    try:
        before_disk, before_memory = await disk_state(session), memory_state(session)
        events = await collect(session, "help Edda")
        failed = [e for e in events if isinstance(e, TurnFailed)]
        assert len(failed) == 1 and "Nothing of this turn was saved" in failed[0].message
        assert not any(isinstance(e, TurnCommitted) for e in events)
        assert await disk_state(session) == before_disk
        assert memory_state(session) == before_memory
        narrator.step = None
        events = await collect(session, "help Edda")
        assert any(isinstance(e, TurnCommitted) for e in events), "the player can simply try again"
    finally:
        await session.close()


async def test_memory_update_shows_from_the_end_of_narration_through_the_world_ir(tmp_path: Path) -> None:
    narrator = BrokenNarrator(load_world(FIXTURES, "tiny"), "finish")
    session = await GameSession.open(make_settings(tmp_path), save="game", new=True, world="tiny",
                                     narrator=narrator)
    try:
        kinds = [type(e) for e in await collect(session, "help Edda")]
    finally:
        await session.close()
    # The World IR step failed, yet the status had already said the graph was being updated.
    assert kinds.index(NarrationDone) < kinds.index(GraphUpdating) < kinds.index(TurnFailed)


async def test_cancelling_a_turn_writes_nothing(session: GameSession) -> None:
    before_disk, before_memory = await disk_state(session), memory_state(session)
    reached = asyncio.Event()

    async def consume() -> None:
        async for event in session.play_turn("help Edda"):
            if isinstance(event, GraphUpdating):
                reached.set()
                await asyncio.sleep(10)  # the player presses Esc while the graph updates

    task = asyncio.create_task(consume())
    await asyncio.wait_for(reached.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await disk_state(session) == before_disk
    assert memory_state(session) == before_memory


async def test_extraction_that_fails_commits_the_story_marked_and_can_be_recovered(tmp_path: Path) -> None:
    narrator = BrokenNarrator(load_world(FIXTURES, "tiny"), "memory")
    session = await GameSession.open(make_settings(tmp_path), save="game", new=True, world="tiny",
                                     narrator=narrator)
    try:
        events = await collect(session, "help Edda")
        committed = next(e for e in events if isinstance(e, TurnCommitted))
        assert not committed.extracted
        assert any(isinstance(e, Notice) and "the graph was not updated" in e.text for e in events)
        assert trust(session) == [] and [t.extracted for t in await session.turns()] == [False]
        narrator.step = None
        lines = await session.reextract_pending()
        assert lines == ["turn 1: extracted (2 calls)"], "as many calls as the turn played whole"
        assert trust(session) == [0.6]
        assert await session.pending_extraction() == []
    finally:
        await session.close()


async def test_undo_returns_narration_scene_and_graph_exactly_as_often_as_there_are_turns(session: GameSession) -> None:
    states = [(await disk_state(session), memory_state(session))]
    for command in ["help Edda", "ask Edda about the lamp", "threaten Edda", "up"]:
        await collect(session, command)
        states.append((await disk_state(session), memory_state(session)))
    for expected in reversed(states[:-1]):
        events = await collect(session, "undo")
        assert any(isinstance(e, SessionReset) for e in events)
        assert (await disk_state(session), memory_state(session)) == expected
    assert "nothing to undo" in text_of(await collect(session, "undo"))


async def test_a_game_on_disk_and_a_game_in_memory_tell_the_same_story(session: GameSession) -> None:
    """One turn pipeline: the session and the tests' in-memory playthrough differ only in where turns go."""
    commands = ["", "again", "help Edda", "g", "ask Edda about the lamp", "threaten Edda", "up", "again"]
    memory = await Playthrough.start(load_world(FIXTURES, "tiny"), seed=session.settings.seed)
    for command in commands:
        told = await memory.play(command)
        assert told == text_of([e for e in await collect(session, command)
                                if isinstance(e, NarrationDone | MetaOutput)]), command
    assert [t.player_input for t in memory.turns] == [t.input for t in await session.turns()]
    assert memory.scene == session.scene and memory.turn == session.turn == 6

    def relations(graph: Any) -> set[tuple[str, str, str, float]]:
        return {(e.source, e.target, e.relation, e.strength) for e in graph.open_edges.values()}

    assert relations(memory.graph) == relations(session.graph)


async def test_a_swapped_narrator_tells_the_next_turn_and_the_previous_one_is_closed(session: GameSession) -> None:
    class Marked(OfflineNarrator):
        closed = False

        async def narrate(self, request: NarrationRequest) -> AsyncIterator[str]:
            yield f"[{self.label}:{request.seed}] "
            async for delta in super().narrate(request):
                yield delta

        async def aclose(self) -> None:
            self.closed = True

    world = load_world(FIXTURES, "tiny")
    first, second = Marked(world), Marked(world)
    await session.swap_narrator(first)
    assert text_of(await collect(session, "look")).startswith(f"[{first.label}:{session.settings.seed + 1}]")
    await session.swap_narrator(second, session.settings.model_copy(update={"seed": 100}))
    assert first.closed and not second.closed and session.narrator is second and session.settings.seed == 100
    assert text_of(await collect(session, "look")).startswith(f"[{second.label}:102]")


async def test_the_map_layout_is_kept_in_the_save(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    assert await session.map_layout() == {}
    await session.save_map_layout({"npc-edda-marsh": (0.25, -0.5)})
    await session.close()
    reopened = await GameSession.open(settings, save="game")
    try:
        assert await reopened.map_layout() == {"npc-edda-marsh": (0.25, -0.5)}
    finally:
        await reopened.close()


async def test_resuming_a_save_continues_where_it_stopped(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    await collect(session, "help Edda")
    await collect(session, "up")
    expected = memory_state(session)
    await session.close()
    resumed = await GameSession.open(settings)  # no save named: the last one played
    try:
        assert resumed.save_name == "game" and memory_state(resumed) == expected
        opening = resumed.opening_text()
        assert "resumed at turn 2" in opening
        # The story so far, not only the room: each of the last turns with what was typed, in order.
        assert opening.index("> help Edda") < opening.index(resumed.history[0].narration) < opening.index("> up")
        assert opening.endswith(resumed.history[-1].narration)
        events = await collect(resumed, "again")
        assert any(isinstance(e, TurnCommitted) and e.turn == 3 for e in events)
        assert (await resumed.turns())[-1].input == "up"
    finally:
        await resumed.close()


async def test_new_refuses_an_existing_save_and_bad_names_are_refused(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    await session.close()
    with pytest.raises(SaveError, match="already exists"):
        await GameSession.open(settings, save="game", new=True, world="tiny")
    with pytest.raises(SaveError, match="not a save name"):
        await GameSession.open(settings, save="../evil", new=True, world="tiny")
    assert sorted(p.name for p in (tmp_path / "saves").iterdir()) == ["game.sqlite"]


async def test_save_and_restore_snapshots(session: GameSession) -> None:
    await collect(session, "help Edda")
    kept = await disk_state(session)
    assert "restore keep" in text_of(await collect(session, "save keep"))
    await collect(session, "threaten Edda")
    assert trust(session) == [-0.5]
    assert "Type `restore keep` again" in text_of(await collect(session, "restore keep"))
    events = await collect(session, "restore keep")
    assert any(isinstance(e, SessionReset) for e in events)
    assert await disk_state(session) == kept and trust(session) == [0.6]
    assert "not a save name" in text_of(await collect(session, "save ../../etc"))
    assert "no snapshot named" in text_of(await collect(session, "restore nothing-here"))


async def test_restart_starts_over_and_keeps_the_old_game(session: GameSession) -> None:
    await collect(session, "help Edda")
    events = await collect(session, "restart")
    assert session.turn == 0 and trust(session) == []
    assert "game-before-restart" in text_of(events)
    assert (session.settings.saves_dir / "game-before-restart.sqlite").exists()


async def test_why_names_the_turn_that_taught_each_relation(session: GameSession) -> None:
    await collect(session, "help Edda")
    why = text_of(await collect(session, "/why Edda"))
    assert "Edda Marsh trusts Sam Reed since Sam steadied her wick." in why
    assert "turn 1 (“help Edda”)" in why
    # MEMBER_OF the Board was seeded at turn 0, but nobody has spoken of the Board: /why, like the map,
    # names only people the player has heard of.
    assert "Lighthouse Board" not in why
    graph = text_of(await collect(session, "/graph Edda"))
    assert graph.startswith("## Known NPC relationships (from graph retrieval)")
    assert "Nobody called" in text_of(await collect(session, "/why Zanzibar"))


async def test_transcript_writes_a_plain_text_log(session: GameSession) -> None:
    await collect(session, "transcript on")
    await collect(session, "help Edda")
    await collect(session, "save kept")
    await collect(session, "transcript off")
    await collect(session, "look")
    log = (session.settings.saves_dir / "game.transcript.txt").read_text(encoding="utf-8")
    assert "> help Edda" in log and "steady the wick" in log
    assert "> look" not in log
    assert "as kept. Type restore kept" in log
    assert "**" not in log and "`" not in log, "the transcript is plain text, not the screen's Markdown"


async def test_a_transcript_that_cannot_be_written_is_told_and_play_goes_on(session: GameSession) -> None:
    saves = session.settings.saves_dir
    (saves / "game.transcript.txt").mkdir()  # a folder where the transcript file would go
    reply = text_of(await collect(session, "transcript on"))
    assert "could not" in reply.lower() and "game.transcript.txt" in reply
    assert session.transcript_path is None
    events = await collect(session, "help Edda")
    assert any(isinstance(e, TurnCommitted) for e in events) and session.turn == 1


async def test_a_full_disk_stops_the_transcript_with_a_message_and_play_goes_on(session: GameSession) -> None:
    full = Path("/dev/full")
    if not full.exists():
        pytest.skip("needs /dev/full to simulate a full disk")
    (session.settings.saves_dir / "game.transcript.txt").symlink_to(full)
    events = await collect(session, "transcript on")  # opening works; the first write finds the disk full
    events += await collect(session, "help Edda")
    assert any(isinstance(e, TurnCommitted) for e in events) and session.turn == 1
    warning = [e for e in events if isinstance(e, Notice) and "transcript" in e.text.lower()]
    assert len(warning) == 1 and warning[0].level == "warning" and "stopped" in warning[0].text
    assert session.transcript_path is None
    events = await collect(session, "up")
    assert any(isinstance(e, TurnCommitted) for e in events) and session.turn == 2


async def test_the_transcript_holds_no_terminal_escape_sequences(session: GameSession) -> None:
    await collect(session, "transcript on")
    await collect(session, "help \x1b]52;c;ZXZpbA==\x07Edda\x1b[2J")
    log = (session.settings.saves_dir / "game.transcript.txt").read_text(encoding="utf-8")
    assert "\x1b" not in log and "\x07" not in log
    assert "> help" in log and "Edda" in log


async def test_quit_and_meta_words_that_belong_to_the_story() -> None:
    assert parse_meta("help") is not None and parse_meta("help Edda") is None
    assert parse_meta("why") is None and parse_meta("/why Edda") is not None
    assert parse_meta("LOAD keep") == parse_meta("restore keep")
    assert parse_meta("undo") is not None and parse_meta("undo the knot") is None


async def test_a_slashed_word_the_game_lacks_is_answered_as_no_command_and_costs_no_turn(
        session: GameSession) -> None:
    events = await collect(session, "/deeds")
    assert "There is no command /deeds in this game." in text_of(events)
    assert not any(isinstance(e, TurnCommitted) for e in events) and session.turn == 0
    assert "Did you mean `/undo`?" in text_of(await collect(session, "/undoo"))
    assert parse_meta("/ 3") is None and parse_meta("/3") is None  # not a word: left to the story
    assert session.turn == 0


async def test_quit_reports_the_save(session: GameSession) -> None:
    events = await collect(session, "q")
    assert isinstance(events[-1], QuitRequested) and "saved as **game**" in text_of(events)


async def test_a_turn_without_world_ir_is_recovered_by_asking_again(tmp_path: Path) -> None:
    narrator = BrokenNarrator(load_world(FIXTURES, "tiny"), "world-ir")
    session = await GameSession.open(make_settings(tmp_path), save="game", new=True, world="tiny",
                                     narrator=narrator)
    try:
        events = await collect(session, "help Edda")
        assert any(isinstance(e, Notice) and "World IR never validated" in e.text for e in events)
        stored = await session.turns()
        assert stored[0].world_ir is None and not stored[0].extracted and trust(session) == []
        assert (await session.reextract_pending())[0].startswith("turn 1: still no World IR")
        narrator.step = None
        assert (await session.reextract_pending())[0].startswith("turn 1: extracted")
        assert trust(session) == [0.6]
    finally:
        await session.close()


async def test_save_never_overwrites_another_game_or_a_foreign_file(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    other = await GameSession.open(settings, save="other", new=True, world="tiny")
    await collect(other, "help Edda")
    await other.close()
    foreign = settings.saves_dir / "notes.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.commit()
    conn.close()
    before = foreign.read_bytes()
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    try:
        assert "already exists and is not a snapshot of this game" in text_of(await collect(session, "save other"))
        assert "is not a Kith save" in text_of(await collect(session, "save notes"))
        assert foreign.read_bytes() == before
        assert "Saved a snapshot" in text_of(await collect(session, "save keep"))
        await collect(session, "help Edda")
        assert "Saved a snapshot" in text_of(await collect(session, "save keep")), "its own snapshot is replaced"
    finally:
        await session.close()
    reopened = await GameSession.open(settings, save="other")
    try:
        assert reopened.turn == 1
    finally:
        await reopened.close()


async def test_snapshots_work_in_a_folder_whose_name_has_url_characters(tmp_path: Path) -> None:
    folder = tmp_path / "my#saves?x"
    settings = load_settings(flags={"saves_dir": folder, "content_dir": FIXTURES}, env={})
    session = await GameSession.open(settings, save="g1", new=True, world="tiny")
    try:
        await collect(session, "help Edda")
        await collect(session, "save snap")
        await collect(session, "threaten Edda")
        await collect(session, "restore snap")
        assert "Restored" in text_of(await collect(session, "restore snap"))
        assert trust(session) == [0.6] and session.turn == 1
    finally:
        await session.close()
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".sqlite") == ["g1-before-restore.sqlite", "g1.sqlite", "snap.sqlite"]
    assert not (tmp_path / "my").exists()


async def test_resuming_skips_saves_that_hold_only_a_graph(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    game = await GameSession.open(settings, save="game", new=True, world="tiny")
    await game.close()
    graph_only = await SaveDatabase.open(settings.saves_dir / "scratch.sqlite", schema=SCHEMA, create=True)
    await graph_only.set_meta({"last_played": "2999-01-01T00:00:00+00:00"})
    await graph_only.close()
    resumed = await GameSession.open(settings)
    try:
        assert resumed.save_name == "game"
    finally:
        await resumed.close()


async def test_undo_after_a_rebuild_makes_the_recovered_turn_pending_again(tmp_path: Path) -> None:
    narrator = BrokenNarrator(load_world(FIXTURES, "tiny"), "memory")
    session = await GameSession.open(make_settings(tmp_path), save="game", new=True, world="tiny",
                                     narrator=narrator)
    try:
        await collect(session, "help Edda")
        narrator.step = None
        await collect(session, "look")
        await session.reextract_pending()
        assert trust(session) == [0.6]
        await collect(session, "undo")  # undoes "look", and the recovery made at that turn
        assert trust(session) == []
        assert [t.number for t in await session.pending_extraction()] == [1]
        await session.reextract_pending()
        assert trust(session) == [0.6]
    finally:
        await session.close()


async def test_a_locked_save_fails_the_turn_with_a_message(session: GameSession) -> None:
    other = sqlite3.connect(session.save_path, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    await session._db.conn.execute("PRAGMA busy_timeout = 50")  # fail fast
    try:
        events = await collect(session, "help Edda")
    finally:
        other.rollback()
        other.close()
    failed = [e for e in events if isinstance(e, TurnFailed)]
    assert len(failed) == 1 and "database is locked" in failed[0].message
    assert failed[0].message.endswith("; nothing was saved. You can try again."), failed[0].message
    assert session.turn == 0 and trust(session) == []
    events = await collect(session, "help Edda")
    assert any(isinstance(e, TurnCommitted) for e in events)


async def test_a_saves_folder_that_cannot_exist_is_a_clear_refusal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    settings = load_settings(flags={"saves_dir": blocker / "saves", "content_dir": FIXTURES}, env={})
    with pytest.raises(SaveError, match="could not be created"):
        await GameSession.open(settings, save="game", new=True, world="tiny")


async def test_the_saves_vocabulary_follows_its_world_so_the_cli_agrees(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    session = await GameSession.open(settings, save="game", new=True, world="tiny")
    path = session.save_path
    await session.close()
    db = await SaveDatabase.open(path, schema=SCHEMA)
    await db.set_meta({"vocabulary": "[]"})  # as a save made before a world added relations
    await db.close()
    reopened = await GameSession.open(settings, save="game")
    relations = set(reopened.world.vocabulary.relations)
    await reopened.close()
    db = await SaveDatabase.open(path, schema=SCHEMA)
    try:
        stored = await db.vocabulary()
        assert set(stored.relations) == relations
        assert (await db.meta())["vocabulary"] != "[]"
    finally:
        await db.close()


async def test_undo_n_takes_back_n_turns_and_says_so_when_fewer_exist(session: GameSession) -> None:
    states = [(await disk_state(session), memory_state(session))]
    for command in ["help Edda", "ask Edda about the lamp", "threaten Edda"]:
        await collect(session, command)
        states.append((await disk_state(session), memory_state(session)))
    events = await collect(session, "undo 2")
    assert any(isinstance(e, SessionReset) for e in events)
    assert "Undone 2 turns" in text_of(events) and "back at turn 1" in text_of(events)
    assert (await disk_state(session), memory_state(session)) == states[1]
    refused = text_of(await collect(session, "undo 5"))
    assert "only 1 turn" in refused, "asking for more than there are takes back nothing and says how many exist"
    assert (await disk_state(session), memory_state(session)) == states[1]
    assert "a number" in text_of(await collect(session, "/undo 0"))
    await collect(session, "undo 1")
    assert (await disk_state(session), memory_state(session)) == states[0]
    assert parse_meta("undo 3") is not None and parse_meta("undo three") is None


async def test_a_line_too_long_for_a_turn_is_refused_and_control_characters_never_reach_the_save(
        tmp_path: Path) -> None:
    session = await GameSession.open(make_settings(tmp_path), save="game", new=True, world="tiny")
    try:
        refused = text_of(await collect(session, "look " * 2000))
        assert "more than one turn can take" in refused
        assert session.turn == 0 and await session.turns() == []
        await collect(session, "look\x1b[2J at the \x07lamp")
        [stored] = await session.turns()
        assert stored.input == "look at the lamp"
    finally:
        await session.close()
