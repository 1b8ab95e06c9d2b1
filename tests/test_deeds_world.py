"""docs/world-format.md's Thornwick worked example is the shipped world content/thornwick, and playing it
tells what the page says: a threat no reaction answers is passed on, said back in the act's words, and
answered by a cold tier that keeps a secret (issue 23)."""

from __future__ import annotations

import re
from pathlib import Path

from playthrough import Playthrough

from game.world.loader import load_world

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "world-format.md"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in _BLOCK.findall(DOC.read_text(encoding="utf-8")) if lang == kind]


def test_the_documented_example_is_the_shipped_world() -> None:
    documented = {m[1]: body for body in blocks("toml") if (m := re.match(r"# thornwick/(\S+\.toml)", body))}
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "content" / "thornwick").glob("*.toml")}
    assert set(documented) == set(on_disk) == {"world.toml", "places.toml", "characters.toml", "items.toml"}
    for name, text in documented.items():
        assert text == on_disk[name], f"docs and content/thornwick/{name} differ"


async def test_the_documented_transcript_is_what_the_engine_tells() -> None:
    transcript = next(b for b in blocks("text") if b.startswith("> e\n**The Smithy**"))
    turns = [part.split("\n", 1) for part in transcript.strip().split("\n\n> ")]
    game = await Playthrough.start(load_world(ROOT / "content", "thornwick"), seed=0)
    said: dict[str, str] = {}
    for command, expected in turns:
        said[command.removeprefix("> ")] = told = await game.play(command.removeprefix("> "))
        assert told == expected.strip(), command
    assert "threatened him" in said["talk to ada"]
    assert "He went to the ford" not in said["ask ada about tam"]  # the secret kept by a cold tier
    assert "The will's read at dusk" in said["ask ada about the will"]  # open = true: told at any tier
