"""Who knows what in play: a world's relations at turn 0, what the player is told, who sees a turn."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers.saves import SCHEMA
from playthrough import Playthrough

from game.errors import ContentError
from game.graph.knowing_terms import PUBLIC
from game.world import load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
CONTENT = Path(__file__).parent.parent / "content"


def knowers(game: Playthrough, source: str, target: str, relation: str) -> dict[str, tuple[str, str | None]]:
    """Knowers of the open relation by node name: how each knows it and who told them (by name)."""
    edge = game.open_relation(source, target, relation)
    assert edge is not None, f"no open {source} -> {target}: {relation}"
    names = {node.id: node.name for node in game.graph.nodes.values()}
    return {names.get(knower, knower): (row.how, names.get(row.source or "", row.source))
            for knower, row in game.graph.knowers_of(edge.id).items()}


async def test_brinefall_starts_with_each_relation_known_by_its_own_people() -> None:
    game = await Playthrough.start(load_world(CONTENT, "brinefall"))
    assert knowers(game, "Hob Tarrant", "player", "TRUSTS") == {
        "Hob Tarrant": ("authored", None), "Wren Tallis": ("authored", None)}
    player = game.node_id("player")
    assert player is not None
    # The player knows only the relations they are part of: the town's secrets are not theirs yet.
    known = {game.graph.open_edges[e].relation for e in game.graph.known_by(player) if e in game.graph.open_edges}
    assert "BRIBED" not in known and "COVERS_FOR" not in known


async def test_a_topic_tells_the_player_what_the_teller_knows() -> None:
    game = await Playthrough.start(load_world(CONTENT, "brinefall"))
    await game.play("ask hob about ness")
    assert knowers(game, "Ness Tallis", "Eel Run", "MEMBER_OF") == {
        "Ness Tallis": ("authored", None), "Hob Tarrant": ("witnessed", None),
        "Wren Tallis": ("told", "Hob Tarrant")}


async def test_a_turns_relations_are_witnessed_by_the_player_and_the_cast() -> None:
    game = await Playthrough.start(load_world(FIXTURES, "tiny"))
    await game.play("help edda")
    rows = knowers(game, "Edda Marsh", "player", "TRUSTS")
    assert rows["Edda Marsh"] == ("authored", None) and rows["Sam Reed"] == ("authored", None)


def tiny_with(tmp_path: Path, extra: str) -> Path:
    shutil.copytree(FIXTURES / "tiny", tmp_path / "tiny")
    with (tmp_path / "tiny" / "characters.toml").open("a", encoding="utf-8") as file:
        file.write(extra)
    return tmp_path


async def test_a_world_may_make_a_relation_public_or_a_secret_of_a_few(tmp_path: Path) -> None:
    content = tiny_with(tmp_path, """
[[relationships]]
source = "Tobin Hale"
target = "Lighthouse Board"
relation = "MEMBER_OF"
strength = 0.4
fact = "Tobin Hale wears the Board's badge, as the whole coast knows."
public = true

[[relationships]]
source = "Tobin Hale"
target = "Edda Marsh"
relation = "RIVAL_OF"
strength = -0.5
fact = "Tobin Hale wants Edda Marsh's post, and has told only the new keeper."
known_by = ["Tobin", "player"]
""")
    game = await Playthrough.start(load_world(content, "tiny"))
    assert knowers(game, "Tobin Hale", "Lighthouse Board", "MEMBER_OF") == {
        "Tobin Hale": ("authored", None), PUBLIC: ("authored", None)}
    assert knowers(game, "Tobin Hale", "Edda Marsh", "RIVAL_OF") == {
        "Tobin Hale": ("authored", None), "Sam Reed": ("authored", None)}


@pytest.mark.parametrize(("extra", "message"), [
    ('known_by = ["Nobody"]', re.escape("relationships[2].known_by[0]: unknown character 'Nobody'")),
    ('known_by = ["Lighthouse Board"]', "only individuals know things"),
])
def test_a_world_naming_a_stranger_or_a_faction_as_knower_is_refused(tmp_path: Path, extra: str, message: str) -> None:
    content = tiny_with(tmp_path, f"""
[[relationships]]
source = "Tobin Hale"
target = "Edda Marsh"
relation = "KNOWS"
strength = 0.3
fact = "Tobin Hale and Edda Marsh have known each other for years."
{extra}
""")
    with pytest.raises(ContentError, match=message):
        load_world(content, "tiny")


def test_a_world_whose_strength_contradicts_the_relation_is_refused(tmp_path: Path) -> None:
    content = tiny_with(tmp_path, """
