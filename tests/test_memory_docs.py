"""docs/world-format.md, "Memories": its example world loads and plays exactly as its transcript says."""

from __future__ import annotations

import re
from pathlib import Path

from playthrough import Playthrough

from game.world import load_world

DOC = Path(__file__).resolve().parent.parent / "docs" / "world-format.md"
_BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index("## Memories"):text.index("## How a turn is told")]


async def test_the_memories_example_plays_as_documented(tmp_path: Path) -> None:
    blocks = _BLOCK.findall(section())
    world_toml = next(body for lang, body in blocks if lang == "toml" and body.startswith("# tollhouse/"))
    transcript = next(body for lang, body in blocks if lang == "text")
    (tmp_path / "tollhouse").mkdir()
    (tmp_path / "tollhouse" / "world.toml").write_text(world_toml, encoding="utf-8")
    game = await Playthrough.start(load_world(tmp_path, "tollhouse"))
    turns = [part.split("\n", 1) for part in transcript.strip().split("\n\n> ")]
    for command, expected in turns:
        assert await game.play(command.removeprefix("> ")) == expected.strip(), command
