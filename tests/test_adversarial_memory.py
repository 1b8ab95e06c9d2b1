"""What a story's graph may be talked into (issue 21, the memory-integrity items), against Brinefall.

A model's World IR may state relations and their endings, checked like any other; it never writes
attitudes, memories or knowledge itself. And however many endings a text claims, through whichever path
reads it (a model turn, the fast path after a World IR that is not JSON, ``import-story``, ``graph
extract --apply``), one rule holds them: at most three a turn, and none of the world's own relations on
a sentence of narration alone. The same holds for a relation turned to its opposite ("X distrusts Y" of
a TRUSTS), which ends it by replacing it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Text, ToolCalls
from helpers.saves import SCHEMA
from llm_helpers import (
    edge,
    execution,
    ir,
    llm_settings,
    narrator,
    open_relations,
    relation,
    request,
    seeded_graph,
    tiny_world,
)

from game.__main__ import main
from game.cli.graph_attitude import attitude_json
from game.config import Settings
from game.engine.events import Event, Notice, TurnCommitted
from game.engine.session import GameSession
from game.graph.index import GraphIndex
from game.narrator.base import NarrationResult
from game.narrator.llm.narrator import OpenAINarrator
from game.store.database import SaveDatabase
from game.world import World, load_world
from game.world.ir import WorldIR

CONTENT = Path(__file__).resolve().parent.parent / "content"
REPAIRS = 1
SIX = ["Hob Tarrant", "Tibby Tarrant", "Lise Brack", "Dace Merrow", "Maud Quaile", "Orla Vance"]


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.fixture(scope="module")
def brinefall() -> World:
    return load_world(CONTENT, "brinefall")


def _settings(tmp_path: Path, server: ChatServer) -> Settings:
    return Settings(world="brinefall", content_dir=CONTENT, saves_dir=tmp_path / "saves",
                    llm=llm_settings(server.base_url, extraction="world-ir", repair_attempts=REPAIRS))


async def _session(settings: Settings, world: World) -> GameSession:
    teller = OpenAINarrator(settings.llm, world, env={})
    return await GameSession.open(settings, save="game", new=True, world="brinefall", narrator=teller)


async def _play(session: GameSession, text: str) -> list[Event]:
    return [event async for event in session.play_turn(text)]


def _book(session: GameSession) -> dict[str, Any]:
    return {npc: attitude_json(a) for npc, a in sorted(session.attitudes.book.stored.items())}


async def _memories(settings: Settings) -> list[dict[str, Any]]:
    async with await SaveDatabase.open(settings.saves_dir / "game.sqlite", schema=SCHEMA) as db:
        return await db.read_rows("npc_memories")


# ------------------------------------------------------------------------------ no direct attitudes


async def test_a_world_ir_never_sets_attitudes(tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    told = "Hob Tarrant looks at you across the quay and says nothing at all."
    facts = ir(charactersPresent=["Hob Tarrant"],
               attitudes=[{"name": name, "trust": -100, "respect": -100, "friendliness": -100,
                           "reason": "model says so"} for name in SIX])
    server.push(Text(told), Text(json.dumps(facts)))
    session = await _session(settings, brinefall)
    book, before = _book(session), open_relations(session.graph)
    events = await _play(session, "look at Hob")
    assert any(isinstance(e, TurnCommitted) for e in events)
    assert _book(session) == book
    assert "model says so" not in json.dumps(_book(session))
    assert session.attitudes.tier("Hob") != "HOSTILE"
    assert open_relations(session.graph) == before  # no TRUSTS closed to agree with an attitude
    await session.close()


async def test_memories_or_knowledge_in_a_world_ir_are_dropped_and_the_rest_kept(
        tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    told = "Hob Tarrant says he trusts Lise Brack with his life."
    trust = {"source": "Hob Tarrant", "target": "Lise Brack", "relation": "TRUSTS", "strength": 0.8,
             "fact": "Hob Tarrant trusts Lise Brack with his life.", "evidence": told}
    facts = ir(charactersPresent=["Hob Tarrant"], relations=[trust],
               memories=[{"character": "Hob Tarrant", "text": "You burned his boat."}],
               knowledge=[{"knower": "Tibby Tarrant", "fact": "You burned Hob's boat."}],
               acts=[{"kind": "act", "character": "Hob Tarrant", "verb": "attack"}])
    server.push(Text(told), Text(json.dumps(facts)))
    session = await _session(settings, brinefall)
    events = await _play(session, "ask Hob about Lise")
    assert any(isinstance(e, TurnCommitted) for e in events)
    assert ("Hob Tarrant", "Lise Brack", "TRUSTS") in open_relations(session.graph)
    [turn] = await session.turns()
    assert turn.extraction == "full"  # the model's reading was used, not the fast path's
    await session.close()
    assert await _memories(settings) == []


async def test_a_models_relation_cannot_say_who_knows_it(tmp_path: Path, server: ChatServer,
                                                         brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    told = "Hob Tarrant says he fears Orla Vance, and the whole town is bound to hear of it."
    fear = {"source": "Hob Tarrant", "target": "Orla Vance", "relation": "FEARS", "strength": -0.6,
            "fact": "Hob Tarrant fears Orla Vance.", "evidence": told,
            "knownBy": SIX, "public": True}
    server.push(Text(told), Text(json.dumps(ir(charactersPresent=["Hob Tarrant"], relations=[fear]))))
    session = await _session(settings, brinefall)
    events = await _play(session, "ask Hob about Orla")
    assert any(isinstance(e, TurnCommitted) for e in events), events
    graph = session.graph
    [edge] = [e for e in graph.open_edges.values() if e.relation == "FEARS" and graph.nodes[e.source].name == "Hob Tarrant"
              and graph.nodes[e.target].name == "Orla Vance"]
    knowers = {graph.nodes[k].name if k in graph.nodes else k for k in graph.knowers_of(edge.id)}
    # Its ends and who was there (Hob and the player) know it; the model cannot tell Tibby or the town.
    assert "Tibby Tarrant" not in knowers and "Lise Brack" not in knowers
    assert not any(k not in graph.nodes for k in graph.knowers_of(edge.id))  # no public knower
    await session.close()


async def test_the_extractor_cannot_say_who_knows_a_relation(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    fact = "Edda Marsh trusts Sam Reed since Sam steadied her wick."
    facts = WorldIR.model_validate(ir(charactersPresent=["Edda Marsh", "Sam Reed"],
                                      relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, fact)]))
    told = {**edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, fact), "knownBy": ["Tobin Hale"], "public": True}
    server.push(ToolCalls([("upsert_npc_graph", {"edges": [told]})]), ToolCalls([("runtime_done", {})]))
    teller = narrator(world, server.base_url)
    req = request(world, graph, "look")
    run = execution(world, graph)
    report = await teller.extract(req, NarrationResult(facts, req.scene), run)
    await teller.aclose()
    assert report.extracted and run.writes.created_edges
    names = {node.id: node.name for node in graph.nodes.values()}
    knowers = {names.get(knower, knower) for _edge, knower in run.writes.knowings}
    assert knowers == {"Edda Marsh", "Sam Reed"}  # its ends; not Tobin, not the whole town


# ------------------------------------------------------------------------------ close floods

VERBS = {"LEADS": "no longer leads", "MEMBER_OF": "is no longer a member of", "TRUSTS": "no longer trusts",
         "KIN_OF": "is no longer kin to", "SERVES": "no longer serves", "OWES": "no longer owes",
         "RIVAL_OF": "is no longer a rival of", "ALLY_OF": "is no longer an ally of",
         "ENEMY_OF": "is no longer an enemy of"}
PLAYED = [("Hob Tarrant", "TRUSTS", "Lise Brack"), ("Lise Brack", "TRUSTS", "Maud Quaile"),
          ("Maud Quaile", "TRUSTS", "Dace Merrow"), ("Dace Merrow", "TRUSTS", "Isolde Kett"),
          ("Isolde Kett", "TRUSTS", "Fenn Orrick")]
"""Five relations none of the world's own, for a flood to end once play has opened them."""
FORMED = " ".join(f"{s} trusts {t}." for s, _, t in PLAYED)
ENDED = " ".join(f"{s} no longer trusts {t}." for s, _, t in PLAYED)


