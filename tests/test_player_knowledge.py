"""What the player knows of people: awareness in the scene, revelations from content, and the player's
views (map, node details, focus list, ``/graph``, ``kith graph map``) showing only that."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.ui import SIZE, make_app, play, settle
from hypothesis import given, settings
from hypothesis import strategies as st
from playthrough import Playthrough

from game.__main__ import main
from game.config import Settings, load_settings
from game.engine.events import MetaOutput, NarrationDone
from game.engine.player_view import player_view
from game.engine.session import GameSession
from game.errors import ContentError
from game.graph.map.known import known_graph
from game.world import load_world
from game.world.schema import CharacterDef, Effects, Revelation

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
CONTENT = Path(__file__).parent.parent / "content"
TURN_ZERO = {"npc-wren-tallis", "npc-hob-tarrant", "npc-ness-tallis"}


def brinefall_settings(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT, "world": "brinefall"},
                         env={})


async def told(session: GameSession, command: str) -> str:
    return "\n".join([e.text async for e in session.play_turn(command) if isinstance(e, NarrationDone | MetaOutput)])


def view_of(session: GameSession) -> tuple[dict[str, str], set[tuple[str, str, str]]]:
    """The player's map as (node id -> description shown, {(source, target, relation)})."""
    nodes, edges = known_graph(session.graph.nodes.values(), session.graph.open_edges.values(),
                               player_view(session.world, session.scene, session.graph))
    return {n.id: n.summary for n in nodes}, {(e.source, e.target, e.relation) for e in edges}


# ------------------------------------------------------------------------------------------- content

def test_a_revelation_extends_or_replaces_what_the_player_was_shown_in_the_order_learned() -> None:
    mira = CharacterDef(name="Mira", summary="Hid the ledger from Tomas.", public="Mends nets on the quay.",
                        revelations=[Revelation(key="ledger", text="She hid the ledger."),
                                     Revelation(key="truth", text="She is Tomas's sister.", mode="replace")])
    assert mira.seen_as([]) == "Mends nets on the quay."
    assert mira.seen_as(["ledger"]) == "Mends nets on the quay. She hid the ledger."
    assert mira.seen_as(["ledger", "truth"]) == "She is Tomas's sister."
    assert mira.seen_as(["truth", "ledger"]) == "She is Tomas's sister. She hid the ledger."
    assert CharacterDef(name="Tomas", summary="Hides it.").seen_as([]) == "Hides it.", "no public: the summary"


