"""``show X to Y`` always gets a reaction that fits who Y is and what X is, never a shrug."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playthrough import Playthrough

from game.errors import ContentError
from game.world import load_world

CONTENT = Path(__file__).parent.parent / "content"


async def shown(item: str, name: str) -> str:
    world = load_world(CONTENT, "brinefall")
    character = world.character(name)
    assert character is not None and character.location is not None
    game = await Playthrough.start(world)
    game.scene = game.scene.model_copy(update={"location": character.location, "inventory": list(world.items)})
    return await game.play(f"show {item} to {character.name}")


async def test_every_item_shown_to_everyone_gets_a_reaction_that_fits() -> None:
    world = load_world(CONTENT, "brinefall")
    people = [c.name for c in world.characters if c.type == "individual" and c.location is not None]
    for item in world.items:
        for name in people:
            reply = await shown(item, name)
            assert "unmoved" not in reply and reply.strip(), (item, name, reply)


async def test_who_is_shown_changes_the_answer() -> None:
    guild, other = await shown("stake", "Orla Vance"), await shown("stake", "Maud Quaile")
    assert "returned" in guild and "returned" not in other and "unmoved" not in other
    assert "That is not yours" in await shown("ledger", "Fenn Orrick")
    assert "I'll carry irons" in await shown("ledger", "Lise Brack"), "a character's own reaction still wins"


def test_a_show_line_for_nobody_or_no_item_is_refused_at_load(tmp_path: Path) -> None:
    shutil.copytree(Path(__file__).parent / "fixtures" / "worlds", tmp_path / "content")
    world_file = tmp_path / "content" / "tiny" / "world.toml"
    world_file.write_text(world_file.read_text(encoding="utf-8").replace(
        'goal = "Someone has to light the lamp before the ships come in."',
        'goal = "Someone has to light the lamp before the ships come in."\n\n[[world.shows]]\n'
        'items = ["matchs"]\nto = ["kepper"]\ntext = "{name} looks at {thing}."', 1), encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        load_world(tmp_path / "content", "tiny")
    message = caught.value.message
    assert "content/tiny/world.toml: world.shows[0].items[0]: unknown item 'matchs'" in message
    assert ("content/tiny/world.toml: world.shows[0].to[0]: no character is named or labelled 'kepper' "
            "(did you mean 'keeper'?)") in message