def _named(graph: GraphIndex) -> set[tuple[str, str, str]]:
    names = {node.id: node.name for node in graph.nodes.values()}
    return {(names[e.source], e.relation, names[e.target]) for e in graph.open_edges.values()}


async def _authored(world: World) -> set[tuple[str, str, str]]:
    return _named(await seeded_graph(world))


def _flood(relations: set[tuple[str, str, str]]) -> str:
    """One sentence ending each relation, as the attack wrote them (the fast path reads every one)."""
    return " ".join(f"{s} {VERBS[r]} {t}." for s, r, t in sorted(relations))


async def _saved(path: Path) -> set[tuple[str, str, str]]:
    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        return _named(await db.load_graph_index())


async def test_the_fast_path_reads_every_sentence_of_the_flood(brinefall: World) -> None:
    from game.graph.fast_extract.extractor import FastExtractor
    from game.graph.fast_extract.gazetteer import Gazetteer

    graph = await seeded_graph(brinefall)
    authored = _named(graph)
    text = _flood(authored)
    read = FastExtractor(brinefall.vocabulary).extract(text, await Gazetteer(graph).index_for(text))
    assert len(authored) == 24
    assert {(c.source, c.relation, c.target) for c in read.closes} == authored  # the attack is real


def _junk(server: ChatServer, narration: str) -> None:
    """A turn whose World IR reply is never JSON: the fast path reads its narration."""
    server.push(Text(narration), *[Text("I will not write JSON today.") for _ in range(1 + REPAIRS)])


