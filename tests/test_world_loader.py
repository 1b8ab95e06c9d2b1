"""Loading worlds: a good world loads; every kind of bad file fails naming its file and field path."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from game.errors import ContentError
from game.graph.index import GraphIndex
from game.graph.upsert import UpsertExecution
from game.world import list_worlds, load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """A writable copy of the fixture worlds, laid out like ``content/``."""
    target = tmp_path / "content"
    shutil.copytree(FIXTURES, target)
    return target


def edit(content: Path, file: str, old: str, new: str) -> None:
    path = content / "tiny" / file
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture changed: {old!r} not in {file}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def error_of(content: Path, world: str = "tiny") -> str:
    with pytest.raises(ContentError) as caught:
        load_world(content, world)
    message = caught.value.message
    assert "Traceback" not in message
    return message


def test_tiny_world_loads_with_its_parts() -> None:
    world = load_world(FIXTURES, "tiny")
    assert world.id == "tiny"
    assert world.title == "The Lamp Room"
    assert world.player_name == "Sam Reed"
    assert [c.name for c in world.characters] == ["Edda Marsh", "Tobin Hale", "Lighthouse Board"]
    assert world.character("the keeper") is world.character("EDDA")
    assert world.character("the board") is not None and world.character("the board").type == "faction"
    assert world.place("lamp") is not None and world.place("lamp").exits == {"down": "stair"}
    assert world.ending_titles == {"lit": "The Lamp Burns"}
    assert world.vocabulary.normalize("works for").name == "SERVES"


def test_initial_scene_places_everyone() -> None:
    scene = load_world(FIXTURES, "tiny").initial_scene()
    assert scene.location == "stair"
    assert scene.cast == ["Edda Marsh"]
    assert scene.inventory == ["coin"]
    assert scene.visited == ["stair"]
    assert scene.story.positions == {"Edda Marsh": "stair", "Tobin Hale": "lamp"}


async def test_initial_graph_calls_seed_characters_player_and_relations() -> None:
    world = load_world(FIXTURES, "tiny")
    graph = GraphIndex()
    execution = UpsertExecution(graph, world.vocabulary, 0, rng=random.Random(0))
    for call in world.initial_graph_calls():
        assert len(call.get("nodes", [])) <= 8 and len(call.get("edges", [])) <= 12
        outcome = await execution.run(call)
        assert outcome.error is None, outcome.error
    graph.apply(execution.writes)
    by_name = {n.name: n for n in graph.nodes.values()}
    assert set(by_name) == {"Sam Reed", "Edda Marsh", "Tobin Hale", "Lighthouse Board"}
    assert by_name["Sam Reed"].attributes == {"player": True}
    assert by_name["Lighthouse Board"].type == "faction"
    relations = {(graph.nodes[e.source].name, graph.nodes[e.target].name, e.relation) for e in graph.open_edges.values()}
    assert relations == {("Tobin Hale", "Edda Marsh", "SERVES"), ("Edda Marsh", "Lighthouse Board", "MEMBER_OF")}


def test_toml_syntax_error_names_file_and_line(content: Path) -> None:
    edit(content, "characters.toml", 'summary = "The keeper', 'summary "The keeper')
    message = error_of(content)
    assert message.startswith("content/tiny/characters.toml: line 46, column 9: ")
    assert "TOML syntax error" in message


def test_missing_field_names_the_path(content: Path) -> None:
    edit(content, "characters.toml", 'reply = "\\"It wants lighting', 'replied = "\\"It wants lighting')
    message = error_of(content)
    assert "content/tiny/characters.toml: characters[0].topics[0].reply: Field required" in message
    assert "characters[0].topics[0].replied: unknown field (did you mean 'reply'?)" in message


def test_wrong_type_names_the_path_and_value(content: Path) -> None:
    edit(content, "characters.toml", "strength = 0.5", 'strength = "strong"')
    message = error_of(content)
    assert message.startswith("content/tiny/characters.toml: relationships[0].strength: Input should be a valid number")
    assert "'strong'" in message


def test_out_of_range_strength_is_refused(content: Path) -> None:
    edit(content, "characters.toml", "strength = 0.5", "strength = 1.5")
    assert "relationships[0].strength: Input should be less than or equal to 1" in error_of(content)


def test_unknown_top_level_table_is_reported(content: Path) -> None:
    edit(content, "world.toml", "[[endings]]", "[[ending]]")
    assert "content/tiny/world.toml: ending: unknown field (did you mean 'endings'?)" in error_of(content)


def test_unknown_exit_target(content: Path) -> None:
    edit(content, "world.toml", 'exits = { up = "lamp" }', 'exits = { up = "lamb" }')
    assert error_of(content) == (
        "content/tiny/world.toml: places[0].exits.up: unknown place 'lamb' (did you mean 'lamp'?)"
    )


def test_exit_direction_must_be_a_direction(content: Path) -> None:
    edit(content, "world.toml", 'exits = { up = "lamp" }', 'exits = { upward = "lamp" }')
    assert "content/tiny/world.toml: places[0].exits: 'upward' is not a direction" in error_of(content)


def test_duplicate_place_id(content: Path) -> None:
    edit(content, "world.toml", 'id = "lamp"', 'id = "stair"')
    message = error_of(content)
    assert ("content/tiny/world.toml: places[1].id: duplicate place id 'stair' "
            "(first at content/tiny/world.toml: places[0].id)") in message


def test_duplicate_alias_across_characters(content: Path) -> None:
    edit(content, "characters.toml", 'aliases = ["Tobin"]', 'aliases = ["Tobin", "the Keeper"]')
    assert "content/tiny/characters.toml: characters[1].aliases[1]: duplicate name 'the Keeper'" in error_of(content)


def test_flag_typo_is_caught(content: Path) -> None:
    edit(content, "world.toml", 'when = { flags = ["lamp_lit"] }', 'when = { flags = ["lamp_lt"] }')
    assert error_of(content) == (
        "content/tiny/world.toml: beats[0].when.flags[0]: unknown flag 'lamp_lt': "
        "no effect ever sets it (did you mean 'lamp_lit'?)"
    )


def test_beat_naming_an_unknown_character(content: Path) -> None:
    edit(content, "world.toml", '"Edda Marsh" = "lamp"', '"Edna Marsh" = "lamp"')
    assert "content/tiny/world.toml: beats[1].effects.move.Edna Marsh: unknown character 'Edna Marsh'" in error_of(content)


def test_relation_reference_with_unknown_relation_and_bad_syntax(content: Path) -> None:
    edit(content, "characters.toml", "Edda Marsh -> player: TRUSTS sign=+", "Edda Marsh -> player: TRUSTY")
    assert "characters[0].topics[1].when.relations[0]: unknown relation 'TRUSTY'" in error_of(content)
    edit(content, "characters.toml", "Edda Marsh -> player: TRUSTY", "Edda trusts the player")
    assert "characters[0].topics[1].when.relations[0]: 'Edda trusts the player' is not a relation reference" in error_of(content)


def test_relationship_to_unknown_character(content: Path) -> None:
    edit(content, "characters.toml", 'target = "Lighthouse Board"', 'target = "Lighthouse Bored"')
    assert ("content/tiny/characters.toml: relationships[1].target: unknown character 'Lighthouse Bored' "
            "(did you mean 'Lighthouse Board'?)") in error_of(content)


def test_missing_world_table_and_second_player_table(content: Path) -> None:
    (content / "tiny" / "zz-extra.toml").write_text('[player]\nname = "X"\nsummary = "Another one."\n')
    assert "content/tiny/zz-extra.toml: player: a second [player] table" in error_of(content)
    (content / "tiny" / "zz-extra.toml").unlink()
    (content / "headless").mkdir()
    shutil.copy(content / "tiny" / "characters.toml", content / "headless")
    message = error_of(content, "headless")
    assert "content/headless: no [world] table in any file" in message
    assert "content/headless: no [player] table in any file" in message
    edit(content, "world.toml", "[world]", "[world_]")
    assert "content/tiny/world.toml: world_: unknown field (did you mean 'world'?)" in error_of(content)


def test_several_errors_are_reported_together(content: Path) -> None:
    edit(content, "world.toml", 'exits = { up = "lamp" }', 'exits = { up = "attic" }')
    edit(content, "world.toml", 'start = "stair"', 'start = "cellar"')
    message = error_of(content)
    assert "world.start: unknown place 'cellar'" in message
    assert "places[0].exits.up: unknown place 'attic'" in message


def test_unknown_or_malformed_world_id(content: Path) -> None:
    with pytest.raises(ContentError, match=r"no world .atlantis. in .*\(worlds there: quay, skerry, tiny\)"):
        load_world(content, "atlantis")
    with pytest.raises(ContentError, match="not a world id"):
        load_world(content, "../tiny")


def test_list_worlds_lists_a_broken_world_with_its_error(content: Path) -> None:
    shutil.copytree(content / "tiny", content / "broken")
    path = content / "broken" / "world.toml"
    path.write_text(path.read_text().replace('start = "stair"', 'start = "nowhere-at-all"'))
    infos = {info.id: info for info in list_worlds(content)}
    assert infos["tiny"].error is None and infos["tiny"].title == "The Lamp Room"
    assert infos["broken"].title == "The Lamp Room"
    assert infos["broken"].error is not None and "world.start: unknown place 'nowhere-at-all'" in infos["broken"].error
    assert list_worlds(content / "missing") == []


def test_inline_effects_extended_by_a_header_explains_the_toml_rule(content: Path) -> None:
    edit(content, "world.toml", 'effects = { ending = "lit" }', 'effects = { ending = "lit" }\n\n'
         '[[beats.effects.relations]]\nsource = "Edda"\ntarget = "player"\nrelation = "TRUSTS"\n'
         'strength = 0.5\nfact = "Edda trusts the player now."')
    message = error_of(content)
    assert message.startswith("content/tiny/world.toml: line ")
    assert "write it as a [....effects] table instead" in message


def test_fact_and_summary_too_long_once_the_player_is_named(content: Path) -> None:
    edit(content, "world.toml", 'name = "Sam Reed"', 'name = "Samuel Reed"')
    long = ("{player} " * 44).strip()
    edit(content, "characters.toml", 'fact = "Tobin Hale has trimmed Edda Marsh\'s wicks for three winters."',
         f'fact = "{long}"')
    edit(content, "characters.toml", 'fact = "Edda Marsh trusts Sam Reed since Sam steadied her wick."',
         f'fact = "{long}"')
    edit(content, "characters.toml", 'summary = "The keeper\'s apprentice, who wants the post for himself."',
         f'summary = "{long}"')
    message = error_of(content)
    assert ("content/tiny/characters.toml: relationships[0].fact: at most 400 characters once {player} "
            "is filled in (got 527)") in message
    assert ("content/tiny/characters.toml: characters[0].reactions[0].effects.relations[0].fact: at most 400 "
            "characters once {player} is filled in (got 527)") in message
    assert "content/tiny/characters.toml: characters[1].summary: at most 400 characters once {player}" in message


def test_player_summary_too_short_once_the_player_is_named(content: Path) -> None:
    edit(content, "world.toml", 'name = "Sam Reed"', 'name = "Al"')
    edit(content, "world.toml", 'summary = "A relief keeper sent out on the supply boat."', 'summary = "{player}"')
    assert ("content/tiny/world.toml: player.summary: at least 4 characters once {player} is filled in (got 2)"
            in error_of(content))


def test_initial_graph_calls_fill_in_the_player_in_summaries(content: Path) -> None:
    edit(content, "characters.toml", 'summary = "The keeper\'s apprentice, who wants the post for himself."',
         'summary = "The apprentice, who resents {player}."')
    edit(content, "world.toml", 'summary = "A relief keeper sent out on the supply boat."',
         'summary = "{player}, a relief keeper."')
    nodes = {n["name"]: n for call in load_world(content, "tiny").initial_graph_calls() for n in call.get("nodes", [])}
    assert nodes["Tobin Hale"]["summary"] == "The apprentice, who resents Sam Reed."
    assert nodes["Sam Reed"]["summary"] == "Sam Reed, a relief keeper."


def test_set_or_clear_with_a_bang_is_refused(content: Path) -> None:
    edit(content, "world.toml", 'effects = { set = ["lamp_lit"] }', 'effects = { set = ["!lamp_lit"], clear = ["!x"] }')
    message = error_of(content)
    assert ("content/tiny/world.toml: commands[0].effects.set[0]: a flag to set takes no '!' "
            "(to unset a flag, use clear)") in message
    assert "content/tiny/world.toml: commands[0].effects.clear[0]: a flag to clear takes no '!'" in message


def test_command_phrase_that_matches_nothing_is_refused(content: Path) -> None:
    edit(content, "world.toml", 'say = ["light lamp", "light the lamp"]', 'say = ["light lamp", "?!", "please"]')
    message = error_of(content)
    assert "content/tiny/world.toml: commands[0].say[1]: no words left once punctuation and filler are dropped" in message
    assert "commands[0].say[2]: no words left" in message


def test_calls_are_chunked_to_the_tools_limits_nodes_then_edges_then_closes() -> None:
    from game.graph.calls import chunk_calls

    nodes = [{"name": f"N{i}"} for i in range(17)]
    edges = [{"fact": f"E{i}"} for i in range(13)]
    closes = [{"relation": f"C{i}"} for i in range(25)]
    calls = chunk_calls(nodes, edges, closes)
    assert [(k, len(v)) for call in calls for k, v in call.items()] == [
        ("nodes", 8), ("nodes", 8), ("nodes", 1), ("edges", 12), ("edges", 1),
        ("closeEdges", 12), ("closeEdges", 12), ("closeEdges", 1),
    ]
    assert [n for call in calls for n in call.get("nodes", [])] == nodes
    assert chunk_calls([], [], []) == []


def test_initial_graph_calls_chunk_a_large_cast(content: Path) -> None:
    extra = "".join(
        f'\n[[characters]]\nname = "Gull {i}"\nsummary = "A gull that watches the lamp room."\n'
        f'\n[[relationships]]\nsource = "Gull {i}"\ntarget = "Edda Marsh"\nrelation = "FEARS"\n'
        f'strength = -0.3\nfact = "Gull {i} keeps clear of Edda Marsh and her broom."\n'
        for i in range(12)
    )
    path = content / "tiny" / "characters.toml"
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    calls = load_world(content, "tiny").initial_graph_calls()
    assert [(k, len(v)) for call in calls for k, v in call.items()] == [
        ("nodes", 8), ("nodes", 8), ("edges", 12), ("edges", 2),
    ]


def test_a_deeply_nested_array_is_a_clean_error_naming_the_file(content: Path) -> None:
    (content / "tiny" / "deep.toml").write_text("x = " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    assert "content/tiny/deep.toml: " in error_of(content)
    assert "nested too deeply" in error_of(content)
    infos = {info.id: info for info in list_worlds(content)}
    assert infos["tiny"].error is not None and "deep.toml" in infos["tiny"].error


def test_a_deeply_nested_world_toml_still_lists_the_world(content: Path) -> None:
    path = content / "tiny" / "world.toml"
    path.write_text(path.read_text(encoding="utf-8") + "x = " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    infos = {info.id: info for info in list_worlds(content)}
    assert infos["tiny"].error is not None and "world.toml" in infos["tiny"].error


@pytest.mark.timeout(20)
def test_a_fifo_named_toml_is_refused_without_waiting_for_a_writer(content: Path) -> None:
    os.mkfifo(content / "tiny" / "pipe.toml")
    os.mkfifo(content / "skerry" / "world.toml.tmp")  # not a .toml: ignored, as before
    assert "content/tiny/pipe.toml: not a regular file" in error_of(content)
    infos = {info.id: info for info in list_worlds(content)}
    assert infos["tiny"].error is not None and infos["skerry"].error is None


def test_a_fifo_in_place_of_world_toml_is_refused(content: Path) -> None:
    path = content / "tiny" / "world.toml"
    path.unlink()
    os.mkfifo(path)
    assert "content/tiny/world.toml: not a regular file" in error_of(content)
    infos = {info.id: info for info in list_worlds(content)}
    assert infos["tiny"].error is not None and infos["tiny"].title == "tiny"
