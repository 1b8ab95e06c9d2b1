"""``kith import-story`` in-process over real save files: a 50-paragraph Markdown story of Brinefall becomes
a save whose map and ``/why`` make sense (concrete relations, who knows them), ``>`` transcripts become
one turn per command, names are found in the text without a world, and bad files are refused with one
clear message and no save at all."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from chat_server import ChatServer, Text, ToolCalls
from helpers.play import collect, text_of
from llm_helpers import edge, ir, relation

from game.__main__ import main
from game.config import load_settings
from game.engine.enrich_import import MAX_STORY_BYTES, split_story
from game.engine.session import GameSession
from game.graph.fast_extract.marks import fast_from
from game.narrator.offline import OfflineNarrator
from game.world import load_world

STORY = Path(__file__).parent / "data" / "stories" / "lantern-tide.md"
CONTENT = Path(__file__).parent.parent / "content"


def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--saves-dir", str(tmp_path / "saves"), *args])
    out, err = capsys.readouterr()
    return code, out, err


async def _game(tmp_path: Path, save: str = "tide", world: str = "brinefall") -> GameSession:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    return await GameSession.open(settings, save=save, narrator=OfflineNarrator(load_world(CONTENT, world)))


def _relations(session: GameSession) -> set[tuple[str, str, str]]:
    names = {node.id: node.name for node in session.graph.nodes.values()}
    return {(names[e.source], names[e.target], e.relation) for e in session.graph.open_edges.values()
            if fast_from(e) is not None}


def test_the_story_has_fifty_paragraphs() -> None:
    assert len(split_story(STORY.read_text(encoding="utf-8"))) >= 50


async def test_a_markdown_story_imports_into_a_save_whose_map_and_why_make_sense(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "tide",
                                             "--world", "brinefall", str(STORY))
    assert code == 0, err
    assert out.startswith("Imported 51 turn(s) into tide (world brinefall): ")
    assert "kith graph enrich --save tide" in out
    session = await _game(tmp_path)
    try:
        found = _relations(session)
        assert {("Dace Merrow", "Orla Vance", "FEARS"), ("Dace Merrow", "Harbour Watch", "LEADS"),
                ("Pell Garrow", "Isolde Kett", "FEARS"), ("Ambry Garrow", "Pell Garrow", "KIN_OF"),
                ("Isolde Kett", "Eel Run", "LEADS"), ("Isolde Kett", "Ness Tallis", "LOVES"),
                ("Aldous Crane", "Orla Vance", "SERVES"), ("Fenn Orrick", "Aldous Crane", "SERVES"),
                ("Tibby Tarrant", "Pell Garrow", "DISTRUSTS"), ("Hob Tarrant", "Stilt Folk", "LEADS")} <= found
        # Nothing the story does not say: no relation of the player's, and no invented fear of the Guild.
        assert not any("Wren Tallis" in (s, t) for s, t, _ in found)
        assert ("Orla Vance", "Dace Merrow", "FEARS") not in found
        turns = await session.turns()
        assert len(turns) == 51 and {(t.extracted, t.extraction) for t in turns} == {(False, "fast")}
        assert turns[17].input == "(story, paragraph 18)" and "afraid of Isolde Kett" in turns[17].narration
        # Who knows what: the player read it (witnessed), its two ends know it (authored); nobody else.
        names = {node.name: node.id for node in session.graph.nodes.values()}
        fear = next(e for e in session.graph.open_edges.values()
                    if (e.source, e.target, e.relation) == (names["Pell Garrow"], names["Isolde Kett"], "FEARS"))
        knowers = session.graph.knowers_of(fear.id)
        assert {names["Wren Tallis"], names["Pell Garrow"], names["Isolde Kett"]} == set(knowers)
        assert knowers[names["Wren Tallis"]].how == "witnessed" and knowers[names["Pell Garrow"]].how == "authored"
        why = text_of(await collect(session, "/why Pell Garrow"))
        assert ("**Pell Garrow** → **Isolde Kett** (FEARS): Pell Garrow is afraid of Isolde Kett. — from turn 18 "
                "(“(story, paragraph 18)”), read from the narration without a model (not yet confirmed)") in why
        assert "**Ambry Garrow** → **Pell Garrow** (KIN_OF)" in why
        # Undo steps back through the story like any game.
        await collect(session, "undo")
        assert session.turn == 50
    finally:
        await session.close()
    code, drawn, err = await asyncio.to_thread(kith, tmp_path, capsys, "graph", "map", "--save", "tide",
                                               "--color", "never", "--width", "160", "--height", "50")
    assert code == 0, err
    for name in ("Pell Garrow", "Isolde Kett", "Orla Vance", "Fenn Orrick", "Eel Run", "Bellkeepers"):
        assert name in drawn


async def test_a_transcript_becomes_one_turn_per_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "run.txt"
    story.write_text("The quay is wet.\n\n> ask Hob about the Guild\nHob spits.\n\nHob Tarrant hates the Saltwrights' "
                     "Guild.\n\n> talk to Tibby\nTibby Tarrant trusts Hob Tarrant.\n", encoding="utf-8")
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "run", "--world",
                                             "brinefall", "--json", str(story))
    assert code == 0, err
    report = json.loads(out)
    assert report["turns"] == 3 and report["relations"] == 2 and report["enrich"] == "kith graph enrich --save run"
    session = await _game(tmp_path, "run")
    try:
        assert [t.input for t in await session.turns()] == ["(story, opening)", "ask Hob about the Guild",
                                                            "talk to Tibby"]
        assert (await session.turns())[1].narration == "Hob spits.\n\nHob Tarrant hates the Saltwrights' Guild."
        assert ("Tibby Tarrant", "Hob Tarrant", "TRUSTS") in _relations(session)
    finally:
        await session.close()


async def test_without_a_world_people_are_found_in_the_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "inn.md"
    story.write_text("# The Inn\n\nCorin Ashe came in from the harbour. Corin Ashe fears Velma Stroud.\n\n"
                     "Velma Stroud, captain of the Grey Company, laughed. The Grey Company drank.\n\n"
                     "Later, Harbour lights burned. Nobody saw Tamsin.\n", encoding="utf-8")
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "inn", "--json",
                                             str(story))
    assert code == 0, err
    report = json.loads(out)
    # Named twice or more: people (and a company, a faction); once ("Tamsin"), or a word ("Harbour"): not.
    assert sorted(report["people"]) == ["Corin Ashe", "Grey Company", "Velma Stroud"]
    session = await _game(tmp_path, "inn")
    try:
        found = _relations(session)
        assert ("Corin Ashe", "Velma Stroud", "FEARS") in found and ("Velma Stroud", "Grey Company", "LEADS") in found
        company = next(n for n in session.graph.nodes.values() if n.name == "Grey Company")
        assert company.type == "faction"
    finally:
        await session.close()


@pytest.mark.parametrize(("content", "message"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "is a binary file, not a story"),
    (b"   \n\n\t\n", "is empty: there is no story to import"),
    ("Mira fears Tomas.".encode("utf-16"), "is not UTF-8 text"),
    (b"Caf\xe9 au lait, said Mira.", "is not UTF-8 text"),
    (b"x" * (MAX_STORY_BYTES + 1), "a story to import may be at most"),
    (b"# Only a heading\n\n---\n", "has no paragraph of story to import"),
])
def test_a_bad_file_is_refused_and_no_save_is_made(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   content: bytes, message: str) -> None:
    story = tmp_path / "story.md"
    story.write_bytes(content)
    code, _out, err = kith(tmp_path, capsys, "import-story", "--save", "bad", "--world", "brinefall", str(story))
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err
    saves = tmp_path / "saves"
    assert not saves.exists() or not any(saves.iterdir())


def test_an_existing_save_is_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "s.md"
    story.write_text("Hob Tarrant hates the Saltwrights' Guild.\n", encoding="utf-8")
    assert kith(tmp_path, capsys, "import-story", "--save", "s", "--world", "brinefall", str(story))[0] == 0
    before = (tmp_path / "saves" / "s.sqlite").read_bytes()
    code, _out, err = kith(tmp_path, capsys, "import-story", "--save", "s", "--world", "brinefall", str(story))
    assert code == 2 and "already exists" in err
    assert (tmp_path / "saves" / "s.sqlite").read_bytes() == before


def test_enrich_without_a_model_says_how_to_give_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "s.md"
    story.write_text("Hob Tarrant hates the Saltwrights' Guild.\n", encoding="utf-8")
    assert kith(tmp_path, capsys, "import-story", "--save", "s", "--world", "brinefall", str(story))[0] == 0
    code, _out, err = kith(tmp_path, capsys, "graph", "enrich", "--save", "s")
    assert code == 2 and "enrichment needs a model: give --base-url and --model" in err and "1 turn(s) wait" in err


async def test_import_then_enrich_with_a_model_replaces_the_fast_reading(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "s.md"
    story.write_text("Hob Tarrant hates the Saltwrights' Guild.\n", encoding="utf-8")
    hates = relation("Hob Tarrant", "Saltwrights' Guild", "HATES", -0.8, "Hob Tarrant has hated the Guild since the flood.")
    hates["evidence"] = "Hob Tarrant hates the Saltwrights' Guild."  # the model's World IR cites the story
    with ChatServer() as server:
        model_edge = edge("Hob Tarrant", "Saltwrights' Guild", "HATES", -0.8, hates["fact"])
        server.push(Text(json.dumps(ir(relations=[hates]))), ToolCalls([("upsert_npc_graph", {"edges": [model_edge]})]))
        code, out, err = await asyncio.to_thread(
            kith, tmp_path, capsys, "import-story", "--save", "s", "--world", "brinefall", "--enrich",
            "--base-url", server.base_url, "--model", "test-model", str(story))
    assert code == 0, err
    assert "Imported 1 turn(s)" in out and "turn 1: extracted (1 calls)" in out
    assert "Enriched 1 of 1 queued turn(s); 0 still queued." in out
    session = await _game(tmp_path, "s")
    try:
        hob = [e for e in session.graph.open_edges.values() if e.relation == "HATES"
               and session.graph.nodes[e.source].name == "Hob Tarrant"]
        assert [e.fact for e in hob] == [hates["fact"]]
        assert [(t.extracted, t.extraction) for t in await session.turns()] == [(True, "enriched")]
    finally:
        await session.close()


async def test_rebuild_without_a_model_leaves_an_imported_story_as_the_fast_path_read_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "s.md"
    story.write_text("Hob Tarrant hates the Saltwrights' Guild.\n", encoding="utf-8")
    assert (await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "s", "--world", "brinefall",
                                    str(story)))[0] == 0
    code, out, _err = await asyncio.to_thread(kith, tmp_path, capsys, "graph", "rebuild", "--save", "s")
    assert code == 1 and out.startswith("turn 1: imported from a story; only a model can read it again")
    session = await _game(tmp_path, "s")
    try:
        assert ("Hob Tarrant", "Saltwrights' Guild", "HATES") in _relations(session)
        assert [t.extraction for t in await session.turns()] == ["fast"]
    finally:
        await session.close()


KETTLE = ("# The Quay\n\nBram Kettle rolled a barrel up the quay. Bram Kettle fears Wenna Pike.\n\n"
          "Captain Kettle shouted from the deck. Wenna Pike laughed at him.\n\n"
          "Later, Captain Kettle slept.\n")


async def test_without_a_world_a_name_that_may_be_someone_found_before_is_a_question(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "quay.md"
    story.write_text(KETTLE, encoding="utf-8")
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "quay", "--json",
                                             str(story))
    assert code == 0, err
    report = json.loads(out)
    assert sorted(report["people"]) == ["Bram Kettle", "Captain Kettle", "Wenna Pike"]
    assert report["questions"] == ["Captain Kettle — is that Bram Kettle?"]
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "graph", "pending", "--save", "quay", "--json")
    (question,) = json.loads(out)["pending"]
    assert (question["newName"], question["candidate"], question["status"]) == ("Captain Kettle", "Bram Kettle", "open")
    assert 0.4 <= question["confidence"] < 0.8, "unsure: asked, never merged silently"
    # Played on, the story asks it at the next turn (the offline engine ends its narration with it).
    session = await _game(tmp_path, "quay")
    try:
        told = text_of(await collect(session, "look"))
        assert "Captain Kettle — is that Bram Kettle?" in told, told
        await collect(session, "undo")
    finally:
        await session.close()
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "graph", "resolve", "--save", "quay", question["id"], "yes")
    assert code == 0 and "merged" in out, err
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "graph", "pending", "--save", "quay", "--json")
    assert json.loads(out)["pending"] == []
    session = await _game(tmp_path, "quay")
    try:
        (bram,) = [n for n in session.graph.nodes.values() if "Kettle" in n.name]
        assert bram.name == "Bram Kettle" and "Captain Kettle" in bram.aliases
    finally:
        await session.close()