@pytest.fixture
def content(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(FIXTURES, target)
    return target


def _edit(content: Path, old: str, new: str) -> None:
    path = content / "tiny" / "characters.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _error(content: Path) -> str:
    with pytest.raises(ContentError) as caught:
        load_world(content, "tiny")
    return caught.value.message


def test_a_reveal_of_an_unknown_key_or_character_is_refused_at_load_with_a_hint(content: Path) -> None:
    _edit(content, '"Tobin:wants-post"', '"Tobin:want-post"')
    message = _error(content)
    assert "Tobin Hale has no revelation 'want-post' (did you mean 'wants-post'?)" in message
    _edit(content, '"Tobin:want-post"', '"Tobyn:wants-post"')
    assert "unknown character 'Tobyn'" in _error(content)
    _edit(content, '"Tobyn:wants-post"', '"wants-post"')
    assert 'should be "Character Name:key"' in _error(content)


def test_a_character_may_not_have_two_revelations_with_one_key(content: Path) -> None:
    _edit(content, 'mode = "extend"\n', 'mode = "extend"\n\n[[characters.revelations]]\nkey = "wants-post"\n'
          'text = "Said twice."\n')
    assert "Tobin Hale already has a revelation 'wants-post'" in _error(content)


def _every_effects(world_dir: Path) -> list[Effects]:
    world = load_world(world_dir.parent, world_dir.name)
    found: list[Effects] = [b.effects for b in world.beats] + [c.effects for c in world.commands]
    found += [i.on_take for i in world.items.values()]
    found += [f.effects for p in world.places.values() for f in p.features]
    for character in world.characters:
        found += [t.effects for t in character.topics] + [r.effects for r in character.reactions]
    return found


def test_every_brinefall_secret_has_a_public_face_and_is_revealed_somewhere() -> None:
    world = load_world(CONTENT, "brinefall")
    revealed = {r.rpartition(":")[::2] for e in _every_effects(CONTENT / "brinefall") for r in e.reveal}
    revealed_keys = {(world.canonical(name) or name, key) for name, key in revealed}
    for character in world.characters:
        assert character.public is not None, f"{character.name} has no public description"
        for revelation in character.revelations:
            assert (character.name, revelation.key) in revealed_keys, f"{character.name}:{revelation.key} never told"
    # The secrets the authored summaries hold are not in what the town says.
    public = {c.name: (c.public or "").casefold() for c in world.characters}
    assert "sluice" not in public["Aldous Crane"]
    assert "purse" not in public["Dace Merrow"]
    assert "loved" not in public["Isolde Kett"] and "ness" not in public["Isolde Kett"]
    assert "saw" not in public["Tibby Tarrant"]
    assert "cave" not in public["Eel Run"]
    assert "eel run" not in public["Maud Quaile"]


# ------------------------------------------------------------------------------------------- play

async def test_brinefall_at_turn_0_the_player_knows_themself_hob_ness_and_what_the_opening_says(
        tmp_path: Path) -> None:
    session = await GameSession.open(brinefall_settings(tmp_path), save="newcomer", new=True)
    try:
        nodes, edges = view_of(session)
        assert set(nodes) == TURN_ZERO
        assert edges == {("npc-ness-tallis", "npc-wren-tallis", "KIN_OF"),
                         ("npc-hob-tarrant", "npc-wren-tallis", "TRUSTS")}
        assert len(session.graph.nodes) == 18, "the graph itself holds everyone"
        known = session.scene.known
        assert known is not None and known["npc-hob-tarrant"].how == "met"
        assert known["npc-ness-tallis"].how == "heard" and known["npc-wren-tallis"].how == "met"
        assert await told(session, "talk to isolde") == "You don't know anyone by that name."
        # A refusal that would echo a stranger's name back ("There's no isolde here") does not.
        assert await told(session, "take isolde") == "You don't know anyone by that name."
        assert await told(session, "drop crane") == "You don't know anyone by that name."
        assert "npc-isolde-kett" not in view_of(session)[0] and "npc-aldous-crane" not in view_of(session)[0]
    finally:
        await session.close()


async def test_a_secret_appears_once_told_and_undo_rewinds_awareness_exactly(tmp_path: Path) -> None:
    session = await GameSession.open(brinefall_settings(tmp_path), save="secret", new=True)
    try:
        before = session.scene.model_dump(mode="json")["known"]
        nodes, _ = view_of(session)
        assert "Eel Run" not in nodes["npc-ness-tallis"]
        assert "Eel Run" in await told(session, "ask hob about ness")
        nodes, edges = view_of(session)
        assert nodes["npc-ness-tallis"].endswith("She ran brandy with the Eel Run through the sluice channel on "
                                                 "the dark tides.")
        assert "npc-eel-run" in nodes and ("npc-ness-tallis", "npc-eel-run", "MEMBER_OF") in edges
        assert session.scene.known is not None and session.scene.known["npc-ness-tallis"].revealed == [
            "ran-with-the-eels"]
        await told(session, "undo")
        assert session.scene.model_dump(mode="json")["known"] == before
        assert set(view_of(session)[0]) == TURN_ZERO
    finally:
        await session.close()


async def test_the_summary_an_author_wrote_is_never_what_the_player_is_shown_of_a_secret(tmp_path: Path) -> None:
    session = await GameSession.open(brinefall_settings(tmp_path), save="crane", new=True)
    try:
        for command in ("n", "n", "help fenn", "ask fenn about the ledger", "u"):
            await told(session, command)
        nodes, _ = view_of(session)
        crane = nodes.get("npc-aldous-crane")
        assert crane is not None, "Fenn named the steward"
        assert "sluice" not in crane and crane.startswith("Steward of the Saltwrights' Guild, precise and nervous")
        assert "private black ledger" in crane, "Fenn told of the ledger"
        assert "arranged the sluice opening" in session.graph.nodes["npc-aldous-crane"].summary, "the truth stays"
    finally:
        await session.close()


async def test_a_save_from_before_awareness_plays_and_shows_as_it_did() -> None:
    game = await Playthrough.start(load_world(CONTENT, "brinefall"))
    game.scene = game.scene.model_copy(update={"known": None})
    assert await game.play("talk to isolde") == "Kestrel isn't here."
    assert game.scene.known is None, "an old save stays an old save: the player knows everyone"


async def test_someone_the_narration_names_is_heard_of_and_the_cast_is_met() -> None:
    game = await Playthrough.start(load_world(CONTENT, "brinefall"))
    await game.play("ask hob about the flood")  # names Ambry and Pell
    known = game.scene.known
    assert known is not None
    assert known["npc-pell-garrow"].how == "heard" and known["npc-pell-garrow"].since_turn == 1
    assert "npc-ambry-garrow" in known and "npc-isolde-kett" not in known
    assert await game.play("talk to pell") == "Pell isn't here."
    await game.play("n")
    await game.play("e")  # the Gull and Lantern: Pell and Maud are on stage
    known = game.scene.known
    assert known is not None and known["npc-pell-garrow"].how == "met"
    assert known["npc-pell-garrow"].since_turn == 1, "met later, heard of first"


# ------------------------------------------------------------------------------------------- views

def _map(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main(["--saves-dir", str(tmp_path / "saves"), "graph", "map", "--save", "m", "--width", "100",
                 "--height", "30", "--color", "never", *extra]) == 0
    return capsys.readouterr().out


def new_save(tmp_path: Path, name: str) -> None:
    async def create() -> None:
        session = await GameSession.open(brinefall_settings(tmp_path), save=name, new=True)
        await session.close()

    asyncio.run(create())


def test_kith_graph_map_shows_the_players_view_unless_asked_for_all_or_someone_else(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new_save(tmp_path, "m")
    drawn = _map(tmp_path, capsys)
    assert "(Hob Tarrant)" in drawn and "(Ness Tallis)" in drawn and "(Wren Tallis)" in drawn
    assert "Crane" not in drawn and "Isolde" not in drawn and "Eel Run" not in drawn
    assert _map(tmp_path, capsys, "--as", "player") == drawn
    everything = _map(tmp_path, capsys, "--all")
    assert "Crane" in everything or "Aldous" in everything
    kestrel = _map(tmp_path, capsys, "--as", "Kestrel")
    # Kestrel knows her own relations and what the whole town knows; Wren is nothing to her yet.
    assert "Isolde Kett" in kestrel and "Eel Run" in kestrel and "Wren Tallis" not in kestrel
    assert main(["--saves-dir", str(tmp_path / "saves"), "graph", "map", "--save", "m", "--as", "Nobody"]) != 0
    assert "No character, group or faction called 'Nobody'" in capsys.readouterr().err


def test_a_graph_with_no_player_shows_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    call = tmp_path / "call.json"
    call.write_text(json.dumps({
        "nodes": [{"name": "Mira", "summary": "Keeps the ledger."}, {"name": "Tomas", "summary": "Hides it."}],
        "edges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS", "strength": 0.7,
                   "fact": "Mira trusts Tomas since the harbour fire."}]}), encoding="utf-8")
    assert main(["--saves-dir", str(tmp_path / "saves"), "graph", "upsert", "--save", "m", str(call)]) == 0
    capsys.readouterr()
    drawn = _map(tmp_path, capsys)
    assert "(Mira)" in drawn and "(Tomas)" in drawn and "TRUSTS" in drawn


async def test_the_map_pane_at_turn_0_shows_only_what_the_opening_says_then_a_secret_once_told(
        tmp_path: Path) -> None:
    app = make_app(tmp_path, brinefall_settings(tmp_path), save="pane")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        graph = app.map_pane.map
        assert set(graph.drawing.boxes) == TURN_ZERO
        assert {n.id for n in graph.nodes} == TURN_ZERO, "the focus list offers only these"
        graph.select("npc-ness-tallis")
        await settle(pilot)
        assert "Eel Run" not in app.map_pane.details.text
        await play(pilot, "ask hob about ness")
        assert "npc-eel-run" in graph.drawing.boxes
        graph.select("npc-ness-tallis")
        await settle(pilot)
        assert "She ran brandy with the Eel Run" in app.map_pane.details.text
        await play(pilot, "undo")
        assert set(graph.drawing.boxes) == TURN_ZERO


def test_an_old_save_keeps_the_whole_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new_save(tmp_path, "m")
    with sqlite3.connect(tmp_path / "saves" / "m.sqlite") as conn:
        conn.execute("UPDATE scenes SET state = json_remove(state, '$.known')")
    conn.close()
    drawn = _map(tmp_path, capsys)
    assert "Isolde Kett" in drawn or "Kestrel" in drawn or "Aldous Crane" in drawn


def test_known_graph_shows_each_thing_from_the_turn_it_was_learned() -> None:
    """Time travel in a knower's view: a person heard of at turn 3 is not on the map of turn 2, and a
    relation true since turn 0 but learned at turn 3 is drawn from turn 3 (an ended one, as ended)."""
    from game.graph.map.known import KnownView
    from game.graph.map.view import edge_open_at, select_view
    from game.graph.models import Edge, Node

    def node(node_id: str) -> Node:
        return Node(id=node_id, name=node_id.title(), type="individual", summary="Someone in the story.",
                    first_seen_turn=0, last_seen_turn=0)

    def edge(edge_id: str, invalid: int | None = None) -> Edge:
        return Edge(id=edge_id, source="a", target="b", relation="TRUSTS", strength=0.5,
                    fact="A has trusted B since the fire.", valid_at=0, invalid_at=invalid, evidence_turn_ids=[])

    view = KnownView(nodes={"a": 0, "b": 3}, edges={"e1": 3, "e2": 4}, summaries={"a": "What the town says."})
    nodes, edges = known_graph([node("a"), node("b"), node("c")], [edge("e1"), edge("e2", invalid=2), edge("e3")],
                               view)
    assert [n.id for n in nodes] == ["a", "b"] and nodes[0].summary == "What the town says."
    assert nodes[1].first_seen_turn == 3
    assert {e.id: (e.valid_at, e.invalid_at) for e in edges} == {"e1": (3, None), "e2": (2, 2)}
    assert not edge_open_at(edges[0], 2) and edge_open_at(edges[0], 3)
    assert [n.id for n in select_view(nodes, edges, width=60, height=20, at_turn=2).nodes] == ["a"]
    assert known_graph([node("c")], [], None)[0][0].id == "c", "no view: everything"


async def test_an_effect_that_says_the_player_now_knows_someone_makes_them_known(content: Path) -> None:
    _edit(content, 'effects = { relations = [{ source = "Edda Marsh", target = "player", relation = "TRUSTS", '
          'strength = 0.6', 'effects = { meet = ["Tobin"], relations = [{ source = "Edda Marsh", target = "player", '
          'relation = "TRUSTS", strength = 0.6')
    game = await Playthrough.start(load_world(content, "tiny"))
    assert game.scene.known is not None and "npc-tobin-hale" not in game.scene.known
    await game.play("help edda")
    known = game.scene.known
    assert known is not None and known["npc-tobin-hale"].how == "met" and known["npc-tobin-hale"].since_turn == 1
    assert await game.play("talk to tobin") == "Tobin isn't here."


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["met", "heard", "reveal"]), st.sampled_from(["a", "b", "c"]),
                          st.sampled_from(["k1", "k2"])), max_size=12))
def test_awareness_only_grows_and_met_is_never_forgotten(steps: list[tuple[str, str, str]]) -> None:
    """Whatever a player goes through, nobody is forgotten, met never falls back to heard, the turn one
    first knew of someone stays, and a revelation is learned once, in order."""
    from game.graph.models import Node
    from game.world import awareness

    known: dict[str, Any] = {}
    first: dict[str, int] = {}
    learned: dict[str, list[str]] = {}
    for turn, (how, who, key) in enumerate(steps, start=1):
        node = Node(id=who, name=who.upper(), type="individual", summary="Someone in the story.",
                    first_seen_turn=0, last_seen_turn=0)
        before = dict(known)
        if how == "met":
            awareness.meet(known, [node], turn)
        elif how == "heard":
            awareness.hear_of(known, [node], turn)
        else:
            awareness.reveal(known, node, key, turn)
            if key not in learned.setdefault(who, []):
                learned[who].append(key)
        first.setdefault(who, turn)
        assert set(before) <= set(known)
        assert all(known[i].how == "met" for i, a in before.items() if a.how == "met")
        assert known[who].since_turn == first[who]
        assert known[who].revealed == learned.get(who, [])