[[relationships]]
source = "Tobin Hale"
target = "Edda Marsh"
relation = "FEARS"
strength = 0.6
fact = "Tobin Hale is afraid of Edda Marsh's temper."
""")
    with pytest.raises(ContentError, match=r"relationships\[2\]\.strength: FEARS is a negative relation"):
        load_world(content, "tiny")


async def test_those_on_stage_learn_what_happens_in_front_of_them_and_no_one_else_does() -> None:
    game = await Playthrough.start(load_world(CONTENT, "brinefall"))
    await game.play("n")
    assert game.scene.cast == ["Lise Brack", "Dace Merrow"]
    await game.play("threaten lise")
    rows = knowers(game, "Lise Brack", "player", "DISTRUSTS")
    # Merrow, beside her, saw it: he did not hear it from her (issue 23).
    assert rows == {"Lise Brack": ("authored", None), "Wren Tallis": ("authored", None),
                    "Dace Merrow": ("witnessed", None)}


async def test_within_a_turn_a_contradiction_already_reads_as_closing_what_it_excludes() -> None:
    from game.story.relations import RelationView

    world = load_world(FIXTURES, "tiny")
    game = await Playthrough.start(world)
    await game.play("help edda")
    view = RelationView(world, game.graph)
    assert await view.strength("Edda Marsh", "Sam Reed", "TRUSTS") == 0.6
    view.record("Edda Marsh", "Sam Reed", "DISTRUSTS", -0.5)
    assert await view.strength("Edda Marsh", "Sam Reed", "TRUSTS") is None
    assert await view.strength("Edda Marsh", "Sam Reed", "DISTRUSTS") == -0.5
    view.record("Sam Reed", "Edda Marsh", "DISTRUSTS", -0.2)  # the other way round closes nothing of hers
    assert await view.strength("Edda Marsh", "Sam Reed", "DISTRUSTS") == -0.5


async def dump(path: Path) -> tuple[object, ...]:
    """The whole save as undo must restore it: nodes, every edge version, every knower, the turn."""
    from game.store.database import SaveDatabase

    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        return ([n.to_json_dict() for n in await db.graph.all_nodes()], [e.to_json_dict() for e in await db.graph.all_edges()],
                [k.to_json_dict() for k in await db.graph.all_knowings()], await db.current_turn())


async def test_undo_of_turns_that_taught_people_restores_the_whole_save(tmp_path: Path) -> None:
    from game.config import load_settings
    from game.engine.session import GameSession

    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT}, env={})
    session = await GameSession.open(settings, save="game", new=True, world="brinefall")
    path = tmp_path / "saves" / "game.sqlite"
    try:
        dumps = [await dump(path)]
        for command in ("ask hob about ness", "n", "threaten lise"):
            [_ async for _ in session.play_turn(command)]
            dumps.append(await dump(path))
        assert len(dumps[3][2]) > len(dumps[2][2]) > len(dumps[0][2])  # each teaching turn added knowers
        for expected in reversed(dumps[:-1]):
            [_ async for _ in session.play_turn("undo")]
            assert await dump(path) == expected
        # The session's memory follows the save: it knows exactly the knowers the save holds.
        in_memory = sorted((k.to_json_dict() for k in session.graph.all_knowings()),
                           key=lambda k: (k["edgeId"], k["knower"]))
        assert in_memory == dumps[0][2]
    finally:
        await session.close()


async def test_a_turn_whose_memory_is_rebuilt_later_is_still_known_to_the_player(tmp_path: Path) -> None:
    from game.config import load_settings
    from game.engine.session import GameSession
    from game.graph.upsert import UpsertExecution
    from game.narrator.base import ExtractionReport, NarrationRequest, NarrationResult
    from game.narrator.offline import OfflineNarrator

    class NoMemory(OfflineNarrator):
        broken = True

        async def extract(self, request: NarrationRequest, result: NarrationResult,
                          execution: UpsertExecution) -> ExtractionReport:
            if self.broken:
                return ExtractionReport(extracted=False, message="the model never called a tool")
            return await super().extract(request, result, execution)

    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT}, env={})
    narrator = NoMemory(load_world(CONTENT, "brinefall"))
    session = await GameSession.open(settings, save="game", new=True, world="brinefall", narrator=narrator)
    try:
        [_ async for _ in session.play_turn("ask hob about ness")]
        narrator.broken = False
        assert (await session.reextract_pending())[0].startswith("turn 1: extracted")
        member = next(e for e in session.graph.open_edges.values() if e.relation == "MEMBER_OF"
                      and session.graph.nodes[e.source].name == "Ness Tallis")
        player = next(iter(session.graph.player_ids))
        row = session.graph.knowers_of(member.id)[player]
        assert (row.how, row.source) == ("told", "npc-hob-tarrant")
    finally:
        await session.close()


def test_the_world_ir_carries_who_knows_a_relation_to_the_upsert_and_keeps_it_out_of_the_model_schema() -> None:
    from game.narrator.ir_extract import world_ir_calls
    from game.world.ir import IRRelation, WorldIR

    ir = WorldIR(relations=[
        IRRelation(source="Hob", target="Wren", relation="TRUSTS", strength=0.5, fact="Hob trusts Wren again.",
                   told_by="Tibby", known_by=["Hob", "Wren"], public=True),
        IRRelation(source="Hob", target="Tibby", relation="KIN_OF", strength=0.9, fact="Hob is Tibby's grandfather."),
    ])
    edges = [edge for call in world_ir_calls(ir, 3) for edge in call.get("edges", [])]
    assert edges[0] == {"sourceName": "Hob", "targetName": "Wren", "relation": "TRUSTS", "strength": 0.5,
                          "fact": "Hob trusts Wren again.", "knownBy": ["Hob", "Wren"], "public": True,
                          "toldBy": "Tibby"}
    assert set(edges[1]) == {"sourceName", "targetName", "relation", "strength", "fact"}
    schema = IRRelation.model_json_schema(by_alias=True)
    assert not {"knownBy", "public", "toldBy"} & set(schema["properties"])
