"""The context in play: composed before each turn's narration, handed to the narrator, kept with the turn
(``/mind``, ``/why``) and undone with it; ``/knowledge`` reads and teaches what someone knows, and a fact
taught is a turn of its own that ``undo`` takes back exactly. Real parts: Brinefall, saves on disk, the
offline narrator."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from helpers.play import collect, text_of
from helpers.saves import CURRENT_VERSION, SCHEMA, empty_old_save, migration_of

from game.config import Settings, load_settings
from game.engine.events import MetaOutput, TurnCommitted
from game.engine.mind_context import ContextInputs, default_providers
from game.engine.session import GameSession
from game.features.gossip.knowledge_command import relation_sentence
from game.graph.index import GraphIndex
from game.mind.context import ComposedContext, ComposedSection
from game.mind.sections import ContextProvider, ContextQuery, Section, SectionLine
from game.narrator.base import NarrationRequest
from game.narrator.offline import OfflineNarrator
from game.store import turn_log
from game.store.database import SaveDatabase
from game.story.context import Turn
from game.world import World, load_world

CONTENT = Path(__file__).resolve().parents[1] / "content"


class Listening(OfflineNarrator):
    """The real offline narrator, remembering every request it was handed (what it was told)."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.requests: list[NarrationRequest] = []

    async def narrate(self, request: NarrationRequest) -> AsyncIterator[str]:
        self.requests.append(request)
        async for chunk in super().narrate(request):
            yield chunk


class Slow:
    """A test-only MEMORY provider that never answers in time."""

    @property
    def name(self) -> str:
        return "MEMORY"

    async def provide(self, query: ContextQuery) -> Section:
        await asyncio.sleep(5)
        return Section("MEMORY", (SectionLine(query.focus[0], "never told"),))


def settings(tmp_path: Path, **context: object) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT, "world": "brinefall",
                                "context": context}, env={})


async def open_game(tmp_path: Path, narrator: OfflineNarrator | None = None, **context: object) -> GameSession:
    world = load_world(CONTENT, "brinefall")
    return await GameSession.open(settings(tmp_path, **context), save="game", new=True,
                                  narrator=narrator or OfflineNarrator(world))


async def reply(session: GameSession, text: str) -> str:
    return text_of(await collect(session, text))


async def test_the_narrator_is_told_the_context_and_mind_shows_it_section_by_section(tmp_path: Path) -> None:
    narrator = Listening(load_world(CONTENT, "brinefall"))
    async with await open_game(tmp_path, narrator) as session:
        assert "No turn has been told yet" in await reply(session, "/mind Hob")
        await collect(session, "ask hob about ness")
        told = narrator.requests[-1].context
        assert told == await session.turn_context()  # what /mind reads is what the narrator had
        hob = "npc-hob-tarrant"
        assert set(told.about(hob)) == {"SCENE", "GRAPH", "KNOWLEDGE", "RELATIONSHIP"}  # no memory of you yet
        assert told.about_named("hob tarrant") == told.about(hob)
        # The blocks narrators always had are the budgeted GRAPH and KNOWLEDGE sections.
        assert [f"{line.text}" for line in told.lines("GRAPH")] == \
            narrator.requests[-1].npc_context.splitlines()[2:]
        assert narrator.requests[-1].knowledge["Hob Tarrant"] == [
            line.text for line in told.lines("KNOWLEDGE", hob)]

        shown = await reply(session, "/mind Hob")
        assert "**What the narrator was told about Hob Tarrant at turn 1, section by section:**" in shown
        assert "- [SCENE] Hob Tarrant is here: The old ferryman" in shown
        assert "- [KNOWLEDGE] [+] **Tibby Tarrant** → **Hob Tarrant** (KIN_OF)" in shown
        assert f"of {told.budget} tokens" in shown
        why = await reply(session, "/why Hob")
        assert why.startswith("**What the narrator is told about Hob Tarrant, and where it came from:**")
        assert "- [SCENE] Hob Tarrant is here" in why
        assert "Nobody called 'Hbo' is remembered yet" in await reply(session, "/mind Hbo")


async def test_a_provider_out_of_time_is_left_out_the_turn_goes_on_and_mind_says_so(tmp_path: Path) -> None:
    async with await open_game(tmp_path, time_limits_ms={"MEMORY": 50}) as session:
        def with_slow(inputs: ContextInputs) -> Sequence[ContextProvider]:
            return [*(p for p in default_providers(inputs) if p.name != "MEMORY"), Slow()]

        session.context_providers = with_slow
        events = await collect(session, "ask hob about ness")
        assert any(isinstance(e, TurnCommitted) for e in events)
        assert "Eel Run" in text_of(events)
        shown = await reply(session, "/mind Hob")
        assert "- MEMORY was left out: it took longer than 50 ms." in shown
        assert "- [SCENE] Hob Tarrant is here" in shown  # the others were told