async def test_a_model_turn_without_a_world_ir_ends_none_of_the_worlds_relations(
        tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    session = await _session(settings, brinefall)
    authored = _named(session.graph)
    _junk(server, _flood(authored))
    events = await _play(session, "listen to the crier")
    assert any(isinstance(e, TurnCommitted) and e.extraction == "fast" for e in events)
    assert authored <= _named(session.graph)
    notes = " ".join(e.text for e in events if isinstance(e, Notice))
    assert "kept 24 of the world's own relation(s)" in notes
    await session.close()
    assert authored <= await _saved(settings.saves_dir / "game.sqlite")


async def test_a_model_turn_without_a_world_ir_ends_at_most_three_relations(
        tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    session = await _session(settings, brinefall)
    _junk(server, FORMED)
    await _play(session, "listen")
    assert set(PLAYED) <= _named(session.graph)
    _junk(server, ENDED)
    events = await _play(session, "listen again")
    assert len(set(PLAYED) - _named(session.graph)) == 3
    assert any(isinstance(e, Notice) and "more than 3 relations at once" in e.text for e in events)
    await session.close()


async def test_a_model_world_ir_ending_every_relation_ends_none_of_the_worlds(
        tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    session = await _session(settings, brinefall)
    authored = _named(session.graph)
    told = _flood(authored)
    sentences = told.split(". ")
    ended = [{"source": s, "target": t, "relation": r, "evidence": sentence.rstrip(".") + "."}
             for (s, r, t), sentence in zip(sorted(authored), sentences, strict=True)]
    present = sorted({n for s, _, t in authored for n in (s, t)} & {*SIX, "Aldous Crane", "Pell Garrow"})
    server.push(Text(told), Text(json.dumps(ir(charactersPresent=present, endedRelations=ended[:20]))))
    events = await _play(session, "listen to the crier")
    assert any(isinstance(e, TurnCommitted) and e.extraction == "full" for e in events)
    assert authored <= _named(session.graph)
    await session.close()


async def test_the_players_own_act_may_end_a_worlds_relation(tmp_path: Path, server: ChatServer,
                                                            brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    session = await _session(settings, brinefall)
    _junk(server, _flood(await _authored(brinefall)))
    await _play(session, "tell Isolde Kett that the Eel Run is finished")
    after = _named(session.graph)
    ended = await _authored(brinefall) - after
    # Only relations of someone the player acted on (Isolde, the Eel Run), three at most; the rest stand.
    assert ("Isolde Kett", "LEADS", "Eel Run") in ended and len(ended) == 3
    assert all({"Isolde Kett", "Eel Run"} & {s, t} for s, _, t in ended)
    await session.close()


def _kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--saves-dir", str(tmp_path / "saves"), *args])
    out, err = capsys.readouterr()
    return code, out, err


async def test_import_story_ends_none_of_the_worlds_relations_and_at_most_three_a_turn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], brinefall: World) -> None:
    authored = await _authored(brinefall)
    story = tmp_path / "flood.md"
    story.write_text(f"{_flood(authored)}\n\n{FORMED}\n\n{ENDED}\n", encoding="utf-8")
    code, _out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "import-story", "--save", "flood",
                                              "--world", "brinefall", str(story))
    assert code == 0, err
    after = await _saved(tmp_path / "saves" / "flood.sqlite")
    assert authored <= after
    assert len(set(PLAYED) - after) == 3


async def test_graph_extract_apply_ends_none_of_the_worlds_relations_and_at_most_three(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], server: ChatServer, brinefall: World) -> None:
    session = await _session(_settings(tmp_path, server), brinefall)
    await session.close()
    authored = await _authored(brinefall)
    save = tmp_path / "saves" / "game.sqlite"
    for turn, text in (("1", _flood(authored)), ("1", FORMED), ("2", ENDED)):
        source = tmp_path / f"text-{turn}.txt"
        source.write_text(text, encoding="utf-8")
        code, out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "graph", "extract", "--save", "game",
                                                 "--apply", "--turn", turn, str(source))
        assert code == 0, err
    assert authored <= await _saved(save)
    assert len(set(PLAYED) - await _saved(save)) == 3
    assert "more than 3 relations at once" in out


