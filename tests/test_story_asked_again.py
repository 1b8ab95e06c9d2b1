"""A topic asked about again is a reminder, not the scene told twice (``responses.told_again``): the words
said aloud the first time, joined, after the world's ``told_before`` line; an answer with nothing said
aloud is given whole after it; and the first answer stays as the content wrote it."""

from __future__ import annotations

import shutil
from pathlib import Path

from playthrough import Playthrough

from game.world import load_world

TINY = Path(__file__).parent / "fixtures" / "worlds" / "tiny"


def _world(tmp_path: Path, replies: str = "") -> Path:
    folder = tmp_path / "worlds"
    shutil.copytree(TINY, folder / "tiny")
    characters = folder / "tiny" / "characters.toml"
    # A topic answered in narration only (no words said aloud), placed before the first reaction.
    text = characters.read_text(encoding="utf-8").replace(
        "[[characters.reactions]]",
        '[[characters.topics]]\nabout = ["the gull"]\nreply = "Edda points at the gull on the rail, and says nothing."\n\n'
        "[[characters.reactions]]", 1)
    characters.write_text(text, encoding="utf-8")
    if replies:
        world = folder / "tiny" / "world.toml"
        world.write_text(world.read_text(encoding="utf-8").replace("[replies]\n", f"[replies]\n{replies}\n", 1),
                         encoding="utf-8")
    return folder


async def test_asked_again_the_words_said_come_back_as_a_reminder(tmp_path: Path) -> None:
    game = await Playthrough.start(load_world(_world(tmp_path), "tiny"))
    first = await game.play("ask edda about the lamp")
    assert "It wants lighting before dark" in first and "already" not in first
    again = await game.play("ask edda about the lamp")
    assert again.strip() == ('Edda has told you this already: "It wants lighting before dark. The matches are on '
                             'the stair."')
    # Nothing said aloud: the reminder, a full stop, and the answer whole.
    await game.play("ask edda about the gull")
    gull = await game.play("ask edda about the gull")
    assert gull.strip() == "Edda has told you this already. Edda points at the gull on the rail, and says nothing."


async def test_the_world_words_the_reminder(tmp_path: Path) -> None:
    folder = _world(tmp_path, 'told_before = "{name} sighs. You have heard this."')
    game = await Playthrough.start(load_world(folder, "tiny"))
    await game.play("ask edda about the lamp")
    again = await game.play("ask edda about the lamp")
    assert again.strip().startswith('Edda sighs. You have heard this. "It wants lighting before dark.')