async def test_undo_takes_the_turns_context_back_with_it(tmp_path: Path) -> None:
    async with await open_game(tmp_path) as session:
        await collect(session, "ask hob about ness")
        await collect(session, "ask hob about tibby")
        second = await session.turn_context()
        assert second is not None and second.turn == 2
        await collect(session, "undo")
        first = await session.turn_context()
        assert first is not None and first.turn == 1 and "at turn 1" in await reply(session, "/mind Hob")
        await collect(session, "undo")
        assert await session.turn_context() is None


async def test_a_small_budget_cuts_what_the_narrator_is_told(tmp_path: Path) -> None:
    narrator = Listening(load_world(CONTENT, "brinefall"))
    async with await open_game(tmp_path, narrator, budget=120) as session:
        await collect(session, "ask hob about ness")
        told = narrator.requests[-1].context
        assert told.tokens <= 120 and any(section.dropped for section in told.sections)
        assert len(narrator.requests[-1].npc_context.splitlines()) - 2 == len(told.lines("GRAPH"))
        assert "left out for want of room" in await reply(session, "/mind Hob")


async def test_knowledge_lists_what_someone_knows_how_and_how_sure(tmp_path: Path) -> None:
    async with await open_game(tmp_path) as session:
        await collect(session, "ask hob about pell")  # Hob names Maud: the player has heard of her now
        shown = await reply(session, "/knowledge Maud Quaile")
        # Only relations between people the player has heard of: the Eel Run is still a name unsaid.
        assert shown.startswith("**What Maud Quaile knows (1 fact), how and how sure:**")
        assert "(OWES): Pell Garrow drinks on a slate" in shown and "their own doing, since turn 0, 100% sure" in shown
        assert "Eel Run" not in shown
        await collect(session, "ask hob about ness")  # Hob names the Eel Run
        shown = await reply(session, "/knowledge Maud Quaile")
        assert shown.startswith("**What Maud Quaile knows (2 facts), how and how sure:**")
        assert "Maud Quaile** → **Eel Run** (ALLY_OF)" in shown or "Maud Quaile → Eel Run (ALLY_OF)" in shown
        assert "Type `/knowledge NAME`" in await reply(session, "/knowledge")
        assert "Nobody called 'Mauds' is remembered yet (did you mean 'Maud'?)" in await reply(
            session, "/knowledge Mauds")


async def test_a_fact_taught_is_a_turn_of_its_own_and_undo_takes_it_back_exactly(tmp_path: Path) -> None:
    narrator = Listening(load_world(CONTENT, "brinefall"))
    async with await open_game(tmp_path, narrator) as session:
        await collect(session, "ask hob about pell")  # the player hears of Pell Garrow and Maud Quaile
        await collect(session, "ask hob about ness")
        graph = session.graph
        owes = next(e for e in graph.open_edges.values() if e.relation == "OWES" and e.source == "npc-pell-garrow")
        before = dict(graph.knowers_of(owes.id))
        assert "npc-hob-tarrant" not in before

        events = await collect(session, '/knowledge Hob add "Pell Garrow" OWES "Maud Quaile"')
        assert [e.text for e in events if isinstance(e, MetaOutput)] == [
            f"Hob Tarrant now knows: {owes.fact} (`undo` takes it back.)"]
        # Committed as every kept turn is (one commit): the front end is told the turn went up.
        assert [e.turn for e in events if isinstance(e, TurnCommitted)] == [3]
        assert session.turn == 3 and session.graph.knows("npc-hob-tarrant", owes.id)
        assert "Pell Garrow" in await reply(session, "/knowledge Hob")
        assert "already knows" in await reply(session, '/knowledge Hob add "Pell Garrow" OWES "Maud Quaile"')

        await collect(session, "again")  # repeats the last story input, never the command
        assert narrator.requests[-1].player_input == "ask hob about ness"
        assert all(not p.player_input.startswith("/") for p in narrator.requests[-1].history)
        await collect(session, "undo")
        await collect(session, "undo")
        assert session.turn == 2 and session.graph.knowers_of(owes.id) == before
        assert "Pell Garrow" not in await reply(session, "/knowledge Hob")