def _endings(relations: set[tuple[str, str, str]]) -> tuple[str, list[dict[str, Any]], list[str]]:
    """The flood as a model would state it: the narration, one World IR ending per sentence (the 20 the
    IR may hold), and everyone it names."""
    told = _flood(relations)
    ended = [{"source": s, "target": t, "relation": r, "evidence": f"{s} {VERBS[r]} {t}."}
             for s, r, t in sorted(relations)][:20]
    return told, ended, sorted({n for e in ended for n in (e["source"], e["target"])})


async def test_the_model_extractor_ends_none_of_the_worlds_relations(tmp_path: Path, server: ChatServer,
                                                                     brinefall: World) -> None:
    settings = Settings(world="brinefall", content_dir=CONTENT, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url, extraction="tools"))
    session = await _session(settings, brinefall)
    authored = _named(session.graph)
    told, ended, present = _endings(authored)
    closes = [{"sourceName": e["source"], "targetName": e["target"], "relation": e["relation"]} for e in ended[:3]]
    server.push(Text(told), Text(json.dumps(ir(charactersPresent=present, endedRelations=ended))),
                ToolCalls([("upsert_npc_graph", {"closeEdges": closes})]), ToolCalls([("runtime_done", {})]))
    events = await _play(session, "listen to the crier")
    assert any(isinstance(e, TurnCommitted) and e.extraction == "full" for e in events)
    assert authored <= _named(session.graph)
    await session.close()


async def test_enrichment_by_a_model_ends_none_of_the_worlds_relations(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], server: ChatServer, brinefall: World) -> None:
    authored = await _authored(brinefall)
    told, ended, present = _endings(authored)
    story = tmp_path / "flood.md"
    story.write_text(f"{told}\n", encoding="utf-8")
    code, _out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "import-story", "--save", "game",
                                              "--world", "brinefall", str(story))
    assert code == 0, err
    settings = _settings(tmp_path, server)
    server.push(Text(json.dumps(ir(charactersPresent=present, endedRelations=ended))))
    session = await GameSession.open(settings, save="game", narrator=OpenAINarrator(settings.llm, brinefall, env={}))
    try:
        readings = [reading async for reading in session.enrich()]
        assert readings and all(reading.ok for reading in readings), [r.line for r in readings]
        assert authored <= _named(session.graph)
    finally:
        await session.close()
    assert authored <= await _saved(settings.saves_dir / "game.sqlite")


async def test_the_games_own_attitude_rule_still_ends_a_relation_toward_the_player(brinefall: World) -> None:
    from game.graph.endings import ReadEndings
    from game.graph.ports import GraphWrites
    from game.graph.rule_calls import apply_rule_call
    from game.graph.upsert import UpsertExecution

    graph = await seeded_graph(brinefall)
    assert ("Hob Tarrant", "TRUSTS", "Wren Tallis") in _named(graph)
    run = UpsertExecution(graph, brinefall.vocabulary, 1, endings=ReadEndings("look"))
    # Hob turned hostile: the tier's agreement is the game's rule, not a reading of text, and not held.
    call = {"closeEdges": [{"sourceName": "Hob Tarrant", "targetName": "Wren Tallis", "relation": "TRUSTS"}]}
    writes = await apply_rule_call(run, GraphWrites(), call)
    graph.apply(writes)
    assert ("Hob Tarrant", "TRUSTS", "Wren Tallis") not in _named(graph)


# ------------------------------------------------------------------------------ contradiction floods
# The same attack told as opposites: "X distrusts Y" of every TRUSTS ends it by replacing it. Brinefall's
# world holds five relations with an opposite (two TRUSTS, two ALLY_OF, an ENEMY_OF); each path below keeps
# them all, and replaces at most three of the relations play opened.

OPPOSITES = {"TRUSTS": ("DISTRUSTS", -0.5, "distrusts"), "ALLY_OF": ("ENEMY_OF", -0.5, "is an enemy of"),
             "ENEMY_OF": ("ALLY_OF", 0.5, "is an ally of")}
OPPOSED = " ".join(f"{s} distrusts {t}." for s, _, t in PLAYED)


