"""Retry, swipes, Story mode and the notes with the offline narrator, on a real save: the next seed on
retry, continue saying there is no more, Story text kept as written, notes undone step by step, and a
save from before tellings were kept opening and playing on."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from helpers.play import collect, text_of
from helpers.saves import CURRENT_VERSION, SCHEMA, SCRIPTS

from benchmarks.engine_bench import _bulk_versions
from game.config import Settings, load_settings
from game.engine.events import NarrationDelta, TurnReplaced
from game.engine.meta import parse_meta
from game.engine.session import GameSession
from game.graph.names import normalize_name
from game.graph.upsert import UpsertExecution
from game.narrator.base import NarrationRequest
from game.narrator.offline import OfflineNarrator
from game.store import turn_log
from game.store.database import SaveDatabase
from game.world import load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


def make_settings(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})


class SeedNarrator(OfflineNarrator):
    """The offline narrator, remembering the seed of each request (retry must ask for the next one)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.seeds: list[int] = []

    async def finish(self, request: NarrationRequest, narration: str):  # type: ignore[no-untyped-def]
        self.seeds.append(request.seed)
        return await super().finish(request, narration)


async def open_tiny(tmp_path: Path, new: bool = True) -> GameSession:
    settings = make_settings(tmp_path)
    narrator = SeedNarrator(load_world(FIXTURES, "tiny"))
    return await GameSession.open(settings, "game", new=new, world="tiny", narrator=narrator)


def test_the_new_words_are_commands_only_where_the_story_cannot_mean_them() -> None:
    assert parse_meta("retry") is not None and parse_meta("continue") is not None
    assert parse_meta("continue north") is None  # a story act
    assert parse_meta("note the time") is None and parse_meta("/note terse") is not None
    assert parse_meta("story") is None and parse_meta("/story It rains.") is not None
    assert parse_meta("/memory clear") is not None and parse_meta("memory") is None