async def test_a_new_fact_is_written_through_the_vocabulary_with_its_knower_and_its_ends(tmp_path: Path) -> None:
    async with await open_game(tmp_path) as session:
        await collect(session, "ask hob about the watch")  # Hob names Lise Brack and the captain, Dace Merrow
        shown = await reply(session, "/knowledge Hob add Lise FEARS Dace")
        assert shown.startswith("Hob Tarrant now knows: Lise Brack fears Dace Merrow.")
        edge = next(e for e in session.graph.open_edges.values() if e.relation == "FEARS" and e.valid_at == 2)
        assert edge.strength < 0 and set(session.graph.knowers_of(edge.id)) == {
            "npc-hob-tarrant", "npc-lise-brack", "npc-dace-merrow"}
        assert "a relation of this world (did you mean 'FEARS'?)" in await reply(
            session, "/knowledge Hob add Lise FEERS Dace")
        assert "Nobody called 'Lsie'" in await reply(session, "/knowledge Hob add Lsie FEARS Dace")
        assert "No closing quotation" in await reply(session, '/knowledge Hob add "Lise FEARS Dace')
        assert "needs a subject, a predicate and an object" in await reply(session, "/knowledge Hob add Lise Dace")
        assert "only one person knows things" in await reply(
            session, "/knowledge Harbour Watch add Lise FEARS Dace")
        assert session.turn == 2  # refusals change nothing


def test_the_story_engine_reads_the_context_by_person() -> None:
    world = load_world(CONTENT, "brinefall")
    context = ComposedContext(turn=1, names={"npc-hob-tarrant": "Hob Tarrant"}, sections=(
        ComposedSection("RELATIONSHIP", (SectionLine("npc-hob-tarrant", "Current relationship tier: FRIENDLY.",
                                             facts={"tier": "FRIENDLY"}),)),))

    turn = Turn.start(world, world.initial_scene(), GraphIndex(), 1, "look", "0", context)
    assert turn.mind.about_named("Hob Tarrant")["RELATIONSHIP"][0].facts["tier"] == "FRIENDLY"
    assert Turn.start(world, world.initial_scene(), GraphIndex(), 1, "look", "0").mind == ComposedContext()


async def test_a_save_from_before_contexts_were_kept_opens_and_plays_on(tmp_path: Path) -> None:
    async with await open_game(tmp_path) as session:
        await collect(session, "ask hob about ness")
        path = session.save_path
    with sqlite3.connect(path) as conn:  # the turn's context as an older Kith left it: nowhere
        conn.execute("DELETE FROM turn_context")
    old = empty_old_save(tmp_path / "old.sqlite", migration_of("turn_context"))
    db = await SaveDatabase.open(old, schema=SCHEMA)
    try:
        assert [tuple(row) for row in await db.conn.execute_fetchall("PRAGMA user_version")] == [(CURRENT_VERSION,)]
        assert await turn_log.latest_turn_row(db, "turn_context", 10) is None
    finally:
        await db.close()
    async with await GameSession.open(settings(tmp_path), save=path) as session:
        assert "No turn has been told yet" in await reply(session, "/mind Hob")
        await collect(session, "ask hob about tibby")
        assert "at turn 2" in await reply(session, "/mind Hob")


async def test_a_fact_given_by_an_inverse_is_worded_the_way_it_is_stored(tmp_path: Path) -> None:
    async with await open_game(tmp_path) as session:
        await collect(session, "ask hob about the watch")  # Hob names Lise Brack and the captain, Dace Merrow
        shown = await reply(session, "/knowledge Hob add Dace FEARED_BY Lise")
        assert shown.startswith("Hob Tarrant now knows: Lise Brack fears Dace Merrow.")
        graph = session.graph
        edge = next(e for e in graph.open_edges.values() if e.relation == "FEARS" and e.valid_at == 2)
        assert (edge.source, edge.target, edge.fact) == ("npc-lise-brack", "npc-dace-merrow", "Lise Brack fears Dace Merrow.")
        assert "Lise Brack fears Dace Merrow." in await reply(session, "/knowledge Hob")  # the line Hob knows
        assert "Dace Merrow fears Lise Brack" not in await reply(session, "/knowledge Hob")
        shown = await reply(session, "/knowledge Hob add \"Harbour Watch\" HAS_MEMBER Hob")
        assert "Hob Tarrant is a member of Harbour Watch." in shown, shown
        assert "Harbour Watch member of" not in shown


def test_a_relation_is_worded_as_a_sentence_whichever_way_its_words_run() -> None:
    assert relation_sentence("Lise Brack", "FEARS", "Dace Merrow") == "Lise Brack fears Dace Merrow."
    assert relation_sentence("Hob", "MEMBER_OF", "the Watch") == "Hob is a member of the Watch."
    assert relation_sentence("Maud", "ALLY_OF", "Eel Run") == "Maud is an ally of Eel Run."
    assert relation_sentence("Ness", "KIN_OF", "Wren") == "Ness is kin of Wren."
