"""A feature's meta commands plug in through the registry: reachable from play, listed in ``help``, given
a narrow reach (the turn, the feature's state, one undoable change), and its refusals shown as messages
(docs/architecture.md, "Writing a feature")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from helpers.play import collect, text_of

from game.config import load_settings
from game.engine.meta import help_text, parse_meta
from game.engine.session import GameSession
from game.errors import KithError
from game.features.feature import CommandReach, Feature, MetaHandler, Rows, StepResult, TurnFacts
from game.registry import Registry, default_registry, register_builtin
from game.store.rows import RowWrite

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


class Waving(Feature):
    """A small feature with one command: ``/wave NAME`` waves at someone, counting the turns it has seen."""

    name: ClassVar[str] = "waving"
    meta_commands: ClassVar[Mapping[str, str]] = {"wave": "`/wave NAME` waves at someone."}

    def load(self, rows: Rows) -> int:
        return 0

    def apply(self, state: Any, rows: Sequence[RowWrite]) -> int:
        return int(state or 0) + 1

    async def after_turn(self, facts: TurnFacts) -> StepResult:
        return StepResult()

    def meta_handler(self, word: str) -> MetaHandler:
        async def wave(reach: CommandReach, argument: str) -> str:
            if not argument:
                raise KithError("Wave at whom? Type `/wave NAME`.")
            return f"You wave at {argument} (turn {reach.turn}; {reach.state} turns seen)."

        return wave


async def test_a_registered_features_command_is_played_and_listed_in_help(tmp_path: Path) -> None:
    registry = Registry()
    register_builtin(registry)
    registry.register_feature(Waving())
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": FIXTURES}, env={})
    session = await GameSession.open(settings, "game", new=True, world="tiny", registry=registry)
    try:
        assert "`/wave NAME` waves at someone." in text_of(await collect(session, "help"))
        await collect(session, "help edda")
        assert "You wave at Edda (turn 1; 1 turns seen)." in text_of(await collect(session, "/WAVE Edda"))
        refused = text_of(await collect(session, "/wave"))
        assert "Wave at whom?" in refused and session.turn == 1  # a refusal is a message; nothing changed
        assert "You wave" not in text_of(await collect(session, "wave"))  # bare, it is a word of the story
        assert session.turn == 2
    finally:
        await session.close()
    # Where the feature is not registered, its word is no command the game has.
    assert parse_meta("/wave Edda", registry) is not None and default_registry().command_owner("wave") is None
    assert "/wave" not in help_text()


def test_the_built_in_notes_are_commands_of_the_registry_and_in_help() -> None:
    assert default_registry().command_owner("memory") is default_registry().feature("notes")
    assert parse_meta("/note terse") is not None and parse_meta("note the time") is None
    assert "`/memory [TEXT|clear]`" in help_text() and "`/note [TEXT|clear]`" in help_text()


def test_knowledge_is_the_gossip_features_command_and_in_help() -> None:
    gossip = default_registry().feature("gossip")
    assert default_registry().command_owner("knowledge") is gossip and gossip.changes_graph
    assert parse_meta("/knowledge Hob add Lise FEARS Dace") is not None
    assert parse_meta("knowledge is power") is None  # bare, it is a word of the story
    assert "`/knowledge NAME add SUBJECT PREDICATE OBJECT` teaches them a fact (`undo` takes it back)" in help_text()
    assert help_text().count("/knowledge NAME`") == 1  # listed once, as the feature's line
    without = Registry()
    without.register_feature(Waving())
    assert without.command_owner("knowledge") is None  # a game without gossip has no such command
