"""Identity is one feature that plugs in (issue 22): the engine reaches its questions, its answers and its
merges only through the registry, and a game whose registry leaves it out plays on without them.

Played through the real session on a real save (the tiny fixture world), with the offline narrator that
names a newcomer in its graph update on the first turn, as a model's extractor would.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from helpers.narrators import Introducing
from helpers.play import collect, text_of
from helpers.questions import questions_of

from game.config import Settings, load_settings
from game.engine.events import MetaOutput
from game.engine.session import GameSession
from game.features.deeds import DeedsFeature
from game.features.gossip import GossipFeature
from game.features.identity import IdentityFeature
from game.features.memories import MemoriesFeature
from game.features.notes import NotesFeature
from game.registry import Registry, default_registry
from game.world import load_world

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "game" / "engine"
FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
KEEPER = {"name": "Keeper Marsh", "summary": "A keeper in an oilskin who knows the stair too well."}
GENERIC = (
    # The graph's own upsert API: what a new name is judged against (``UpsertExecution(identity=...)``).
    ("turn_steps.py", "identity=state.graph.nodes.values"),
)
"""The only lines of game/engine that may say "identity": generic words, not the feature."""


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, type-only and function-local imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_engine_imports_nothing_of_identity() -> None:
    offenders = {f"{path.name}: {module}" for path in sorted(ENGINE.glob("*.py"))
                 for module in imported_modules(path) if "identit" in module.casefold()}
    assert offenders == set()


def test_the_engine_names_identity_only_in_generic_words() -> None:
    named = []
    for path in sorted(ENGINE.glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search("identit", line, re.IGNORECASE) and not any(
                    path.name == name and words in line for name, words in GENERIC):
                named.append(f"{path.name}:{number}: {line.strip()}")
    assert named == []


def test_identity_is_registered_first_with_its_table_and_commands() -> None:
    features = list(default_registry())
    assert isinstance(features[0], IdentityFeature)
    identity = default_registry().feature("identity")
    assert identity.tables == ("pending_identities",)
    assert identity.graph_commands == ("pending", "resolve")
    assert identity.asks_player and identity.answers_player and identity.merges_people


def settings_for(tmp_path: Path) -> Settings:
    return load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})


async def start(tmp_path: Path, registry: Registry | None = None) -> GameSession:
    world = load_world(FIXTURES, "tiny")
    narrator = Introducing(world, 1, {"nodes": [KEEPER]})
    return await GameSession.open(settings_for(tmp_path), save="game", new=True, world="tiny", narrator=narrator,
                                  registry=registry)


async def test_the_registered_feature_asks_and_takes_the_answer(tmp_path: Path) -> None:
    session = await start(tmp_path)
    try:
        await collect(session, "look")
        assert text_of(await collect(session, "wait")).rstrip().endswith("Keeper Marsh — is that Edda Marsh?")
        events = await collect(session, "yes")
        assert any(isinstance(e, MetaOutput) and e.command == "identity" and "Edda Marsh it is" in e.text
                   for e in events)
        assert await questions_of(session, open_only=False) != []
    finally:
        await session.close()


async def test_a_game_without_the_identity_feature_never_asks_and_tells_yes_as_story(tmp_path: Path) -> None:
    registry = Registry()
    for feature in (GossipFeature(), DeedsFeature(), NotesFeature(), MemoriesFeature()):
        registry.register_feature(feature)
    session = await start(tmp_path, registry)
    try:
        await collect(session, "look")
        keeper = [n for n in session.graph.nodes.values() if n.name == "Keeper Marsh"]
        assert len(keeper) == 1  # the newcomer is still a person of their own
        assert "is that Edda Marsh?" not in text_of(await collect(session, "wait"))
        events = await collect(session, "yes")
        assert not any(isinstance(e, MetaOutput) and e.command == "identity" for e in events)
        assert session.turn == 3 and keeper[0].id in session.graph.nodes
        assert await questions_of(session, open_only=False) == []
    finally:
        await session.close()