async def test_retry_tells_the_turn_again_with_the_next_seed(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    narrator = session.narrator
    assert isinstance(narrator, SeedNarrator)
    await collect(session, "help edda")
    told = ([n.to_json_dict() for n in await session.all_nodes()], [e.to_json_dict() for e in await session.all_edges()],
            session.scene.model_dump(), session.history[-1])
    events = await collect(session, "retry")
    assert [e.count for e in events if isinstance(e, TurnReplaced)] == [2]
    assert narrator.seeds[1] == narrator.seeds[0] + 1
    assert session.turn == 1 and len(await session.turns()) == 1
    await collect(session, "/swipe 1")
    assert session.history[-1].narration == told[3].narration
    assert ([n.to_json_dict() for n in await session.all_nodes()], [e.to_json_dict() for e in await session.all_edges()],
            session.scene.model_dump()) == told[:3]  # the first telling, written back exactly
    await session.close()


async def test_continue_offline_says_there_is_nothing_more_and_changes_nothing(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    before = session.history[-1].narration
    events = await collect(session, "continue")
    assert "nothing more to tell" in text_of(events)
    assert not [e for e in events if isinstance(e, NarrationDelta)]
    assert session.history[-1].narration == before
    await session.close()


async def test_story_mode_keeps_the_text_as_written_and_leaves_the_scene(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    scene = session.scene.model_dump()
    events = await collect(session, "/story A gull cries over the *lamp room*.")
    assert session.turn == 1
    assert session.history[-1].narration == "A gull cries over the *lamp room*."
    assert "A gull cries" in text_of(events)
    assert session.scene.location == scene["location"] and session.scene.cast == scene["cast"]
    await session.close()


async def test_notes_are_kept_in_the_save_and_undone_before_the_turn(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    await collect(session, "/memory Edda lost her brother to the sea.")
    await collect(session, "/note Quiet, salt-stung.")
    await session.close()
    session = await open_tiny(tmp_path, new=False)
    assert dict(session.notes) == {"memory": "Edda lost her brother to the sea.", "note": "Quiet, salt-stung."}
    await collect(session, "undo")  # the newest change first: the note
    assert "note" not in session.notes and session.turn == 1
    await collect(session, "undo")
    assert "memory" not in session.notes and session.turn == 1
    await collect(session, "undo")
    assert session.turn == 0
    assert "too long" not in text_of(await collect(session, "/note " + "x" * 300))
    assert "at most 300" in text_of(await collect(session, "/note " + "x" * 301))
    await session.close()


async def test_undoing_a_turn_takes_back_a_note_changed_during_it(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "/memory before")
    await collect(session, "help edda")
    await collect(session, "/memory during")
    await collect(session, "undo 1")  # ``undo N`` steps back whole turns
    assert session.turn == 0 and session.notes.get("memory") == "before"
    await session.close()


async def test_a_turn_told_before_tellings_were_kept_is_retold_and_restored_exactly(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    told = ([n.to_json_dict() for n in await session.all_nodes()], [e.to_json_dict() for e in await session.all_edges()],
            session.scene.model_dump(), session.history[-1])
    await session.close()
    with sqlite3.connect(tmp_path / "saves" / "game.sqlite") as conn:
        conn.execute("DELETE FROM swipes")  # as a turn told before the swipes migration left it
    conn.close()
    session = await open_tiny(tmp_path, new=False)
    assert [e.count for e in await collect(session, "retry") if isinstance(e, TurnReplaced)] == [2]
    await collect(session, "/swipe 1")
    again = ([n.to_json_dict() for n in await session.all_nodes()], [e.to_json_dict() for e in await session.all_edges()],
             session.scene.model_dump(), session.history[-1])
    assert again == told
    await collect(session, "wait")  # and play goes on
    assert session.turn == 2
    await session.close()


async def test_a_turn_that_merged_people_is_not_told_again(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    await session.close()
    with sqlite3.connect(tmp_path / "saves" / "game.sqlite") as conn:
        conn.execute("DELETE FROM swipes")
        conn.execute("INSERT INTO journal (turn, kind, key, before) VALUES (1, 'merge', 'npc-x', NULL)")
    conn.close()
    session = await open_tiny(tmp_path, new=False)
    assert "was told before this save kept its tellings" in text_of(await collect(session, "retry"))
    await session.close()


async def test_a_save_from_before_the_migration_opens_with_empty_tables(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for script in SCRIPTS[:5]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 5")
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [("application", "kith"), ("world", "w")])
    conn.commit()
    conn.close()
    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        assert (await db.conn.execute_fetchall("PRAGMA user_version"))[0][0] == CURRENT_VERSION
        assert next(iter(await db.conn.execute_fetchall("SELECT count(*) FROM swipes")))[0] == 0
        assert next(iter(await db.conn.execute_fetchall("SELECT count(*) FROM notes")))[0] == 0


async def test_a_story_mode_turn_is_edited_never_told_again(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "/story The tide turns.")
    assert "your own writing (Story mode)" in text_of(await collect(session, "retry"))
    await collect(session, "/edit The tide turns, and the lamp fails.")
    assert session.history[-1].narration == "The tide turns, and the lamp fails."
    assert session.history[-1].player_input == "The tide turns, and the lamp fails."
    assert "your own writing" in text_of(await collect(session, "retry"))  # still the player's, after an edit
    await session.close()


async def test_an_edit_is_undone_by_its_telling_step_and_by_an_older_saves_alternative_step(tmp_path: Path) -> None:
    """An edit leaves a ``telling`` undo step; a save written when the step was called ``alternative``
    still undoes the edit back to the telling it came from."""
    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    told = session.history[-1].narration
    await collect(session, "/edit The lamp gutters, and Edda says nothing.")
    await session.close()
    with sqlite3.connect(tmp_path / "saves" / "game.sqlite") as conn:
        assert conn.execute("SELECT kind FROM undo_steps").fetchall() == [("telling",)]
        conn.execute("UPDATE undo_steps SET kind = 'alternative'")  # as an older save wrote it
    conn.close()
    session = await open_tiny(tmp_path, new=False)
    assert "Undone the edit" in text_of(await collect(session, "undo"))
    assert session.turn == 1 and session.history[-1].narration == told
    await session.close()


async def test_continue_stops_at_the_longest_turn(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    await collect(session, "/edit " + "x" * 8000)
    assert "as long as a turn may be" in text_of(await collect(session, "continue"))
    assert "at most 8000" in text_of(await collect(session, "/edit " + "x" * 8001))
    await session.close()


async def test_a_damaged_telling_is_one_message_and_saves_check_names_it(tmp_path: Path) -> None:
    from game.store.check import check_save

    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    await session.close()
    path = tmp_path / "saves" / "game.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE swipes SET payload = '{\"record\": '")
    conn.close()
    assert any("swipes 1:0: payload is not valid JSON" in p for p in check_save(path, SCHEMA))
    session = await open_tiny(tmp_path, new=False)
    said = text_of(await collect(session, "retry"))
    assert "is damaged" in said and "kith saves check game" in said
    assert session.turn == 1 and len(await session.turns()) == 1  # nothing else was touched
    await session.close()


async def test_an_edited_input_is_bounded_and_terminal_safe_like_an_edited_narration(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    before = session.history[-1]
    # Control characters alone are no input at all; a huge input is refused; neither keeps a telling.
    assert "/edit-input TEXT" in text_of(await collect(session, "/edit-input \x01\x02"))
    assert "at most 8000" in text_of(await collect(session, "/edit-input " + "w" * 8001))
    assert session.history[-1] == before
    await collect(session, "/edit-input help \x1b[2Jedda\x07")
    assert session.history[-1].player_input == "help edda"  # the escape sequence and the bell are gone
    await session.close()


async def test_an_empty_edit_of_a_story_turn_input_says_what_it_replaces(tmp_path: Path) -> None:
    session = await open_tiny(tmp_path)
    await collect(session, "/story The tide turns.")
    said = text_of(await collect(session, "/edit-input \x07"))
    assert "/edit-input TEXT" in said and "last narration" not in said
    said = text_of(await collect(session, "/story \x1b[2J"))
    assert "/story TEXT" in said and "last narration" not in said and session.turn == 1
    await session.close()


async def test_a_save_missing_a_table_it_should_have_is_one_message_and_saves_check_names_it(tmp_path: Path) -> None:
    import pytest

    from game.errors import SaveError
    from game.features.notes.store import NOTES
    from game.store.check import check_save

    session = await open_tiny(tmp_path)
    await collect(session, "help edda")
    await session.close()
    path = tmp_path / "saves" / "game.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(f"DROP TABLE {NOTES}")
    with pytest.raises(SaveError, match=r"game is damaged .*no such table: notes"):
        await open_tiny(tmp_path, new=False)
    assert "tables: notes is missing" in check_save(path, SCHEMA)


async def test_a_retried_turn_starts_from_the_minds_and_graph_as_they_were_before_it(tmp_path: Path) -> None:
    """Retry tells the turn again from the game before it: the attitudes and memories earlier turns built,
    and the graph as it stood (not the turn's own writes, which a lazily read graph would see)."""
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    session = await GameSession.open(settings, "game", new=True, world="brinefall")
    try:
        for line in ["n", "e", "talk to maud", "help maud", "help maud"]:
            await collect(session, line)
        maud = session.attitudes.named("Maud Quaile")
        remembered = [m.text for m in session.memories.of("npc-maud-quaile")]
        await collect(session, "help maud")
        after_once = session.attitudes.named("Maud Quaile")
        events = [event async for event in session.play_turn("retry")]
        assert any(isinstance(event, TurnReplaced) for event in events)
        retold = session.attitudes.named("Maud Quaile")
        assert maud is not None and after_once is not None and retold is not None
        assert (retold.trust, retold.friendliness) == (after_once.trust, after_once.friendliness)
        assert retold.trust > maud.trust > 0
        assert [m.text for m in session.memories.of("npc-maud-quaile")][: len(remembered)] == remembered
    finally:
        await session.close()


class ReachingNarrator(OfflineNarrator):
    """The offline narrator, noting what the graph it extracts into says of one node it reaches lazily
    (nothing on stage touches it, so only a read through the lazy source finds its relations)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.node_id = ""
        self.seen: list[tuple[list[tuple[str, float, int | None]], dict[str, list[str]]]] = []

    async def extract(self, request, result, execution):  # type: ignore[no-untyped-def]
        if self.node_id:
            self.seen.append(await relations_of(execution.reader, self.node_id))
        return await super().extract(request, result, execution)


async def relations_of(reader: Any, node_id: str) -> tuple[list[tuple[str, float, int | None]], dict[str, list[str]]]:
    """A node's open versions (ID, strength, end) and who knows each, as ``reader`` has them."""
    edges = await reader.open_edges_of(node_id)
    knowers = await reader.knowings_of([e.id for e in edges])
    return (sorted((e.id, e.strength, e.invalid_at) for e in edges),
            {edge_id: sorted(rows) for edge_id, rows in sorted(knowers.items())})


async def test_a_retry_on_a_long_save_reaches_the_graph_as_it_was_before_the_turn(tmp_path: Path) -> None:
    """The retried turn's graph is read lazily after the turn is undone and rolled back: the nodes it
    reaches must show the relations and knowers from before the turn, not the ones the save still holds."""
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    session = await GameSession.open(settings, "game", new=True, world="brinefall")
    path = session.save_path
    await session.close()
    db = await SaveDatabase.open(path, schema=SCHEMA)
    try:
        await _bulk_versions(db, 2000)
    finally:
        await db.close()
    narrator = ReachingNarrator(load_world(settings.content_dir, "brinefall"))
    session = await GameSession.open(settings, "game", world="brinefall", narrator=narrator)
    try:
        await collect(session, "look")
        store = session._db
        [person] = session.graph.nodes_with_name(normalize_name("Bench Person 3"))
        before = await relations_of(store.graph, person.id)
        assert len(before[0]) >= 2
        await collect(session, "wait")
        # Turn 2 also changes this person's relations (as `kith graph upsert` does, journaled at the turn):
        # one changed, one made, with their knowers.
        graph = await store.load_graph_index()
        # Dated after the synthetic history (as `graph upsert` dates them), journaled at turn 2 all the same.
        execution = UpsertExecution(graph, session.vocabulary, await turn_log.latest_turn(store), witnesses=["npc-hob-tarrant"])
        changed = (await store.graph.open_edges_of(person.id))[0]
        ends = [graph.nodes[changed.source].name, graph.nodes[changed.target].name]
        outcome = await execution.run({"edges": [
            {"sourceName": ends[0], "targetName": ends[1], "relation": changed.relation,
             "strength": round(changed.strength / 2, 2), "fact": "It mattered less later."},
            {"sourceName": "Bench Person 3", "targetName": "Hob Tarrant", "relation": "OWES", "strength": 0.4,
             "fact": "Bench Person 3 owes Hob."}]})
        assert outcome.error is None, outcome.error
        await store.commit_graph(execution.writes)
        assert await relations_of(store.graph, person.id) != before
        narrator.node_id = person.id
        events = await collect(session, "retry")
        assert any(isinstance(event, TurnReplaced) for event in events)
        assert narrator.seen == [before]
        # The telling replaced the turn: the save and the session's graph agree on this person again.
        assert await relations_of(store.graph, person.id) == before
        assert await relations_of(session.graph, person.id) == before
    finally:
        await session.close()
