"""docs/world-format.md stays true: its example world is the fixture, its transcript is what the engine
prints, and every field of the format is documented."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playthrough import Playthrough
from pydantic import BaseModel

from game.world import load_world
from game.world import schema as format_models

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "world-format.md"
FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
_BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in _BLOCK.findall(DOC.read_text(encoding="utf-8")) if lang == kind]


def example_files() -> dict[str, str]:
    files: dict[str, str] = {}
    for body in blocks("toml"):
        match = re.match(r"# skerry/(\S+\.toml)", body)
        if match:
            files[match[1]] = body
    return files


def test_the_documented_example_is_the_fixture_world() -> None:
    documented = example_files()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (FIXTURES / "skerry").glob("*.toml")}
    assert set(documented) == set(on_disk) == {"world.toml", "places.toml", "characters.toml", "beats.toml"}
    for name, text in documented.items():
        assert text == on_disk[name], f"docs and tests/fixtures/worlds/skerry/{name} differ"


async def test_the_documented_transcript_is_what_the_engine_tells() -> None:
    transcript = next(b for b in blocks("text") if b.startswith("> x boat"))
    turns = [part.split("\n", 1) for part in transcript.strip().split("\n\n> ")]
    world = load_world(FIXTURES, "skerry")
    game = await Playthrough.start(world, seed=0)
    for command, expected in turns:
        told = await game.play(command.removeprefix("> "))
        assert told == expected.strip(), command
    assert game.scene.ending == "keep"
    assert game.open_relation("Morwen Hale", "player", "ALLY_OF") is not None
    assert game.open_relation("Davy Quick", "Morwen Hale", "PAYS") is not None


async def test_the_other_skerry_ending_follows_lost_trust() -> None:
    world = load_world(FIXTURES, "skerry")
    game = await Playthrough.start(world, seed=0)
    for command in ("x boat", "n", "talk to morwen", "help morwen", "accuse morwen", "u", "write in the log"):
        await game.play(command)
    assert game.scene.ending == "report"
    distrust = game.open_relation("Morwen Hale", "player", "DISTRUSTS")
    assert distrust is not None and distrust.strength == -0.6
    assert game.open_relation("Morwen Hale", "player", "TRUSTS") is None  # distrust closed her trust
    assert game.open_relation("Trinity Board", "player", "TRUSTS") is not None
    assert game.open_relation("Morwen Hale", "Trinity Board", "SERVES") is None
    assert "The Board's Man" in game.turns[-1].narration


async def test_davy_answers_a_threat_with_money_and_rows_off_unseen_from_the_cottage() -> None:
    world = load_world(FIXTURES, "skerry")
    game = await Playthrough.start(world, seed=0)
    assert "Keep quiet, too." in await game.play("threaten davy")
    assert game.scene.inventory == ["letter", "coin"]
    for command in ("n", "z", "z", "z", "z"):
        await game.play(command)
    assert "rows for the mainland" not in " ".join(t.narration for t in game.turns)
    assert "Davy Quick" not in game.scene.story.positions
    assert "Davy Quick" not in (await game.play("s"))


def _documented_fields(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def test_every_field_of_the_format_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    models: list[Any] = [
        format_models.WorldSection, format_models.PlayerDef, format_models.Replies, format_models.Ending,
        format_models.Place, format_models.Feature, format_models.Barrier, format_models.Item,
        format_models.CharacterDef, format_models.Topic, format_models.Reaction, format_models.NewsLine, format_models.RelationChange,
        format_models.Beat, format_models.Command, format_models.Conditions, format_models.Effects,
    ]
    missing = [f"{m.__name__}.{field}" for m in models for field in _documented_fields(m)
               if f"`{field}`" not in text]
    assert not missing, f"undocumented fields: {missing}"
    for field in ("name", "description", "synonyms", "inverse", "symmetric"):
        assert f"`{field}`" in text
    for table in format_models.WorldDocument.model_fields:
        assert f"`[{table}]`" in text or f"`[[{table}]]`" in text, table