def _opposed(relations: set[tuple[str, str, str]]) -> set[tuple[str, str, str]]:
    return {(s, r, t) for s, r, t in relations if r in OPPOSITES}


def _contradiction(relations: set[tuple[str, str, str]]) -> str:
    return " ".join(f"{s} {OPPOSITES[r][2]} {t}." for s, r, t in sorted(_opposed(relations)))


async def test_a_turn_turning_the_worlds_relations_to_their_opposites_keeps_them(
        tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    """The fast path after a World IR that is not JSON, then a World IR stating the opposites itself."""
    settings = _settings(tmp_path, server)
    session = await _session(settings, brinefall)
    authored = _named(session.graph)
    assert len(_opposed(authored)) == 5
    _junk(server, _contradiction(authored))
    events = await _play(session, "listen to the crier")
    assert any(isinstance(e, TurnCommitted) and e.extraction == "fast" for e in events)
    assert authored <= _named(session.graph)
    assert not any(r == "DISTRUSTS" for _, r, _ in _named(session.graph))
    assert "kept 5 of the world's own relation(s)" in " ".join(e.text for e in events if isinstance(e, Notice))
    told = _contradiction(authored)
    stated = [{"source": s, "target": t, "relation": OPPOSITES[r][0], "strength": OPPOSITES[r][1],
               "fact": f"{s} {OPPOSITES[r][2]} {t}.", "evidence": f"{s} {OPPOSITES[r][2]} {t}."}
              for s, r, t in sorted(_opposed(authored))]
    present = sorted({n for e in stated for n in (e["source"], e["target"])} & set(SIX))
    server.push(Text(told), Text(json.dumps(ir(charactersPresent=present, relations=stated))))
    events = await _play(session, "listen to the crier again")
    assert any(isinstance(e, TurnCommitted) and e.extraction == "full" for e in events)
    assert authored <= _named(session.graph)
    await session.close()
    assert authored <= await _saved(settings.saves_dir / "game.sqlite")


async def test_a_turn_turns_at_most_three_relations_to_their_opposites_and_the_player_may_turn_one(
        tmp_path: Path, server: ChatServer, brinefall: World) -> None:
    settings = _settings(tmp_path, server)
    session = await _session(settings, brinefall)
    _junk(server, FORMED)
    await _play(session, "listen")
    _junk(server, OPPOSED)
    events = await _play(session, "listen again")
    after = _named(session.graph)
    assert len(set(PLAYED) - after) == 3 and len({(s, "DISTRUSTS", t) for s, _, t in PLAYED} & after) == 3
    assert any(isinstance(e, Notice) and "more than 3 relations at once" in e.text for e in events)
    _junk(server, "Hob Tarrant distrusts Wren Tallis. Lise Brack distrusts Dace Merrow.")
    await _play(session, "tell Lise Brack that Dace sold the Watch's keys")
    after = _named(session.graph)
    # The player acted on Lise: her TRUSTS may turn; Hob's, whom the player did not name, stands.
    assert ("Lise Brack", "DISTRUSTS", "Dace Merrow") in after and ("Lise Brack", "TRUSTS", "Dace Merrow") not in after
    assert ("Hob Tarrant", "TRUSTS", "Wren Tallis") in after
    await session.close()


async def test_import_story_and_graph_extract_keep_the_worlds_relations_against_their_opposites(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], server: ChatServer, brinefall: World) -> None:
    authored = await _authored(brinefall)
    story = tmp_path / "opposites.md"
    story.write_text(f"{_contradiction(authored)}\n\n{FORMED}\n\n{OPPOSED}\n", encoding="utf-8")
    code, _out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "import-story", "--save", "opposites",
                                              "--world", "brinefall", str(story))
    assert code == 0, err
    after = await _saved(tmp_path / "saves" / "opposites.sqlite")
    assert authored <= after and len(set(PLAYED) - after) == 3
    session = await _session(_settings(tmp_path, server), brinefall)
    await session.close()
    save = tmp_path / "saves" / "game.sqlite"
    for turn, text in (("1", _contradiction(authored)), ("1", FORMED), ("2", OPPOSED)):
        source = tmp_path / f"text-{turn}.txt"
        source.write_text(text, encoding="utf-8")
        code, out, err = await asyncio.to_thread(_kith, tmp_path, capsys, "graph", "extract", "--save", "game",
                                                 "--apply", "--turn", turn, str(source))
        assert code == 0, err
    after = await _saved(save)
    assert authored <= after and len(set(PLAYED) - after) == 3
    assert "more than 3 relations at once" in out
